package core

import (
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/mjkoo/boris/internal/nice"
)

// gitSpawnerIdle is how long the checkpoints' git spawner may sit unused
// before it exits. It is a Go process of its own (about 1.6 MB of
// memory): a session that records nothing for a while, as most open
// sessions of a gateway do, holds none, and its next recording starts one
// again (tens of milliseconds of CPU, in the recorder's goroutine, after
// the call that made the change has answered).
const gitSpawnerIdle = 10 * time.Second

// idleSpawner starts the spawner the checkpoints' git runs from when git
// is first run, and stops it once no git has run from it for idle. A
// spawner that fails to start is not tried again: git then starts
// through the sandbox helper (errNoSpawner), as it did before spawners.
type idleSpawner struct {
	start func(shadow *os.File) (gitStarter, error)
	stop  func(gitStarter) // ends it and waits for it
	idle  time.Duration

	mu     sync.Mutex
	sp     gitStarter // nil while none runs
	failed bool       // a start failed: never tried again
	closed bool
	active int         // git processes running from sp
	timer  *time.Timer // stops sp once idle; nil or stopped while active
}

// gitStarter is a running spawner as idleSpawner uses it
// (*sandbox.Spawner).
type gitStarter interface {
	Start(argv []string, dir string, env []string, files [3]*os.File) (int, <-chan syscall.WaitStatus, error)
}

// Start starts argv from the spawner, starting the spawner first if none
// runs (shadow is the shadow repository's descriptor it is given). The
// returned channel receives git's wait status.
//
// git runs at the caller's priority: the niced start's git runs niced,
// every later recording's at the session's own priority. The spawner
// itself always runs at the session's (see acquire), so a spawner
// started by the start does not slow the recordings after it.
func (s *idleSpawner) Start(shadow *os.File, argv []string, dir string, env []string, files [3]*os.File) (int, <-chan syscall.WaitStatus, error) {
	prio := nice.Thread()
	sp, err := s.acquire(shadow)
	if err != nil {
		return 0, nil, err
	}
	pid, ws, err := sp.Start(argv, dir, env, files)
	if err != nil {
		s.release()
		return 0, nil, err
	}
	if prio > 0 {
		nice.Set(pid, prio)
	}
	out := make(chan syscall.WaitStatus, 1)
	go func() {
		out <- <-ws
		s.release()
	}()
	return pid, out, nil
}

// acquire returns the running spawner, started if need be, counted as in
// use until release.
func (s *idleSpawner) acquire(shadow *os.File) (gitStarter, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.failed {
		return nil, errNoSpawner
	}
	if s.sp == nil {
		// Started from a goroutine of its own, never from the caller's
		// thread: a niced thread (the checkpoints' start) would hand its
		// priority to the spawner and so to every git run after it.
		var (
			sp   gitStarter
			err  error
			done = make(chan struct{})
		)
		go func() {
			defer close(done)
			sp, err = s.start(shadow)
		}()
		<-done
		if err != nil {
			s.failed = true
			return nil, errNoSpawner
		}
		s.sp = sp
	}
	if s.timer != nil {
		s.timer.Stop()
	}
	s.active++
	return s.sp, nil
}

// release ends one use of the spawner; the last one arms the idle timer.
func (s *idleSpawner) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active--
	if s.active > 0 || s.sp == nil || s.closed {
		return
	}
	if s.timer == nil {
		s.timer = time.AfterFunc(s.idle, s.expire)
	} else {
		s.timer.Reset(s.idle)
	}
}

// expire stops the spawner if it is still idle.
func (s *idleSpawner) expire() {
	s.mu.Lock()
	sp := s.sp
	if s.active > 0 || sp == nil || s.closed {
		s.mu.Unlock()
		return
	}
	s.sp = nil
	s.mu.Unlock()
	s.stop(sp)
}

// Close stops the spawner and starts no other. The checkpoints call it
// once no recording is under way.
func (s *idleSpawner) Close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	sp := s.sp
	s.sp, s.closed = nil, true
	if s.timer != nil {
		s.timer.Stop()
	}
	s.mu.Unlock()
	if sp != nil {
		s.stop(sp)
	}
}

// Running reports whether a spawner is running now.
func (s *idleSpawner) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sp != nil
}
