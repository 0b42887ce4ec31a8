package procs

import (
	"runtime"
	"sync"
	"testing"
)

// TestWidenNests: after Narrow one P runs the process; Widen gives back
// every P until its last overlapping release, and a release called twice
// counts once.
func TestWidenNests(t *testing.T) {
	n := runtime.GOMAXPROCS(0)
	if n < 2 {
		t.Skip("needs GOMAXPROCS of at least 2; this machine runs Go on 1 CPU")
	}
	t.Cleanup(Restore)
	Manage()
	Narrow()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("after Narrow: GOMAXPROCS %d, want 1", got)
	}
	a := Widen()
	b := Widen()
	if got := runtime.GOMAXPROCS(0); got != n {
		t.Fatalf("widened twice: GOMAXPROCS %d, want %d", got, n)
	}
	a()
	a()
	if got := runtime.GOMAXPROCS(0); got != n {
		t.Fatalf("one of two released (twice): GOMAXPROCS %d, want %d", got, n)
	}
	b()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("both released: GOMAXPROCS %d, want 1", got)
	}
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() { Widen()() })
	}
	wg.Wait()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("after 50 concurrent widen/release: GOMAXPROCS %d, want 1", got)
	}
	Restore()
	if got := runtime.GOMAXPROCS(0); got != n {
		t.Fatalf("after Restore: GOMAXPROCS %d, want %d", got, n)
	}
}

// TestBusyWidensWhenWorkOverlaps: one piece of work runs on one P, two
// at once on every P, and the process narrows when they are done; Busy
// and Widen combine.
func TestBusyWidensWhenWorkOverlaps(t *testing.T) {
	n := runtime.GOMAXPROCS(0)
	if n < 2 {
		t.Skip("needs GOMAXPROCS of at least 2; this machine runs Go on 1 CPU")
	}
	t.Cleanup(Restore)
	Manage()
	Narrow()
	first := Busy()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("one piece of work: GOMAXPROCS %d, want 1", got)
	}
	second := Busy()
	if got := runtime.GOMAXPROCS(0); got != n {
		t.Fatalf("two at once: GOMAXPROCS %d, want %d", got, n)
	}
	first()
	first()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("one left (the other done twice): GOMAXPROCS %d, want 1", got)
	}
	release := Widen()
	if got := runtime.GOMAXPROCS(0); got != n {
		t.Fatalf("one piece of work and a walk: GOMAXPROCS %d, want %d", got, n)
	}
	second()
	release()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("all done: GOMAXPROCS %d, want 1", got)
	}
}

// TestWidenWithoutNarrow: Widen and Busy in a process that never narrowed (tests, a user's
// GOMAXPROCS) is left as it is.
func TestWidenWithoutNarrow(t *testing.T) {
	n := runtime.GOMAXPROCS(0)
	release, done := Widen(), Busy()
	if got := runtime.GOMAXPROCS(0); got != n {
		t.Fatalf("Widen without Narrow: GOMAXPROCS %d, want %d", got, n)
	}
	release()
	done()
	if got := runtime.GOMAXPROCS(0); got != n {
		t.Fatalf("release without Narrow: GOMAXPROCS %d, want %d", got, n)
	}
}
