package benchkit

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// listening is the gateway's log line naming its MCP endpoint.
var listening = regexp.MustCompile(`msg="boris-gateway listening" url=http://(\S+)/mcp`)

// Gateway is a boris-gateway a benchmark started.
type Gateway struct {
	cmd  *exec.Cmd
	Addr string // host:port it listens on
}

// URL is the gateway's MCP endpoint.
func (g *Gateway) URL() string { return "http://" + g.Addr + "/mcp" }

// StartGateway starts the boris-gateway at path with args (which should
// include --listen 127.0.0.1:0) and waits for its listening line; the
// rest of its log is drained.
func StartGateway(ctx context.Context, path string, args ...string) (*Gateway, error) {
	cmd := exec.CommandContext(ctx, path, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if m := listening.FindStringSubmatch(sc.Text()); m != nil {
			go func() { _, _ = io.Copy(io.Discard, stderr) }()
			return &Gateway{cmd: cmd, Addr: m[1]}, nil
		}
	}
	_ = cmd.Wait()
	return nil, fmt.Errorf("boris-gateway exited before listening")
}

// Pid is the gateway's process id.
func (g *Gateway) Pid() int { return g.cmd.Process.Pid }

// Stop ends the gateway with SIGTERM and waits for it. Safe to call more
// than once.
func (g *Gateway) Stop() {
	if g.cmd.ProcessState == nil {
		_ = g.cmd.Process.Signal(syscall.SIGTERM)
		_ = g.cmd.Wait()
	}
}

// CheckNoneLeft fails when a process naming dir (every core of a run
// names its --workdir) is still running 5 s after the run ended.
func CheckNoneLeft(ctx context.Context, dir string) error {
	left, err := AwaitGone(ctx, dir, 5*time.Second, 50*time.Millisecond)
	if err != nil {
		return err
	}
	return LeftoverError(left)
}

// LeftoverError is the error of a run after which the processes left
// were still running; nil when there were none.
func LeftoverError(left []string) error {
	if len(left) > 0 {
		return fmt.Errorf("%d boris process(es) outlived the run: %v", len(left), left)
	}
	return nil
}

// FreePort asks the kernel for a free loopback port, for a gateway
// started on it.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Terminate sends cmd's process SIGTERM, so a gateway ends its sessions
// and their cores the way it would in production, and waits for exited
// (closed once cmd is reaped); after timeout the process is killed. It
// reports whether the process exited on its own.
func Terminate(cmd *exec.Cmd, exited <-chan struct{}, timeout time.Duration) bool {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
		return true
	case <-time.After(timeout):
		_ = cmd.Process.Kill()
		<-exited
		return false
	}
}

// WithoutEnv returns environ without the variables whose names start
// with prefix.
func WithoutEnv(environ []string, prefix string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		if !strings.HasPrefix(kv, prefix) {
			out = append(out, kv)
		}
	}
	return out
}
