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
//
// The pool adapts to how fast a principal's sessions arrive: one waiting
// core serves a principal whose sessions come slower than a core starts,
// but not one that opens sessions back to back. For each key the pool
// keeps as many cores waiting or starting as arrive while one starts (the
// recent arrival rate times the recent start time, plus one), bounded by
// WarmCores. Take counts hits and misses; HitRate reports them.

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
	starting map[string]int        // cores being started, by key
	inStart  int                   // cores being started, in all
	demand   map[string]*keyDemand // how fast each key's sessions arrive
	startDur time.Duration         // how long a core takes to start, smoothed
	hits     int64                 // Takes that found a core waiting
	misses   int64                 // Takes that found none
	closed   bool
	inflight sync.WaitGroup // starts under way
}

// keyDemand is how often a key's cores are taken: the smoothed time
// between two Takes, and the last one.
type keyDemand struct {
	gap  time.Duration
	last time.Time
}

// NewWarmPool returns a pool of at most max waiting cores (nil for none),
// started by start and stopped with grace.
func NewWarmPool(max int, grace time.Duration, start func(Spec) (*WarmCore, error)) *WarmPool {
	if max <= 0 {
		return nil
	}
	return &WarmPool{max: max, grace: grace, idle: warmIdle, start: start, starting: map[string]int{}, demand: map[string]*keyDemand{}}
}

// WarmKey identifies a launch: cores of equal keys are interchangeable.
// The owner is part of it: a core counts against its owner's quotas from
// its start.
func WarmKey(l Spec) string {
	return strings.Join(l.Args, "\x00") + "\x01" + strings.Join(l.Env, "\x00") + "\x01" + l.Owner
}

// Take removes and returns a live waiting core of key, or nil.
func (w *WarmPool) Take(key string) *WarmCore {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.arrived(key, time.Now())
	c := w.take(key)
	if c != nil {
		w.hits++
	} else {
		w.misses++
	}
	return c
}

// arrived notes a session of key arriving at now.
func (w *WarmPool) arrived(key string, now time.Time) {
	d := w.demand[key]
	if d == nil {
		w.demand[key] = &keyDemand{last: now}
		return
	}
	gap := now.Sub(d.last)
	if d.gap > 0 {
		gap = (d.gap + gap) / 2 // the latest gaps count most
	}
	d.gap, d.last = gap, now
}

// want is how many cores of key should be waiting or starting: those
// that arrive while one starts, and one more, within max.
func (w *WarmPool) want(key string) int {
	d := w.demand[key]
	if d == nil || d.gap <= 0 || w.startDur <= 0 {
		return 1
	}
	return min(int(w.startDur/d.gap)+1, w.max)
}

// take is Take once the pool is locked.
func (w *WarmPool) take(key string) *WarmCore {
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

// Refill starts cores of l in the background until as many of its key
// are waiting or being started as its sessions want (want), and no more
// than the pool's size are starting at once, making room by stopping the
// oldest waiting cores if the pool is full.
func (w *WarmPool) Refill(l Spec) {
	if w == nil {
		return
	}
	key := WarmKey(l)
	w.mu.Lock()
	defer w.mu.Unlock()
	have := w.starting[key]
	for _, c := range w.waiting {
		if c.Key == key {
			have++
		}
	}
	// At most max cores start at once, whatever the keys: the pool's
	// bound holds for the cores on their way into it too.
	for ; !w.closed && have < w.want(key) && w.inStart < w.max; have++ {
		w.starting[key]++
		w.inStart++
		w.inflight.Add(1)
		go w.startOne(l, key)
	}
}

// startOne starts a core of l and puts it in the pool.
func (w *WarmPool) startOne(l Spec, key string) {
	defer w.inflight.Done()
	began := time.Now()
	c, err := w.start(l)
	took := time.Since(began)
	w.mu.Lock()
	if w.starting[key]--; w.starting[key] == 0 {
		delete(w.starting, key)
	}
	w.inStart--
	switch {
	case err != nil:
	case w.startDur == 0:
		w.startDur = took
	default:
		w.startDur = (w.startDur + took) / 2 // the latest starts count most
	}
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

// HitRate reports how many Takes found a core waiting and how many found
// none.
func (w *WarmPool) HitRate() (hits, misses int64) {
	if w == nil {
		return 0, 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.hits, w.misses
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
