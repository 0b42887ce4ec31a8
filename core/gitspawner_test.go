package core

import (
	"errors"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fakeGit is a spawner whose git processes end when the test says.
type fakeGit struct {
	mu    sync.Mutex
	ends  []chan syscall.WaitStatus
	fails bool // Start fails
}

func (f *fakeGit) Start([]string, string, []string, [3]*os.File) (int, <-chan syscall.WaitStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fails {
		return 0, nil, errors.New("exec git: no such file")
	}
	c := make(chan syscall.WaitStatus, 1)
	f.ends = append(f.ends, c)
	return len(f.ends), c, nil
}

// endAll ends every git started so far.
func (f *fakeGit) endAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.ends {
		c <- 0
	}
	f.ends = nil
}

// spawnerLog counts an idleSpawner's starts and stops.
type spawnerLog struct {
	mu      sync.Mutex
	started []*fakeGit
	stopped chan *fakeGit
	fail    bool
}

func newSpawnerLog(fail bool) (*spawnerLog, *idleSpawner) {
	l := &spawnerLog{stopped: make(chan *fakeGit, 8), fail: fail}
	return l, &idleSpawner{
		idle: time.Millisecond,
		start: func(*os.File) (gitStarter, error) {
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.fail {
				return nil, errors.New("landlock: no")
			}
			g := &fakeGit{}
			l.started = append(l.started, g)
			return g, nil
		},
		stop: func(g gitStarter) { l.stopped <- g.(*fakeGit) },
	}
}

func (l *spawnerLog) starts() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.started)
}

// awaitStop waits for the next stop (a minute at most: a hang, not a speed).
func (l *spawnerLog) awaitStop(t *testing.T) *fakeGit {
	t.Helper()
	select {
	case g := <-l.stopped:
		return g
	case <-time.After(time.Minute):
		t.Fatal("the idle spawner was never stopped")
		return nil
	}
}

func runGit(t *testing.T, s *idleSpawner) <-chan syscall.WaitStatus {
	t.Helper()
	_, ws, err := s.Start(nil, []string{"git", "status"}, "/", nil, [3]*os.File{})
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// TestIdleSpawnerStopsWhenIdleAndComesBack: the checkpoints' git spawner
// is one process for overlapping gits, never stopped while one runs,
// stopped once none has run for its idle time, and started again by the
// next git.
func TestIdleSpawnerStopsWhenIdleAndComesBack(t *testing.T) {
	l, s := newSpawnerLog(false)
	a, b := runGit(t, s), runGit(t, s)
	if n := l.starts(); n != 1 {
		t.Fatalf("%d spawners started for two overlapping gits, want 1", n)
	}
	first := l.started[0]
	time.Sleep(20 * s.idle) // idle many times over, but busy
	select {
	case <-l.stopped:
		t.Fatal("the spawner was stopped while its git ran")
	default:
	}
	first.endAll()
	<-a
	<-b
	if got := l.awaitStop(t); got != first {
		t.Fatal("stopped a spawner other than the idle one")
	}
	c := runGit(t, s)
	if n := l.starts(); n != 2 {
		t.Fatalf("%d spawners started after the idle one stopped, want 2", n)
	}
	l.started[1].endAll()
	<-c
	l.awaitStop(t)
	if s.Running() {
		t.Error("Running after the spawner stopped")
	}
}

// TestIdleSpawnerClose: Close stops the running spawner and no git
// starts from a new one after it (the store falls back to the helper).
func TestIdleSpawnerClose(t *testing.T) {
	l, s := newSpawnerLog(false)
	s.idle = time.Hour
	ws := runGit(t, s)
	l.started[0].endAll()
	<-ws
	s.Close()
	l.awaitStop(t)
	if _, _, err := s.Start(nil, []string{"git"}, "/", nil, [3]*os.File{}); !errors.Is(err, errNoSpawner) {
		t.Errorf("Start after Close: %v, want errNoSpawner", err)
	}
	if n := l.starts(); n != 1 {
		t.Errorf("%d spawners started, want 1", n)
	}
	var none *idleSpawner
	none.Close() // checkpoints without a sandbox have none
}

// TestIdleSpawnerFailures: a spawner that cannot start is not tried
// again (git starts through the helper: errNoSpawner); a git that cannot
// start from a running spawner fails alone and leaves it to idle out.
func TestIdleSpawnerFailures(t *testing.T) {
	l, s := newSpawnerLog(true)
	for range 2 {
		if _, _, err := s.Start(nil, []string{"git"}, "/", nil, [3]*os.File{}); !errors.Is(err, errNoSpawner) {
			t.Fatalf("Start with no spawner: %v, want errNoSpawner", err)
		}
	}
	l.mu.Lock()
	l.fail = false
	l.mu.Unlock()
	if _, _, err := s.Start(nil, []string{"git"}, "/", nil, [3]*os.File{}); !errors.Is(err, errNoSpawner) {
		t.Fatalf("Start after a failed start: %v, want errNoSpawner (not tried again)", err)
	}

	l, s = newSpawnerLog(false)
	runGit(t, s)
	g := l.started[0]
	g.mu.Lock()
	g.fails = true
	g.mu.Unlock()
	if _, _, err := s.Start(nil, []string{"git"}, "/", nil, [3]*os.File{}); err == nil || errors.Is(err, errNoSpawner) {
		t.Fatalf("Start of a git that cannot start: %v, want its own error", err)
	}
	g.endAll()
	l.awaitStop(t)
}
