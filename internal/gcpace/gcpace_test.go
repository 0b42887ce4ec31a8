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

// TestStartFollowsTheLiveHeap: with 32 MB kept live, a collection sets
// GOGC near Percent(32 MB) (200), not MaxPercent; once it is released,
// the next collections bring it back to MaxPercent.
func TestStartFollowsTheLiveHeap(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	Start()
	after := func() int {
		debug.SetGCPercent(1)
		runtime.GC()
		deadline := time.Now().Add(10 * time.Second)
		for {
			if got := debug.SetGCPercent(1); got != 1 {
				debug.SetGCPercent(got)
				return got
			}
			if time.Now().After(deadline) {
				t.Fatal("the pacer did not run after the collection")
			}
			time.Sleep(time.Millisecond)
		}
	}
	live := make([]byte, 32<<20)
	for i := range live {
		live[i] = byte(i)
	}
	if got := after(); got < 150 || got > 220 {
		t.Errorf("GOGC with 32 MB live: %d, want about %d", got, Percent(32<<20))
	}
	runtime.KeepAlive(live)
	_ = after()
	if got := after(); got != MaxPercent {
		t.Errorf("GOGC once the 32 MB are garbage: %d, want %d", got, MaxPercent)
	}
}
