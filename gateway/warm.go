package gateway

import (
	"strings"
	"sync"
	"time"
)

// Starting a core is most of a session create: the boris process starts,
// opens its policy and sandbox, and only then answers initialize (about 5
// ms on an idle machine, more on a busy one). With Options.WarmCores, a
// principal's next core is started as soon as one is taken, in the
// background, so the principal's next initialize finds it running.
//
// A waiting core has been sent nothing: the session that takes it sends
// it its first message, the client's initialize, so it is as fresh as a
// core started for that session. It was started with exactly the
// arguments, environment and cgroup settings the session would start one
// with (the pool is keyed by them), so no principal ever gets a core
// started for another. At most WarmCores wait at once, the least recently
// wanted ones giving way; one waiting longer than warmIdle is stopped, as
// is every waiting core when the gateway closes or drains.

// warmIdle is how long a core waits to be taken before it is stopped.
const warmIdle = 5 * time.Minute

// warmCore is a started core no session has taken yet.
type warmCore struct {
	key   string // warmKey of its launch
	id    string // the session id it will have (it names the cgroup)
	core  *coreProc
	timer *time.Timer // stops it after warmIdle
}

// warmPool holds the waiting cores, the most recently started last.
type warmPool struct {
	max   int
	grace time.Duration // for stopping a core
	idle  time.Duration // how long a core may wait
	start func(launch) (*warmCore, error)

	mu       sync.Mutex
	waiting  []*warmCore
	starting map[string]bool // keys whose core is being started
	closed   bool
	inflight sync.WaitGroup // starts under way
}

// newWarmPool returns a pool of at most max waiting cores (nil for none),
// started by start and stopped with grace.
func newWarmPool(max int, grace time.Duration, start func(launch) (*warmCore, error)) *warmPool {
	if max <= 0 {
		return nil
	}
	return &warmPool{max: max, grace: grace, idle: warmIdle, start: start, starting: map[string]bool{}}
}

// warmKey identifies a launch: cores of equal keys are interchangeable.
func warmKey(l launch) string {
	return strings.Join(l.args, "\x00") + "\x01" + strings.Join(l.env, "\x00")
}

// take removes and returns a live waiting core of key, or nil.
func (w *warmPool) take(key string) *warmCore {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, c := range w.waiting {
		if c.key != key {
			continue
		}
		w.waiting = append(w.waiting[:i], w.waiting[i+1:]...)
		c.timer.Stop()
		select {
		case <-c.core.exited: // died while waiting
			go w.stop(c)
			return nil
		default:
			return c
		}
	}
	return nil
}

// refill starts a core of l in the background, unless one of its key is
// waiting or being started, making room by stopping the oldest waiting
// core if the pool is full.
func (w *warmPool) refill(l launch) {
	if w == nil {
		return
	}
	key := warmKey(l)
	w.mu.Lock()
	if w.closed || w.starting[key] {
		w.mu.Unlock()
		return
	}
	for _, c := range w.waiting {
		if c.key == key {
			w.mu.Unlock()
			return
		}
	}
	w.starting[key] = true
	w.inflight.Add(1)
	w.mu.Unlock()
	go func() {
		defer w.inflight.Done()
		c, err := w.start(l)
		w.mu.Lock()
		delete(w.starting, key)
		if err != nil || w.closed {
			w.mu.Unlock()
			if c != nil {
				w.stop(c)
			}
			return
		}
		var evicted *warmCore
		if len(w.waiting) >= w.max {
			evicted, w.waiting = w.waiting[0], w.waiting[1:]
			evicted.timer.Stop()
		}
		c.timer = time.AfterFunc(w.idle, func() { w.expire(c) })
		w.waiting = append(w.waiting, c)
		w.mu.Unlock()
		if evicted != nil {
			w.stop(evicted)
		}
	}()
}

// expire stops c if it is still waiting.
func (w *warmPool) expire(c *warmCore) {
	w.mu.Lock()
	for i, x := range w.waiting {
		if x == c {
			w.waiting = append(w.waiting[:i], w.waiting[i+1:]...)
			w.mu.Unlock()
			w.stop(c)
			return
		}
	}
	w.mu.Unlock()
}

// stop ends a core no session took.
func (w *warmPool) stop(c *warmCore) { c.core.stop(w.grace) }

// close stops every waiting core and those being started, and returns
// once all have exited.
func (w *warmPool) close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.closed = true
	all := w.waiting
	w.waiting = nil
	w.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range all {
		c.timer.Stop()
		wg.Go(func() { w.stop(c) })
	}
	wg.Wait()
	w.inflight.Wait()
}

// count reports how many cores are waiting.
func (w *warmPool) count() int {
	if w == nil {
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.waiting)
}
