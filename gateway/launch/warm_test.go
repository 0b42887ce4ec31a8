package launch

import (
	"errors"
	"log/slog"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mjkoo/boris/internal/testbin"
)

// TestWarmPool: a core that waits too long is stopped, one that died
// while waiting is not handed out, a launch already waiting is not started
// twice, and close stops what waits.
func TestWarmPool(t *testing.T) {
	start, started := sleepers()
	a, b := Spec{Args: []string{"a"}}, Spec{Args: []string{"b"}}
	oldest := func(w *WarmPool) *Core {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.waiting[0].Core
	}

	w := NewWarmPool(2, time.Second, start)
	w.Refill(a)
	testbin.WaitFor(t, "a waiting", func() bool { return w.Count() == 1 })
	w.Refill(a) // already waiting: nothing starts
	w.Refill(b)
	testbin.WaitFor(t, "b waiting", func() bool { return w.Count() == 2 })
	if n := started.Load(); n != 2 {
		t.Errorf("started %d cores for two launches, want 2", n)
	}
	if c := w.Take(WarmKey(Spec{Args: []string{"c"}})); c != nil {
		t.Fatalf("took a core for a launch never started: %s", c.ID)
	}
	cb := w.Take(WarmKey(b))
	if cb == nil {
		t.Fatal("no core for b")
	}
	defer cb.Core.Stop(time.Second)

	// Died while waiting: not handed out.
	ca := oldest(w)
	_ = ca.Cmd.Process.Kill()
	<-ca.Exited
	if c := w.Take(WarmKey(a)); c != nil {
		t.Fatalf("took a dead core %s", c.ID)
	}

	// Waited too long: stopped.
	w2 := NewWarmPool(1, time.Second, start)
	w2.idle = 100 * time.Millisecond
	w2.Refill(a)
	testbin.WaitFor(t, "a waiting", func() bool { return w2.Count() == 1 })
	c := oldest(w2)
	testbin.WaitFor(t, "the idle core stopped", func() bool { return coreExited(c) && w2.Count() == 0 })

	// close stops what waits, and nothing starts after it.
	w3 := NewWarmPool(1, time.Second, start)
	w3.Refill(b)
	testbin.WaitFor(t, "b waiting", func() bool { return w3.Count() == 1 })
	c = oldest(w3)
	w3.Close()
	if !coreExited(c) {
		t.Error("a waiting core still running after close")
	}
	w3.Refill(a)
	w3.mu.Lock()
	starting := len(w3.starting)
	w3.mu.Unlock()
	if w3.Count() != 0 || starting != 0 {
		t.Error("a core started after close")
	}
}

// sleepers returns a WarmPool's start function whose cores are sleep
// processes, and the count of those it started.
func sleepers() (func(Spec) (*WarmCore, error), *atomic.Int32) {
	sp := NewSpawner(nil)
	log := slog.New(slog.DiscardHandler)
	started := new(atomic.Int32)
	return func(l Spec) (*WarmCore, error) {
		n := started.Add(1)
		core, err := Spawn(sp, "/bin/sleep", Spec{Args: []string{"300"}}, log)
		if err != nil {
			return nil, err
		}
		return &WarmCore{Key: WarmKey(l), ID: "w" + strconv.Itoa(int(n)), Core: core}, nil
	}, started
}

// coreExited reports whether a core has been reaped.
func coreExited(p *Core) bool {
	select {
	case <-p.Exited:
		return true
	default:
		return false
	}
}

// TestWarmPoolKeepsUpWithArrivals: sessions of one principal arriving
// faster than a core starts make the pool keep more than one core of
// theirs waiting or starting (as many as arrive while one starts, and one
// more, within the pool's size), so that back-to-back creates find cores
// waiting; a principal whose sessions come slowly keeps one. Hits and
// misses are counted. The arrivals' times are given, not slept.
func TestWarmPoolKeepsUpWithArrivals(t *testing.T) {
	start, _ := sleepers()
	fast, slow := Spec{Args: []string{"fast"}}, Spec{Args: []string{"slow"}}
	w := NewWarmPool(4, time.Second, start)
	defer w.Close()
	t0 := time.Now()
	w.mu.Lock()
	w.startDur = 50 * time.Millisecond
	for i := range 12 { // a session every 10 ms: five arrive while a core starts
		w.arrived(WarmKey(fast), t0.Add(time.Duration(i)*10*time.Millisecond))
	}
	for i := range 3 { // one every 200 ms
		w.arrived(WarmKey(slow), t0.Add(time.Duration(i)*200*time.Millisecond))
	}
	wantFast, wantSlow := w.want(WarmKey(fast)), w.want(WarmKey(slow))
	w.mu.Unlock()
	if wantFast != 4 {
		t.Errorf("sessions every 10 ms, cores starting in 50 ms, a pool of 4: the pool wants %d of theirs, want 4 (6, bounded by the pool)", wantFast)
	}
	if wantSlow != 1 {
		t.Errorf("sessions every 200 ms: the pool wants %d of theirs, want 1", wantSlow)
	}

	w.Refill(fast)
	testbin.WaitFor(t, "four cores of the fast principal waiting", func() bool { return w.Count() == 4 })
	var taken []*WarmCore
	defer func() {
		for _, c := range taken {
			c.Core.Stop(time.Second)
		}
	}()
	for range 4 { // back to back: every one finds a core
		c := w.Take(WarmKey(fast))
		if c == nil {
			t.Fatal("a back-to-back take found no core waiting")
		}
		taken = append(taken, c)
	}
	if c := w.Take(WarmKey(slow)); c != nil {
		t.Fatalf("took a core for slow, never started: %s", c.ID)
	}
	if h, m := w.HitRate(); h != 4 || m != 1 {
		t.Errorf("hit rate: %d hits, %d misses; want 4 and 1", h, m)
	}
}

// TestWarmPoolStartsAtMostItsSize: however many principals want cores at
// once, no more cores start at once than the pool holds.
func TestWarmPoolStartsAtMostItsSize(t *testing.T) {
	release := make(chan struct{})
	var started atomic.Int32
	w := NewWarmPool(3, time.Second, func(Spec) (*WarmCore, error) {
		started.Add(1)
		<-release
		return nil, errors.New("not started") // nothing to stop
	})
	for i := range 10 {
		w.Refill(Spec{Args: []string{strconv.Itoa(i)}})
	}
	testbin.WaitFor(t, "the starts under way", func() bool { return started.Load() == 3 })
	w.mu.Lock()
	inStart := w.inStart
	w.mu.Unlock()
	if inStart != 3 || started.Load() != 3 {
		t.Errorf("%d starting (%d started) for 10 principals in a pool of 3, want 3", inStart, started.Load())
	}
	close(release)
	w.Close()
}
