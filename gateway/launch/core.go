package launch

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
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

// Core is one running boris: its stdin for client messages, its stdout
// read line by line by the session's router.
type Core struct {
	Cmd    *exec.Cmd
	group  *cgroup.Group // the session's cgroup, or nil
	stdin  io.WriteCloser
	stdout *bufio.Reader
	wmu    sync.Mutex
	Exited chan struct{} // closed once the process is reaped
	Err    error         // Wait's result, valid after exited
	Logs   *Tail         // its last stderr lines
}

// Spawn starts path with args in a new process group, with a parent-death
// signal on Linux so a gateway killed with SIGKILL leaves no orphan core, with
// l's arguments and environment (the gateway's launchFor builds them).
func Spawn(sp *Spawner, path string, l Spec, log *slog.Logger) (*Core, error) {
	cmd := exec.Command(path, l.Args...)
	cmd.Env = l.Env
	cmd.SysProcAttr = sysProcAttr()
	if l.Group != nil {
		// Born inside its cgroup (clone3 CLONE_INTO_CGROUP): there is no
		// moment in which the core, or anything it forks, runs outside.
		l.Group.ApplyTo(cmd.SysProcAttr)
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
	p := &Core{
		Cmd: cmd, group: l.Group, stdin: stdin, stdout: bufio.NewReaderSize(stdout, coreChunk),
		Exited: make(chan struct{}), Logs: &Tail{done: make(chan struct{})},
	}
	go relayStderr(stderr, p.Logs, log)
	go func() {
		// A core that dies without ending its commands (a crash, SIGKILL)
		// leaves them in its session. They are swept while the core is
		// still an unreaped zombie, so its pid, which names the session,
		// cannot have been reused by another process.
		pid := cmd.Process.Pid
		awaitExit(pid)
		p.sweep(pid)
		p.Err = cmd.Wait()
		sp.done(pid)
		close(p.Exited)
	}()
	return p, nil
}

// sweep kills what a dead core left behind. In a cgroup of its own that
// is what is still in the group, which its commands cannot leave;
// without one, every process in the core's session, found by reading
// every process's stat, which at every exit of hundreds of cores costs
// more than the rest of a session's end.
func (p *Core) sweep(pid int) {
	if p.group != nil {
		if pids, err := p.group.Procs(); err == nil {
			for _, q := range pids {
				_ = syscall.Kill(q, syscall.SIGKILL)
			}
			return
		}
	}
	killSession(pid)
}

// CoreEnv drops BORIS_GATEWAY_* variables: tokens and keys never reach a core.
func CoreEnv(environ []string) []string {
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
func relayStderr(r io.ReadCloser, t *Tail, log *slog.Logger) {
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

// Tail keeps the last stderrTail lines of a core's log, each cut to 1 KiB.
type Tail struct {
	mu    sync.Mutex
	lines []string
	done  chan struct{} // closed when the core's stderr is closed
}

func (t *Tail) add(line string) {
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

// Last returns the lines kept, after waiting up to wait for the core's
// stderr to close, so that a core's dying words are among them.
func (t *Tail) Last(wait time.Duration) []string {
	select {
	case <-t.done:
	case <-time.After(wait):
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.lines...)
}

// Pid is the core's process id, or 0 if it has none.
func (p *Core) Pid() int {
	if p == nil || p.Cmd == nil || p.Cmd.Process == nil {
		return 0
	}
	return p.Cmd.Process.Pid
}

// Send writes one message, newline-terminated, to the core's stdin.
func (p *Core) Send(msg []byte) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if _, err := p.stdin.Write(append(msg, '\n')); err != nil {
		return fmt.Errorf("write to core: %w", err)
	}
	return nil
}

// ReadChunk returns the next piece of the core's current stdout line, up
// to coreChunk bytes, and whether the line goes on after it. The bytes are
// valid until the next read.
func (p *Core) ReadChunk() (chunk []byte, more bool, err error) {
	chunk, err = p.stdout.ReadSlice('\n')
	switch {
	case errors.Is(err, bufio.ErrBufferFull):
		return chunk, true, nil
	case err != nil && len(chunk) == 0:
		return nil, false, err
	}
	return chunk, false, nil
}

// SkipLine discards the rest of the current line.
func (p *Core) SkipLine() error {
	for {
		_, more, err := p.ReadChunk()
		if err != nil || !more {
			return err
		}
	}
}

// Stop ends the core: stdin closed and SIGTERM to its process group, so it
// kills its own commands' groups and exits; SIGKILL to the group after
// grace. It returns once the process is reaped. Safe to call more than once.
func (p *Core) Stop(grace time.Duration) {
	p.wmu.Lock()
	_ = p.stdin.Close()
	p.wmu.Unlock()
	pgid := p.Cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.Exited:
	case <-time.After(grace):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.Exited
	}
	// Anything the core left in its own group goes with it. (Commands it
	// left in its session are swept by the waiter, see Spawn.)
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	// And whatever left both, in the session's cgroup.
	if p.group != nil {
		_ = p.group.Kill()
	}
}
