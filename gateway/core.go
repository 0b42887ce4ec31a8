package gateway

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mjkoo/boris/internal/cgroup"
)

// coreChunk is how much of a core message is read at once: smaller
// messages (nearly all) are read in one piece, larger ones piece by piece
// against the session's budget.
const coreChunk = 64 << 10

// stderrTail is how many of a core's last log lines are kept, to be logged
// at warn level when the core exits on its own.
const stderrTail = 10

// coreProc is one running boris: its stdin for client messages, its stdout
// read line by line by the session's router.
type coreProc struct {
	cmd    *exec.Cmd
	group  *cgroup.Group // the session's cgroup, or nil
	stdin  io.WriteCloser
	stdout *bufio.Reader
	wmu    sync.Mutex
	exited chan struct{} // closed once the process is reaped
	err    error         // Wait's result, valid after exited
	logs   *tail         // its last stderr lines
}

// spawnCore starts path with args in a new process group, with a parent-death
// signal on Linux so a gateway killed with SIGKILL leaves no orphan core, with
// l's arguments and environment (see launchFor).
func spawnCore(sp *spawner, path string, l launch, log *slog.Logger) (*coreProc, error) {
	cmd := exec.Command(path, l.args...)
	cmd.Env = l.env
	cmd.SysProcAttr = sysProcAttr()
	if l.group != nil {
		// Born inside its cgroup (clone3 CLONE_INTO_CGROUP): there is no
		// moment in which the core, or anything it forks, runs outside.
		l.group.ApplyTo(cmd.SysProcAttr)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("core stdin: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("core stdout: %w", err)
	}
	// Not StderrPipe: Wait closes that, and could drop a dying core's last
	// lines before they are read. This read end closes when the relay has
	// read everything every writer wrote.
	stderr, stderrW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("core stderr: %w", err)
	}
	cmd.Stderr = stderrW
	err = sp.start(cmd)
	stderrW.Close()
	if err != nil {
		stderr.Close()
		return nil, fmt.Errorf("start core %s: %w", path, err)
	}
	p := &coreProc{
		cmd: cmd, group: l.group, stdin: stdin, stdout: bufio.NewReaderSize(stdout, coreChunk),
		exited: make(chan struct{}), logs: &tail{done: make(chan struct{})},
	}
	go relayStderr(stderr, p.logs, log)
	go func() {
		// A core that dies without ending its commands (a crash, SIGKILL)
		// leaves them in its session. They are swept while the core is
		// still an unreaped zombie, so its pid, which names the session,
		// cannot have been reused by another process.
		pid := cmd.Process.Pid
		awaitExit(pid)
		killSession(pid)
		p.err = cmd.Wait()
		sp.done(pid)
		close(p.exited)
	}()
	return p, nil
}

// coreEnv drops BORIS_GATEWAY_* variables: tokens and keys never reach a core.
func coreEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "BORIS_GATEWAY_") {
			out = append(out, kv)
		}
	}
	return out
}

// relayStderr copies a core's log lines into the gateway's log (debug
// level: a working core's logs are its own business), keeping the last
// ones in t.
func relayStderr(r io.ReadCloser, t *tail, log *slog.Logger) {
	defer close(t.done)
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		log.Debug("core log", "line", sc.Text())
		t.add(sc.Text())
	}
	_, _ = io.Copy(io.Discard, r) // a line over the scanner's limit must not block the core
}

// tail keeps the last stderrTail lines of a core's log, each cut to 1 KiB.
type tail struct {
	mu    sync.Mutex
	lines []string
	done  chan struct{} // closed when the core's stderr is closed
}

func (t *tail) add(line string) {
	if len(line) > 1024 {
		line = line[:1024] + "..."
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, line)
	if len(t.lines) > stderrTail {
		t.lines = t.lines[len(t.lines)-stderrTail:]
	}
}

// last returns the lines kept, after waiting up to wait for the core's
// stderr to close, so that a core's dying words are among them.
func (t *tail) last(wait time.Duration) []string {
	select {
	case <-t.done:
	case <-time.After(wait):
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.lines...)
}

// send writes one message, newline-terminated, to the core's stdin.
func (p *coreProc) send(msg []byte) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if _, err := p.stdin.Write(append(msg, '\n')); err != nil {
		return fmt.Errorf("write to core: %w", err)
	}
	return nil
}

// readChunk returns the next piece of the core's current stdout line, up
// to coreChunk bytes, and whether the line goes on after it. The bytes are
// valid until the next read.
func (p *coreProc) readChunk() (chunk []byte, more bool, err error) {
	chunk, err = p.stdout.ReadSlice('\n')
	switch {
	case errors.Is(err, bufio.ErrBufferFull):
		return chunk, true, nil
	case err != nil && len(chunk) == 0:
		return nil, false, err
	}
	return chunk, false, nil
}

// skipLine discards the rest of the current line.
func (p *coreProc) skipLine() error {
	for {
		_, more, err := p.readChunk()
		if err != nil || !more {
			return err
		}
	}
}

// stop ends the core: stdin closed and SIGTERM to its process group, so it
// kills its own commands' groups and exits; SIGKILL to the group after
// grace. It returns once the process is reaped. Safe to call more than once.
func (p *coreProc) stop(grace time.Duration) {
	p.wmu.Lock()
	_ = p.stdin.Close()
	p.wmu.Unlock()
	pgid := p.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(grace):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.exited
	}
	// Anything the core left in its own group goes with it. (Commands it
	// left in its session are swept by the waiter, see spawnCore.)
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	// And whatever left both, in the session's cgroup.
	if p.group != nil {
		_ = p.group.Kill()
	}
}

// findCore locates the boris binary: the configured path, else next to
// this executable, else on $PATH.
func findCore(configured string) (string, error) {
	if configured != "" {
		if _, err := exec.LookPath(configured); err != nil {
			return "", usage("invalid value %q for --core: %v", configured, err)
		}
		return configured, nil
	}
	if self, err := os.Executable(); err == nil {
		next := filepath.Join(filepath.Dir(self), "boris")
		if fi, err := os.Stat(next); err == nil && !fi.IsDir() {
			return next, nil
		}
	}
	path, err := exec.LookPath("boris")
	if err != nil {
		return "", usage("cannot find the boris core next to boris-gateway or on $PATH; set --core")
	}
	return path, nil
}
