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

// maxCoreLine bounds one message from a core. Generous: a view of an image
// at the core's default --max-file-size, base64-encoded, fits.
const maxCoreLine = 64 << 20

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
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, fmt.Errorf("core stderr: %w", err)
	}
	if err := sp.start(cmd); err != nil {
		return nil, fmt.Errorf("start core %s: %w", path, err)
	}
	p := &coreProc{cmd: cmd, group: l.group, stdin: stdin, stdout: bufio.NewReaderSize(stdout, 64<<10), exited: make(chan struct{})}
	go relayStderr(stderr, log)
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

// relayStderr copies a core's log lines into the gateway's log.
func relayStderr(r io.Reader, log *slog.Logger) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		log.Debug("core log", "line", sc.Text())
	}
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

// readMessage returns the core's next stdout line.
func (p *coreProc) readMessage() ([]byte, error) {
	var line []byte
	for {
		chunk, err := p.stdout.ReadSlice('\n')
		if len(line)+len(chunk) > maxCoreLine {
			return nil, errors.New("core sent a message over the size limit")
		}
		line = append(line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			if err != nil && len(line) == 0 {
				return nil, err
			}
			return line, nil
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
