package benchkit

import (
	"math"
	"slices"
	"time"
)

// Stats summarizes a set of latencies.
type Stats struct {
	N                        int
	Mean, P50, P99, Min, Max time.Duration
}

// Summarize computes the count, mean, p50, p99, min and max of ds; for no
// samples it returns the zero Stats.
func Summarize(ds []time.Duration) Stats {
	if len(ds) == 0 {
		return Stats{}
	}
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	var sum time.Duration
	for _, d := range sorted {
		sum += d
	}
	return Stats{
		N:    len(sorted),
		Mean: sum / time.Duration(len(sorted)),
		P50:  Percentile(sorted, 50),
		P99:  Percentile(sorted, 99),
		Min:  sorted[0],
		Max:  sorted[len(sorted)-1],
	}
}

// Percentile returns the nearest-rank p-th percentile of sorted, which must
// be non-empty and ascending. With the benchmarks' default 20 or 30
// samples, p99 is the maximum.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// JSONStats is Stats in milliseconds, for a report's -json output.
type JSONStats struct {
	N      int     `json:"n"`
	MeanMs float64 `json:"mean_ms"`
	P50Ms  float64 `json:"p50_ms"`
	P99Ms  float64 `json:"p99_ms"`
	MinMs  float64 `json:"min_ms"`
	MaxMs  float64 `json:"max_ms"`
}

// JSON converts s to milliseconds.
func (s Stats) JSON() JSONStats {
	return JSONStats{N: s.N, MeanMs: Ms(s.Mean), P50Ms: Ms(s.P50), P99Ms: Ms(s.P99), MinMs: Ms(s.Min), MaxMs: Ms(s.Max)}
}
