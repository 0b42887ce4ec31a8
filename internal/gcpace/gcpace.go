// Package gcpace paces the garbage collector of a process whose live heap
// is usually small: Go's default (GOGC=100) collects each time the heap
// doubles, which for a heap of a few MB means several collections during
// one request that reads, diffs or encodes a few MB, each taking CPU from
// it. Start lets the heap grow by at least Headroom between collections
// while it is small (up to GOGC=MaxPercent), and paces it as the default
// does once the live heap is Headroom or more, so a large heap never grows
// further past its live size than the default would let it.
package gcpace

import (
	"runtime"
	"runtime/debug"
)

const (
	// Headroom is the growth allowed between collections of a small heap.
	Headroom = 64 << 20
	// MaxPercent bounds GOGC for a tiny heap.
	MaxPercent = 800
	// MinPercent is Go's default, kept for heaps of Headroom and more.
	MinPercent = 100
)

// Percent is the GOGC for a live heap of live bytes.
func Percent(live uint64) int {
	if live == 0 {
		return MaxPercent
	}
	return int(max(MinPercent, min(MaxPercent, Headroom*100/live)))
}

// Start sets GOGC for a process's first, tiny heap (MaxPercent) and
// then from the live heap after every collection. Call it as the process
// starts.
//
// The live heap is read as runtime.MemStats' HeapAlloc when the
// collection's finalizers run: what the collection kept, plus what was
// allocated since, a bound close enough for pacing. (runtime/metrics'
// /gc/heap/live is exact, but its package's initialisation costs every
// process about 0.15 ms on the way to its first answer.)
func Start() {
	var ms runtime.MemStats
	pace := func() {
		runtime.ReadMemStats(&ms)
		debug.SetGCPercent(Percent(ms.HeapAlloc))
	}
	// A process starts with a tiny heap, for which Percent is MaxPercent.
	debug.SetGCPercent(MaxPercent)
	// A finalizer runs once per collection that finds its object gone; the
	// next sentinel is made for the next collection.
	var arm func()
	arm = func() {
		// (Not a tiny object: those share blocks, and a finalizer on one
		// may wait for its neighbours.)
		runtime.SetFinalizer(new([64]byte), func(*[64]byte) {
			pace()
			arm()
		})
	}
	arm()
}
