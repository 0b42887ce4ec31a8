package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// runPhase runs args (a command such as go vet ./...) as make test's
// phase name: its output passed through, a line every `every` of silence
// saying it still runs, and a last line with its time. It returns the
// command's exit status.
func runPhase(name string, args []string, every time.Duration, w io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintf(w, "progress: -phase %s: no command after --\n", name)
		return 2
	}
	var mu sync.Mutex
	last := time.Now()
	out := writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		last = time.Now()
		return w.Write(p)
	})
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, out, out
	start := time.Now()
	fmt.Fprintf(out, "%s: %s\n", name, strings.Join(args, " "))
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(out, "%s: %v\n", name, err)
		return 1
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(max(every/5, 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			fmt.Fprintf(out, "%s: done in %s\n", name, time.Since(start).Round(100*time.Millisecond))
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				return exit.ExitCode()
			}
			if err != nil {
				fmt.Fprintf(out, "%s: %v\n", name, err)
				return 1
			}
			return 0
		case <-tick.C:
			mu.Lock()
			quiet := time.Since(last) >= every
			mu.Unlock()
			if quiet {
				fmt.Fprintf(out, "  ... %s: still running (%s)\n", name, time.Since(start).Round(time.Second))
			}
		}
	}
}

// writerFunc is an io.Writer made of a function.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
