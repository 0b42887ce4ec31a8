package cgroup

import (
	"bufio"
	"crypto/rand"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// crashingGatewayEnv makes the test binary play a gateway that is
// SIGKILLed with a session running (see TestStaleGroupsKilled).
const crashingGatewayEnv = "BORIS_CGROUP_TEST_CRASHING_GATEWAY"

func TestMain(m *testing.M) {
	if root := os.Getenv(crashingGatewayEnv); root != "" {
		crashingGateway(root)
		return
	}
	os.Exit(m.Run())
}

// crashingGateway opens root, starts "sleep 300" in a session group,
// prints its pid and waits to be killed.
func crashingGateway(root string) {
	m, err := Open(Options{Root: root})
	if err == nil {
		var g *Group
		if g, err = m.New("left-behind"); err == nil {
			cmd := exec.Command("sleep", "300")
			cmd.SysProcAttr = &syscall.SysProcAttr{}
			g.ApplyTo(cmd.SysProcAttr)
			if err = cmd.Start(); err == nil {
				fmt.Println(cmd.Process.Pid)
				select {}
			}
		}
	}
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

// testRoot creates an empty cgroup under the v2 hierarchy this process is
// in, to serve as Options.Root, and removes it, killing whatever is in
// it, when the test ends. It skips the test where there is no writable
// cgroup v2 hierarchy with cgroup.kill.
func testRoot(t *testing.T) string {
	t.Helper()
	mnt := hierarchyMount(t)
	root := filepath.Join(mnt, "boris-test-"+strings.ToLower(rand.Text()[:12]))
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Skipf("needs a writable cgroup v2 hierarchy: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "cgroup.kill")); err != nil {
		_ = os.Remove(root)
		t.Skipf("needs cgroup.kill (Linux 5.14 or later): %v", err)
	}
	t.Cleanup(func() {
		if strings.HasPrefix(selfDir(t), root+"/") {
			t.Errorf("the test is still in %s: not removing it, which would kill the test", selfDir(t))
			return
		}
		if err := kill(root); err != nil {
			t.Errorf("remove the test cgroup: %v", err)
		}
	})
	return root
}

// selfDir returns the directory of the cgroup v2 this process is in.
func selfDir(t *testing.T) string {
	t.Helper()
	dir, err := rootDir("")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// moveSelf moves this process into the cgroup at dir, and back where it
// was when the test ends.
func moveSelf(t *testing.T, dir string) {
	t.Helper()
	back := selfDir(t)
	if err := writeFile(filepath.Join(dir, "cgroup.procs"), strconv.Itoa(os.Getpid())); err != nil {
		t.Fatalf("move the test into %s: %v", dir, err)
	}
	t.Cleanup(func() {
		if err := writeFile(filepath.Join(back, "cgroup.procs"), strconv.Itoa(os.Getpid())); err != nil {
			t.Errorf("move the test back into %s: %v", back, err)
		}
	})
}

// controllers lists the controllers the cgroup at dir offers.
func controllers(t *testing.T, dir string) []string {
	t.Helper()
	have, err := readFields(filepath.Join(dir, "cgroup.controllers"))
	if err != nil {
		t.Fatal(err)
	}
	return have
}

// hierarchyMount returns where the cgroup v2 hierarchy of this process is
// mounted.
func hierarchyMount(t *testing.T) string {
	t.Helper()
	procCgroup, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Skipf("needs cgroup v2: %v", err)
	}
	cg, err := ownCgroup(string(procCgroup))
	if err != nil {
		t.Skipf("needs cgroup v2: %v", err)
	}
	mountinfo, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range cgroup2Mounts(string(mountinfo)) {
		if _, ok := within(m.root, cg); ok {
			return m.point
		}
	}
	t.Skipf("needs cgroup v2: no cgroup2 mount in /proc/self/mountinfo shows cgroup %s", cg)
	return ""
}

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// open opens a Manager on root, closing it when the test ends.
func open(t *testing.T, opts Options) *Manager {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = testLogger(t)
	}
	m, err := Open(opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = m.Close() })
	return m
}

// startIn starts sh -c script straight into the cgroup of fd.
func startIn(t *testing.T, fd int, script string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %q in a cgroup: %v", script, err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}

// await polls cond until it holds, failing the test after 10 s.
func await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// cmdline returns the command line of pid with spaces between arguments.
func cmdline(pid int) string {
	data, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return strings.TrimSpace(strings.ReplaceAll(string(data), "\x00", " "))
}

// ppid returns the parent of pid, or -1 if it cannot be read.
func ppid(pid int) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	n, err := strconv.Atoi(fields[1])
	if err != nil {
		return -1
	}
	return n
}

// pidfds opens a pidfd for each of pids, closed when the test ends. A
// pidfd refers to one process, however soon its pid is reused, and polls
// readable once that process has exited.
func pidfds(t *testing.T, pids []int) []int {
	t.Helper()
	var fds []int
	for _, pid := range pids {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			t.Fatalf("pidfd_open %d (%s): %v", pid, cmdline(pid), err)
		}
		t.Cleanup(func() { _ = unix.Close(fd) })
		fds = append(fds, fd)
	}
	return fds
}

// awaitExited fails the test unless every process of pids (with their
// pidfds) exits within 5 s: dead, whoever reaps it, not merely
// re-parented. The kernel empties a cgroup a moment before it marks the
// processes exited, so the test waits rather than looks.
func awaitExited(t *testing.T, pids, fds []int) {
	t.Helper()
	polls := make([]unix.PollFd, len(fds))
	for i, fd := range fds {
		polls[i] = unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(polls) > 0 {
		if _, err := unix.Poll(polls, int(time.Until(deadline).Milliseconds())+1); err != nil && err != unix.EINTR {
			t.Fatalf("poll pidfds: %v", err)
		}
		left := polls[:0]
		for _, p := range polls {
			if p.Revents&unix.POLLIN == 0 {
				p.Revents = 0
				left = append(left, p)
			}
		}
		polls = left
		if len(polls) > 0 && time.Now().After(deadline) {
			var alive []int
			for _, p := range polls {
				alive = append(alive, pids[slices.Index(fds, int(p.Fd))])
			}
			t.Fatalf("processes %v still alive 5 s after Kill", alive)
		}
	}
}

// readLine reads the first line of what cmd prints.
func readLine(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = cmd.Wait()
		t.Fatalf("read the first line of %s: %v", cmd, err)
	}
	return strings.TrimSpace(line)
}
