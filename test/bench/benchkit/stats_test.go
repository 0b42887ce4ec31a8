package benchkit

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestPercentile checks nearest-rank percentiles on small samples.
func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 20; i++ {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	for _, tc := range []struct {
		p    float64
		want time.Duration
	}{{50, 10 * time.Millisecond}, {99, 20 * time.Millisecond}, {0, time.Millisecond}, {100, 20 * time.Millisecond}} {
		if got := Percentile(ds, tc.p); got != tc.want {
			t.Errorf("Percentile(1..20 ms, %v): got %v, want %v", tc.p, got, tc.want)
		}
	}
	if got := Percentile(ds[:1], 99); got != time.Millisecond {
		t.Errorf("Percentile of one sample: got %v, want 1ms", got)
	}
}

// TestSummarize checks every field on unsorted samples, that the caller's
// slice is left unsorted, and the zero Stats for no samples.
func TestSummarize(t *testing.T) {
	ds := []time.Duration{4 * time.Millisecond, time.Millisecond, 3 * time.Millisecond, 2 * time.Millisecond}
	want := Stats{N: 4, Mean: 2500 * time.Microsecond, P50: 2 * time.Millisecond, P99: 4 * time.Millisecond,
		Min: time.Millisecond, Max: 4 * time.Millisecond}
	if diff := cmp.Diff(want, Summarize(ds)); diff != "" {
		t.Errorf("Summarize (-want +got):\n%s", diff)
	}
	if ds[0] != 4*time.Millisecond {
		t.Errorf("Summarize sorted its argument: got %v first, want 4ms", ds[0])
	}
	if got := Summarize(nil); got != (Stats{}) {
		t.Errorf("Summarize(nil): got %+v, want the zero Stats", got)
	}
}

// TestStatsJSON checks the conversion to milliseconds.
func TestStatsJSON(t *testing.T) {
	s := Stats{N: 2, Mean: 1500 * time.Microsecond, P50: time.Millisecond, P99: 2 * time.Millisecond,
		Min: time.Millisecond, Max: 2 * time.Millisecond}
	want := JSONStats{N: 2, MeanMs: 1.5, P50Ms: 1, P99Ms: 2, MinMs: 1, MaxMs: 2}
	if diff := cmp.Diff(want, s.JSON()); diff != "" {
		t.Errorf("Stats.JSON (-want +got):\n%s", diff)
	}
}
