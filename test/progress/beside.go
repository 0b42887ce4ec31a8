package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// beside is a command make test runs beside the tests rather than before
// them (go vet and staticcheck): at the lowest CPU priority, so that it
// takes the CPU time the tests leave idle (the end of the run, when the
// last packages link and run one or two at a time) instead of a share of
// it or minutes of its own up front. Its output goes to a file; its end is
// said as soon as it comes, and the run waits for it before it ends.
type beside struct {
	name  string
	log   string
	start time.Time
	cmd   *exec.Cmd
	done  chan struct{}
	err   error // how it ended, once done is closed
}

// startBeside starts script (sh -c) as name, niced, in a process group of
// its own (stop ends all of it), its output in logDir.
func startBeside(name, script, logDir string, w io.Writer) (*beside, error) {
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return nil, err
	}
	b := &beside{name: name, log: filepath.Join(logDir, strings.ReplaceAll(name, " ", "-")+".log"), start: time.Now(), done: make(chan struct{})}
	f, err := os.Create(b.log)
	if err != nil {
		return nil, err
	}
	b.cmd = exec.Command("nice", "-n", "19", "sh", "-c", script)
	b.cmd.Stdout, b.cmd.Stderr = f, f
	b.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := b.cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	fmt.Fprintf(w, "%s: beside the tests, at the lowest CPU priority (its output: %s)\n", name, b.log)
	go func() {
		b.err = b.cmd.Wait()
		f.Close()
		fmt.Fprintf(w, "%s: %s after %s\n", name, b.outcome(), time.Since(b.start).Round(100*time.Millisecond))
		close(b.done)
	}()
	return b, nil
}

// outcome says how it ended.
func (b *beside) outcome() string {
	var exit *exec.ExitError
	switch {
	case b.err == nil:
		return "passed"
	case errors.As(b.err, &exit):
		return fmt.Sprintf("FAILED (exit status %d)", exit.ExitCode())
	default:
		return "FAILED (" + b.err.Error() + ")"
	}
}

// wait waits for it to end, saying every `every` that it still runs, and
// reports whether it failed, with the last head lines of its output.
func (b *beside) wait(w io.Writer, every time.Duration, head int) (failed bool) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for waiting := true; waiting; {
		select {
		case <-b.done:
			waiting = false
		case <-tick.C:
			fmt.Fprintf(w, "  ... %s: still running (%s)\n", b.name, time.Since(b.start).Round(time.Second))
		}
	}
	if b.err == nil {
		return false
	}
	fmt.Fprintf(w, "FAIL: %s, %s; its output (%s):\n", b.name, b.outcome(), b.log)
	for _, line := range lastLines(b.log, head) {
		fmt.Fprintln(w, "  "+line)
	}
	return true
}

// stop ends it and whatever it started, if it still runs.
func (b *beside) stop() {
	select {
	case <-b.done:
	default:
		_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
		<-b.done
	}
}

// lastLines returns the last n lines of the file at path.
func lastLines(path string, n int) []string {
	f, err := os.Open(path)
	if err != nil {
		return []string{err.Error()}
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	return lines
}
