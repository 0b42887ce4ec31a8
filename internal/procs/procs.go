// Package procs runs boris on one P while it does one thing at a time,
// and on every CPU while it does more.
//
// Nearly everything boris does for a request happens on one goroutine
// after another: the stdin reader, the SDK's dispatcher, the tool's
// handler. With a second P idle, each hand-off between them makes the
// runtime wake a thread on another CPU, which steals the goroutine and
// runs it there after that CPU wakes up: on a virtual machine, about
// 30 µs more per small call than on one P, where the next goroutine
// simply runs on the thread at hand.
//
// One P would make work that overlaps take turns, so the process widens
// to every P Go would use while it computes in parallel (Widen: a
// search's walk) and while two or more pieces of work are under way at
// once (Busy: tool calls, checkpoint recordings). Start-up, with its
// first recording beside the client's first requests, runs on every P:
// the process narrows once it has settled (Narrow).
package procs

import (
	"runtime"
	"sync"
)

var (
	mu      sync.Mutex
	managed bool // Manage was called
	wide    int  // GOMAXPROCS while widened; 0 until Narrow
	held    int  // Widen calls not yet released
	busy    int  // Busy calls not yet done
	procs   int  // the GOMAXPROCS set last
)

// Manage lets Narrow act. The boris binary calls it at start; a process
// that only embeds boris (a test) keeps its GOMAXPROCS.
func Manage() {
	mu.Lock()
	managed = true
	mu.Unlock()
}

// Narrow runs the process on one P, from now on, whenever there is no
// work for more. boris calls it once start-up is over; it does nothing
// without Manage, and Widen and Busy do nothing before it.
func Narrow() {
	mu.Lock()
	defer mu.Unlock()
	if n := runtime.GOMAXPROCS(0); managed && n > 1 && wide == 0 {
		wide, procs = n, n
		applyLocked()
	}
}

// Widen gives the process every P until the returned function is called.
func Widen() (release func()) {
	return enter(&held)
}

// Busy marks a piece of work that may overlap others; while two or more
// are under way the process has every P. Call the returned function when
// the work is done.
func Busy() (done func()) {
	return enter(&busy)
}

// enter counts one more in *count and returns what counts it out again
// (once, however often it is called).
func enter(count *int) func() {
	mu.Lock()
	defer mu.Unlock()
	if wide == 0 {
		return func() {}
	}
	*count++
	applyLocked()
	return sync.OnceFunc(func() {
		mu.Lock()
		defer mu.Unlock()
		*count--
		applyLocked()
	})
}

// applyLocked sets GOMAXPROCS for the work under way, if it changed.
func applyLocked() {
	want := 1
	if held > 0 || busy > 1 {
		want = wide
	}
	if want != procs {
		runtime.GOMAXPROCS(want)
		procs = want
	}
}

// Restore undoes Manage and Narrow: GOMAXPROCS goes back to what it was,
// and Widen and Busy do nothing again. For tests that narrow.
func Restore() {
	mu.Lock()
	defer mu.Unlock()
	if wide != 0 {
		runtime.GOMAXPROCS(wide)
	}
	managed, wide, held, busy, procs = false, 0, 0, 0, 0
}
