package procs

import (
	"runtime"
	"sync"
	"testing"
)

// narrowed manages and narrows the process for one test, and returns the
// GOMAXPROCS it had.
func narrowed(t *testing.T) int {
	t.Helper()
	n := runtime.GOMAXPROCS(0)
	if n < 2 {
		t.Skip("needs GOMAXPROCS of at least 2; this machine runs Go on 1 CPU")
	}
	t.Cleanup(Restore)
	Manage()
	Narrow()
	wantProcs(t, "after Narrow", 1)
	return n
}

// wantProcs fails the test unless GOMAXPROCS is want.
func wantProcs(t *testing.T, when string, want int) {
	t.Helper()
	if got := runtime.GOMAXPROCS(0); got != want {
		t.Fatalf("%s: GOMAXPROCS %d, want %d", when, got, want)
	}
}

// TestWidenNests: Widen gives back every P until its last overlapping
// release, a release called twice counts once, and Restore undoes all.
func TestWidenNests(t *testing.T) {
	n := narrowed(t)
	a, b := Widen(), Widen()
	wantProcs(t, "widened twice", n)
	a()
	a()
	wantProcs(t, "one of two released (twice)", n)
	b()
	wantProcs(t, "both released", 1)
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() { Widen()() })
	}
	wg.Wait()
	wantProcs(t, "after 50 concurrent widen/release", 1)
	Restore()
	wantProcs(t, "after Restore", n)
}

// TestBusyWidensWhenWorkOverlaps: one piece of work runs on one P, two
// at once on every P, and the process narrows when they are done; Busy
// and Widen combine.
func TestBusyWidensWhenWorkOverlaps(t *testing.T) {
	n := narrowed(t)
	first := Busy()
	wantProcs(t, "one piece of work", 1)
	second := Busy()
	wantProcs(t, "two at once", n)
	first()
	first()
	wantProcs(t, "one left (the other done twice)", 1)
	release := Widen()
	wantProcs(t, "one piece of work and a walk", n)
	second()
	release()
	wantProcs(t, "all done", 1)
}

// TestUnmanaged: a process that never called Manage (one embedding boris,
// a test) or never narrowed keeps its GOMAXPROCS through Narrow, Widen and
// Busy.
func TestUnmanaged(t *testing.T) {
	n := runtime.GOMAXPROCS(0)
	t.Cleanup(Restore)
	Narrow()
	wantProcs(t, "Narrow without Manage", n)
	release, done := Widen(), Busy()
	wantProcs(t, "Widen and Busy without Narrow", n)
	release()
	done()
	wantProcs(t, "their release without Narrow", n)
}
