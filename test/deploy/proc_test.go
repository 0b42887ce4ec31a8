package deploy

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer collects a process's output for assertions and failure logs.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// proc is a server process the test started, in its own process group.
type proc struct {
	name   string
	cmd    *exec.Cmd
	output *syncBuffer
	exited chan struct{} // closed once reaped
	err    error         // Wait's result, valid after exited
	once   sync.Once     // stop's work runs once
}

// startProc starts cmd in a new process group (so stopping it reaches its
// workers too) with a parent-death signal where the OS has one, and stops
// it when the test ends; its output is logged if the test failed.
func startProc(t *testing.T, name string, cmd *exec.Cmd) *proc {
	t.Helper()
	p := &proc{name: name, cmd: cmd, output: &syncBuffer{}, exited: make(chan struct{})}
	if cmd.Stdout == nil {
		cmd.Stdout = p.output
	}
	if cmd.Stderr == nil {
		cmd.Stderr = p.output
	}
	cmd.SysProcAttr = procAttr()
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.stop(t)
		if t.Failed() {
			t.Logf("%s output:\n%s", name, p.output.String())
		}
	})
	return p
}

// stop sends SIGTERM to the process group and waits; a group still there
// after 15 s is killed and the test fails: a server that does not stop on
// SIGTERM breaks systemctl stop too.
func (p *proc) stop(t *testing.T) {
	t.Helper()
	p.once.Do(func() { p.terminate(t) })
}

func (p *proc) terminate(t *testing.T) {
	t.Helper()
	pgid := p.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(15 * time.Second):
		t.Errorf("%s did not exit within 15 s of SIGTERM; killing it", p.name)
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.exited
	}
	// Whatever the main process left behind in its group (workers) must be
	// gone too.
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(-pgid, 0) == nil {
		if time.Now().After(deadline) {
			t.Errorf("%s left processes in its group %d after exiting; killing them", p.name, pgid)
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// running fails the test if the process has already exited.
func (p *proc) running(t *testing.T) {
	t.Helper()
	select {
	case <-p.exited:
		t.Fatalf("%s exited: %v\n%s", p.name, p.err, p.output.String())
	default:
	}
}

// freePort returns a loopback TCP port that was free a moment ago. Only for
// programs that cannot report the port they bound themselves.
func freePort(t *testing.T) int {
	t.Helper()
	// Below the kernel's ephemeral range: the proxy binds the port only
	// later, and a process binding port 0 meanwhile (a gateway of the same
	// test) is never handed it. Free for UDP too (Caddy's HTTP/3).
	const lowest = 10000
	first := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		_, _ = fmt.Sscan(string(b), &first)
	}
	for range 200 {
		if first <= lowest+1000 {
			break
		}
		port := lowest + rand.IntN(first-lowest)
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		tl, err := net.Listen("tcp", addr)
		if err != nil {
			continue
		}
		ul, err := net.ListenPacket("udp", addr)
		tl.Close()
		if err != nil {
			continue
		}
		ul.Close()
		return port
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// waitFor polls cond every 50 ms until it holds or timeout passes.
func waitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return true
}

// leftoverCores lists processes still running a binary of binDir: every
// core must end with its session or its gateway. Processes that cannot be
// inspected (other users') are not ours anyway.
func leftoverCores() []string {
	entries, _ := os.ReadDir("/proc")
	var left []string
	for _, e := range entries {
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err == nil && strings.HasPrefix(exe, binDir+string(os.PathSeparator)) {
			left = append(left, fmt.Sprintf("pid %s: %s", e.Name(), exe))
		}
	}
	return left
}

// ensureInstalled returns the path of a program, installing its Debian
// package with apt-get first when it is missing ("apt-get update" and a
// second try if the first install fails, as on a machine with stale lists).
func ensureInstalled(t *testing.T, pkg, program string) string {
	t.Helper()
	if p := lookProgram(program); p != "" {
		return p
	}
	apt, err := exec.LookPath("apt-get")
	if err != nil {
		t.Fatalf("%s is not installed and apt-get is not available to install it: install the %q package (Debian name) to run this test", program, pkg)
	}
	install := func() error {
		cmd := exec.Command(apt, "install", "-y", "--no-install-recommends", pkg)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("apt-get install %s: %w\n%s", pkg, err, tail(out))
		}
		return nil
	}
	t.Logf("installing %s with apt-get", pkg)
	if err := install(); err != nil {
		t.Logf("%v; running apt-get update and retrying", err)
		if out, err := exec.Command(apt, "update").CombinedOutput(); err != nil {
			t.Fatalf("apt-get update: %v\n%s", err, tail(out))
		}
		if err := install(); err != nil {
			t.Fatal(err)
		}
	}
	p := lookProgram(program)
	if p == "" {
		t.Fatalf("apt-get installed %s but %s is still not found", pkg, program)
	}
	return p
}

// lookProgram finds a program on PATH or in the sbin directories, which a
// non-login PATH may lack.
func lookProgram(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range []string{"/usr/sbin", "/sbin", "/usr/bin"} {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// tail is the end of a long command output, enough to see why it failed.
func tail(out []byte) string {
	const max = 4000
	if len(out) > max {
		return "..." + string(out[len(out)-max:])
	}
	return string(out)
}
