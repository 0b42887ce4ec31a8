package core

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// sleeper starts real sleep processes, so their priority can be read.
type sleeper struct{ cmds []*exec.Cmd }

func (s *sleeper) Start([]string, string, []string, [3]*os.File) (int, <-chan syscall.WaitStatus, error) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		return 0, nil, err
	}
	s.cmds = append(s.cmds, cmd)
	return cmd.Process.Pid, make(chan syscall.WaitStatus), nil
}

// processNice reads the nice value of pid from /proc/pid/stat.
func processNice(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	// Fields after the command's closing parenthesis: state is field 3,
	// nice field 19.
	_, rest, _ := strings.Cut(string(b), ") ")
	n, err := strconv.Atoi(strings.Fields(rest)[19-3])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestGitSpawnerPriority: a spawner first started by the niced start
// runs at the session's priority (so later recordings are not slowed),
// while each git run keeps its caller's priority.
func TestGitSpawnerPriority(t *testing.T) {
	base := threadNice()
	if base+10 > 19 {
		t.Skipf("this process runs at nice %d: no room to lower a thread's priority by 10", base)
	}
	sp := &sleeper{}
	startedAt := -1
	s := &idleSpawner{idle: time.Hour, start: func(*os.File) (gitStarter, error) {
		startedAt = threadNice()
		return sp, nil
	}}
	defer func() {
		for _, c := range sp.cmds {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}()
	niced := make(chan int)
	go func() { // as checkpoint.atLowPriority: a thread of its own, niced, never given back
		runtime.LockOSThread()
		if err := unix.Setpriority(unix.PRIO_PROCESS, 0, base+10); err != nil {
			t.Errorf("setpriority: %v", err)
			close(niced)
			return
		}
		pid, _, err := s.Start(nil, []string{"git"}, "", nil, [3]*os.File{})
		if err != nil {
			t.Errorf("start from the niced thread: %v", err)
		}
		niced <- pid
	}()
	pid := <-niced
	if t.Failed() {
		return
	}
	if startedAt != base {
		t.Errorf("spawner started at nice %d, want the session's %d", startedAt, base)
	}
	if got := processNice(t, pid); got != base+10 {
		t.Errorf("git run by the niced start: nice %d, want %d", got, base+10)
	}
	pid, _, err := s.Start(nil, []string{"git"}, "", nil, [3]*os.File{})
	if err != nil {
		t.Fatal(err)
	}
	if got := processNice(t, pid); got != base {
		t.Errorf("git run by a later recording: nice %d, want %d", got, base)
	}
}
