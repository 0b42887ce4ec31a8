package gcpace

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestPercent: a small heap may grow by Headroom between collections, up
// to MaxPercent; from Headroom of live heap on, the default pacing holds.
func TestPercent(t *testing.T) {
	for _, tt := range []struct {
		live uint64
		want int
	}{
		{0, MaxPercent},
		{1 << 20, MaxPercent},
		{8 << 20, 800},
		{16 << 20, 400},
		{32 << 20, 200},
		{64 << 20, 100},
		{1 << 30, 100},
	} {
		if got := Percent(tt.live); got != tt.want {
			t.Errorf("Percent(%d MB) = %d, want %d", tt.live>>20, got, tt.want)
		}
	}
}

// TestStartRepaces: after Start, every collection sets GOGC again from
// the live heap.
func TestStartRepaces(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	Start()
	for i := range 3 {
		debug.SetGCPercent(1) // what the next collection must replace
		runtime.GC()
		// The finalizer runs after the collection, on its own goroutine;
		// SetGCPercent returns the value it replaces.
		deadline := time.Now().Add(10 * time.Second)
		for debug.SetGCPercent(1) == 1 {
			if time.Now().After(deadline) {
				t.Fatalf("collection %d left GOGC as it was: the pacer is not re-armed", i+1)
			}
			time.Sleep(time.Millisecond)
		}
	}
}
