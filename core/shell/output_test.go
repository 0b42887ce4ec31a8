package shell

import (
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

const hugeBytes = 200_000_000

func TestHugeOutputIsCapped(t *testing.T) {
	s := newShell(t)
	res := mustRun(t, s, "yes | head -c 200000000", Options{})
	wantCut := int64(hugeBytes - DefaultLimit)
	if res.StdoutCut != wantCut {
		t.Errorf("StdoutCut = %d, want %d", res.StdoutCut, wantCut)
	}
	head, tail, ok := strings.Cut(res.Stdout, cutMarker(res.StdoutCut))
	if !ok {
		t.Fatalf("stdout (%d bytes) has no cut marker", len(res.Stdout))
	}
	want := strings.Repeat("y\n", DefaultLimit/4)
	if head != want || tail != want {
		t.Errorf("kept head %d + tail %d chars, want %d + %d of \"y\\n\"", len(head), len(tail), len(want), len(want))
	}
	if got := int64(len(head)+len(tail)) + res.StdoutCut; got != hugeBytes {
		t.Errorf("kept + cut = %d, want %d (total written)", got, hugeBytes)
	}
}

func TestHugeOutputMemoryBounded(t *testing.T) {
	const bound = 20 << 20
	s := newShell(t)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	// Sample the live heap while the command runs; the Progress goroutine
	// is a convenient ticker that also exercises the line tracker.
	var peak uint64
	sample := func(time.Duration, string) {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapAlloc)
	}
	opts := Options{Limit: 1000, Progress: sample, ProgressInterval: 20 * time.Millisecond}
	res := mustRun(t, s, "yes | head -c 200000000", opts)
	runtime.ReadMemStats(&after)
	if res.StdoutCut == 0 {
		t.Fatalf("StdoutCut = 0, want the output capped")
	}
	if grew := int64(peak) - int64(before.HeapAlloc); grew > bound {
		t.Errorf("live heap grew by %d bytes at peak, want < %d", grew, bound)
	}
	t.Logf("peak heap growth %d, total allocated %d", int64(peak)-int64(before.HeapAlloc), after.TotalAlloc-before.TotalAlloc)
	// TotalAlloc catches per-chunk allocations even if they were collected.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > bound {
		t.Errorf("allocated %d bytes in total, want < %d", alloc, bound)
	}
}

func TestLimitOption(t *testing.T) {
	s := newShell(t)
	res := mustRun(t, s, "printf 0123456789; printf abcdefghij >&2", Options{Limit: 4})
	if got, want := res.Stdout, "01"+cutMarker(6)+"89"; got != want {
		t.Errorf("stdout = %q, want %q", got, want)
	}
	if got, want := res.Stderr, "ab"+cutMarker(6)+"ij"; got != want {
		t.Errorf("stderr = %q, want %q", got, want)
	}
	if res.StdoutCut != 6 || res.StderrCut != 6 {
		t.Errorf("cuts = %d/%d, want 6/6", res.StdoutCut, res.StderrCut)
	}
}

func TestProgress(t *testing.T) {
	tests := []struct{ name, command string }{
		{"stdout", "for i in $(seq 1 15); do echo line$i; sleep 0.1; done"},
		{"stderr", "for i in $(seq 1 15); do echo line$i >&2; sleep 0.1; done"},
	}
	valid := regexp.MustCompile(`^(line[0-9]+)?$`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newShell(t)
			var mu sync.Mutex
			var lines []string
			var lastElapsed time.Duration
			opts := Options{
				ProgressInterval: 200 * time.Millisecond,
				Progress: func(elapsed time.Duration, line string) {
					mu.Lock()
					defer mu.Unlock()
					if elapsed < lastElapsed {
						t.Errorf("elapsed went back from %v to %v", lastElapsed, elapsed)
					}
					lastElapsed = elapsed
					lines = append(lines, line)
				},
			}
			mustRun(t, s, tt.command, opts)
			mu.Lock()
			defer mu.Unlock()
			if len(lines) < 2 {
				t.Fatalf("Progress called %d times, want >= 2", len(lines))
			}
			for _, l := range lines {
				if !valid.MatchString(l) || strings.Contains(l, s.sentinel) {
					t.Errorf("progress line %q, want lineN (and never the sentinel)", l)
				}
			}
			if lines[len(lines)-1] == "" {
				t.Errorf("last progress line empty, want a line of output")
			}
		})
	}
}
