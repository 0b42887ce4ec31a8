package core

import (
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/mjkoo/boris/internal/nice"
	"github.com/mjkoo/boris/internal/procstat"
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

// processNice reads the nice value of pid.
func processNice(t *testing.T, pid int) int {
	t.Helper()
	st, err := procstat.Read(pid)
	if err != nil {
		t.Fatal(err)
	}
	return st.Nice
}

// TestGitSpawnerPriority: a spawner first started by the niced start
// runs at the session's priority (so later recordings are not slowed),
// while each git run keeps its caller's priority.
func TestGitSpawnerPriority(t *testing.T) {
	base := nice.Thread()
	if base+10 > 19 {
		t.Skipf("this process runs at nice %d: no room to lower a thread's priority by 10", base)
	}
	sp := &sleeper{}
	startedAt := -1
	s := &idleSpawner{idle: time.Hour, start: func(*os.File) (gitStarter, error) {
		startedAt = nice.Thread()
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
		if nice.LowerThread(10); nice.Thread() != base+10 {
			t.Errorf("the thread is at nice %d after lowering it by 10, want %d", nice.Thread(), base+10)
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
