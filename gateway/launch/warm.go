package launch

import (
	"strings"
	"sync"
	"time"
)

// Starting a core is most of a session create: the boris process starts,
// opens its policy and sandbox, and only then answers initialize (about 5
// ms on an idle machine, more on a busy one). With the gateway's
// Options.WarmCores, a principal's next core is started as soon as one is
// taken, in the background, so the principal's next initialize finds it
// running.
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

// WarmCore is a started core no session has taken yet.
type WarmCore struct {
	Key   string // WarmKey of its launch
	ID    string // the session id it will have (it names the cgroup)
	Core  *Core
	timer *time.Timer // stops it after warmIdle
}

// WarmPool holds the waiting cores, the most recently started last.
type WarmPool struct {
	max   int
	grace time.Duration // for stopping a core
	idle  time.Duration // how long a core may wait
	start func(Spec) (*WarmCore, error)

	mu       sync.Mutex
	waiting  []*WarmCore
	starting map[string]bool // keys whose core is being started
	closed   bool
	inflight sync.WaitGroup // starts under way
}

// NewWarmPool returns a pool of at most max waiting cores (nil for none),
// started by start and stopped with grace.
func NewWarmPool(max int, grace time.Duration, start func(Spec) (*WarmCore, error)) *WarmPool {
	if max <= 0 {
		return nil
	}
	return &WarmPool{max: max, grace: grace, idle: warmIdle, start: start, starting: map[string]bool{}}
}

// WarmKey identifies a launch: cores of equal keys are interchangeable.
func WarmKey(l Spec) string {
	return strings.Join(l.Args, "\x00") + "\x01" + strings.Join(l.Env, "\x00")
}

// Take removes and returns a live waiting core of key, or nil.
func (w *WarmPool) Take(key string) *WarmCore {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, c := range w.waiting {
		if c.Key != key {
			continue
		}
		w.waiting = append(w.waiting[:i], w.waiting[i+1:]...)
		c.timer.Stop()
		select {
		case <-c.Core.Exited: // died while waiting
			go w.stop(c)
			return nil
		default:
			return c
		}
	}
	return nil
}

// Refill starts a core of l in the background, unless one of its key is
// waiting or being started, making room by stopping the oldest waiting
// core if the pool is full.
func (w *WarmPool) Refill(l Spec) {
	if w == nil {
		return
	}
	key := WarmKey(l)
	w.mu.Lock()
	if w.closed || w.starting[key] {
		w.mu.Unlock()
		return
	}
	for _, c := range w.waiting {
		if c.Key == key {
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
		var evicted *WarmCore
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
func (w *WarmPool) expire(c *WarmCore) {
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
func (w *WarmPool) stop(c *WarmCore) { c.Core.Stop(w.grace) }

// Close stops every waiting core and those being started, and returns
// once all have exited.
func (w *WarmPool) Close() {
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

// Count reports how many cores are waiting.
func (w *WarmPool) Count() int {
	if w == nil {
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.waiting)
}
