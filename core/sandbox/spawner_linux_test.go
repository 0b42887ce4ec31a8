package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestSpawner: commands started by the session's spawner run confined
// and without capabilities exactly as through the helper, report their
// own exit status, and die with the spawner when the core closes it.
func TestSpawner(t *testing.T) {
	if abiVersion(nil) < 1 {
		t.Skip("needs Landlock (Linux 5.13+ with landlock enabled); this kernel has none")
	}
	root := t.TempDir()
	allowed, other := filepath.Join(root, "allowed"), filepath.Join(root, "other")
	for _, d := range []string{allowed, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(Options{Allowed: []string{allowed}})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := s.StartSpawner(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	run := func(script string) (syscall.WaitStatus, string) {
		t.Helper()
		out, err := os.CreateTemp(root, "out")
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		null, _ := os.Open(os.DevNull)
		defer null.Close()
		pid, wait, err := sp.Start([]string{"/bin/sh", "-c", script}, allowed, os.Environ(), [3]*os.File{null, out, out})
		if err != nil {
			t.Fatal(err)
		}
		if pgid, err := syscall.Getpgid(pid); err == nil && pgid != pid {
			t.Errorf("%s: got process group %d, want its own (%d)", script, pgid, pid)
		}
		ws := <-wait
		data, _ := os.ReadFile(out.Name())
		return ws, string(data)
	}
	tests := []struct {
		script string
		code   int
	}{
		{"pwd | grep -qx " + allowed + " && echo x > f && cat f", 0},
		{"exit 7", 7},
		{"cat " + other + "/nothing-here 2>/dev/null; ls " + other, 2},
		{"echo x > " + other + "/new", 2},
		{"grep -q '^CapEff:[[:space:]]*0*$' /proc/self/status", 0},
		{"cat /proc/" + strconv.Itoa(os.Getpid()) + "/environ", 1},
		// The spawner's channel to the core (a socket) is not inherited.
		{"! ls -l /proc/self/fd | grep -q socket:", 0},
	}
	for _, tt := range tests {
		ws, out := run(tt.script)
		if !ws.Exited() || ws.ExitStatus() != tt.code {
			t.Errorf("%s: got status %v (output %q), want exit %d", tt.script, ws, out, tt.code)
		}
	}
	// A command still running when the spawner is closed is killed.
	null, _ := os.Open(os.DevNull)
	defer null.Close()
	pid, wait, err := sp.Start([]string{"/bin/sleep", "300"}, allowed, nil, [3]*os.File{null, null, null})
	if err != nil {
		t.Fatal(err)
	}
	sp.Close()
	if ws := <-wait; !ws.Signaled() {
		t.Errorf("after Close: got %v, want the command killed", ws)
	}
	_ = sp.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("command %d alive 5 s after the spawner closed", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || len(s) < i+3 || s[i+2] != 'Z'
}

// TestSpawnerKillsEscapees: a command that left its process group and
// session (setsid, double fork) and whose parent exited is still killed
// when the spawner's connection closes, as when its core was killed: it is
// in the spawner's Landlock domain, which signal scoping (ABI 6) confines.
func TestSpawnerKillsEscapees(t *testing.T) {
	if abiVersion(nil) < 6 {
		t.Skipf("needs Landlock ABI 6 (signal scoping); this kernel has ABI %d", abiVersion(nil))
	}
	dir := t.TempDir()
	s, err := New(Options{Allowed: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := s.StartSpawner(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	null, _ := os.Open(os.DevNull)
	defer null.Close()
	pidFile := filepath.Join(dir, "pid")
	// The command exits at once; its grandchild runs on in a session of
	// its own, re-parented away from the spawner.
	script := "(setsid sh -c 'echo $$ > " + pidFile + ".tmp && mv " + pidFile + ".tmp " + pidFile + " && exec sleep 302' &) ; exit 0"
	_, wait, err := sp.Start([]string{"/bin/sh", "-c", script}, dir, os.Environ(), [3]*os.File{null, null, null})
	if err != nil {
		t.Fatal(err)
	}
	<-wait
	var escapee int
	deadline := time.Now().Add(5 * time.Second)
	for escapee == 0 {
		if b, err := os.ReadFile(pidFile); err == nil {
			escapee, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		} else if time.Now().After(deadline) {
			t.Fatal("the escaping command never started")
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Cleanup(func() { _ = syscall.Kill(escapee, syscall.SIGKILL) })
	if sid, _ := unix.Getsid(escapee); sid != escapee || !alive(escapee) {
		t.Fatalf("escapee %d: session %d, alive %v; want a live session leader", escapee, sid, alive(escapee))
	}
	sp.Close()
	_ = sp.Wait()
	for deadline = time.Now().Add(5 * time.Second); alive(escapee); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("escapee %d alive 5 s after the spawner's connection closed", escapee)
		}
	}
}
