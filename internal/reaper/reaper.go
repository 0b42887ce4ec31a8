// Package reaper makes a process the child subreaper of everything it
// starts (Linux PR_SET_CHILD_SUBREAPER), so that nothing it starts can
// escape it: a command that double-forks, or calls setsid and lets its
// parent exit, is re-parented to this process instead of to init, and is
// still there to be killed when this process ends.
//
// A subreaper must also reap those orphans, without stealing the exit
// status of the children its own code waits for (os/exec). A Reaper keeps
// the pids it started itself ("own" children) and only ever waits for the
// others; starts and scans are serialised, so a child that exits at once
// cannot be mistaken for an orphan.
package reaper

import (
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// Options configure New.
type Options struct {
	// KillOrphans, if set, kills every orphan as soon as it is re-parented
	// (the gateway: whatever outlives a core must die); otherwise orphans
	// run on and are only reaped when they exit (the core: a background
	// task's server may outlive the shell that started it), until KillAll.
	KillOrphans bool
	Logger      *slog.Logger // nil means no logs
}

// Reaper is this process's role as subreaper. Start children through it.
type Reaper struct {
	opts Options
	log  *slog.Logger

	startMu sync.RWMutex // Start holds it shared, scans exclusively
	mu      sync.Mutex
	own     map[int]struct{}
	stop    chan struct{}
	once    sync.Once
}

// New makes the calling process a child subreaper and starts reaping
// orphans as SIGCHLD reports them. It fails where the kernel has no
// subreapers (not Linux).
func New(opts Options) (*Reaper, error) {
	if err := setSubreaper(); err != nil {
		return nil, err
	}
	r := &Reaper{opts: opts, log: opts.Logger, own: map[int]struct{}{}, stop: make(chan struct{})}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	sig := make(chan os.Signal, 1)
	go func() {
		// SIGCHLD is caught in the background: the runtime's first
		// registration of a signal waits for the thread that keeps the
		// signal mask, a fraction of a millisecond of a start-up. A sweep
		// once it is caught reaps what exited before.
		signal.Notify(sig, syscall.SIGCHLD)
		select {
		case <-r.stop:
		default:
			r.sweep(r.opts.KillOrphans)
		}
		r.loop(sig)
	}()
	return r, nil
}

// Start starts cmd as an own child: its exit status stays for cmd.Wait.
// Call Done with its pid once Wait has returned.
func (r *Reaper) Start(cmd *exec.Cmd) error {
	r.startMu.RLock()
	defer r.startMu.RUnlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	r.mu.Lock()
	r.own[cmd.Process.Pid] = struct{}{}
	r.mu.Unlock()
	return nil
}

// Done forgets an own child that has been waited for.
func (r *Reaper) Done(pid int) {
	r.mu.Lock()
	delete(r.own, pid)
	r.mu.Unlock()
}

// Close stops reaping on SIGCHLD. KillAll still works.
func (r *Reaper) Close() {
	r.once.Do(func() { close(r.stop) })
}

func (r *Reaper) loop(sig chan os.Signal) {
	defer signal.Stop(sig)
	for {
		select {
		case <-r.stop:
			return
		case <-sig:
			r.sweep(r.opts.KillOrphans)
		}
	}
}

// sweep reaps every orphan that has exited and, with kill, SIGKILLs the
// ones still running. It reports how many orphans were alive.
func (r *Reaper) sweep(kill bool) (alive int) {
	r.startMu.Lock()
	defer r.startMu.Unlock()
	// Own children are not read at all: a gateway has hundreds, and sweeps
	// at every one's exit.
	for _, pid := range childPids() {
		r.mu.Lock()
		_, own := r.own[pid]
		r.mu.Unlock()
		if own {
			continue
		}
		c, ok := readChild(pid)
		switch {
		case !ok:
		case c.zombie:
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(c.pid, &ws, syscall.WNOHANG, nil)
		default:
			alive++
			if kill {
				r.log.Debug("killing an orphan", "pid", c.pid)
				_ = syscall.Kill(c.pid, syscall.SIGKILL)
			}
		}
	}
	return alive
}

// KillAll SIGKILLs every descendant of this process, own children
// included, and waits until none is left alive or timeout passes. Their
// own descendants are re-parented here as they die, so it repeats until
// the tree is empty. Own children are left for their Wait to reap.
func (r *Reaper) KillAll(timeout time.Duration) error {
	start := time.Now()
	deadline := start.Add(timeout)
	for {
		for _, c := range children() {
			if !c.zombie {
				_ = syscall.Kill(c.pid, syscall.SIGKILL)
			}
		}
		if r.sweep(true) == 0 && !anyAlive() {
			// The children files can miss a child forked or reparented
			// while they are read. The kernel's word that no child is
			// left at all, not even one waiting to be waited for, is
			// exact; while own children wait for their callers' Wait,
			// the last word is a scan of every process's parent, which
			// reads every process's stat on the host.
			if noChildren() {
				return nil
			}
			if time.Since(start) > scanGrace && !anyAliveScanned() {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return errors.New("reaper: processes still alive after SIGKILL")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// scanGrace is how long KillAll leaves own children, dead, to their
// callers' Wait before it scans every process on the host instead.
const scanGrace = 20 * time.Millisecond

// anyAliveScanned is anyAlive from a scan of /proc, which sees every
// child, however it became one.
func anyAliveScanned() bool {
	for _, pid := range scanChildren() {
		if c, ok := readChild(pid); ok && !c.zombie {
			return true
		}
	}
	return false
}

func anyAlive() bool {
	for _, c := range children() {
		if !c.zombie {
			return true
		}
	}
	return false
}
