package dashboard

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// t0 is a minute's start: the samples' clock in these tests.
var t0 = time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)

// TestSamplesBounded: hours of activity keep one hour of samples, the
// last minute's last, each minute once, however far apart the calls.
func TestSamplesBounded(t *testing.T) {
	tests := []struct {
		name    string
		minutes []int // a call in each of these minutes after t0
		want    int   // samples kept
		first   int   // the minute after t0 of the oldest
	}{
		{"one minute", []int{0}, 1, 0},
		{"three hours, every minute", seq(180), sampleCount, 180 - sampleCount},
		{"a gap longer than the ring", []int{0, 500}, sampleCount, 500 - sampleCount + 1},
		{"a gap inside the ring", []int{0, 10}, 11, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSamples()
			for _, m := range tt.minutes {
				s.call(t0.Add(time.Duration(m)*time.Minute+time.Second), time.Millisecond)
			}
			now := t0.Add(time.Duration(tt.minutes[len(tt.minutes)-1])*time.Minute + 30*time.Second)
			got := s.series(now)
			if len(got) != tt.want {
				t.Fatalf("got %d samples, want %d", len(got), tt.want)
			}
			if want := t0.Add(time.Duration(tt.first) * time.Minute); !got[0].At.Equal(want) {
				t.Errorf("oldest sample at %v, want %v", got[0].At, want)
			}
			for i := 1; i < len(got); i++ {
				if d := got[i].At.Sub(got[i-1].At); d != sampleStep {
					t.Fatalf("samples %d and %d are %v apart, want %v", i-1, i, d, sampleStep)
				}
			}
			calls := 0
			for _, m := range got {
				calls += m.Calls
			}
			if want := countFrom(tt.minutes, tt.first); calls != want {
				t.Errorf("got %d calls in the samples, want %d (the calls of the minutes kept)", calls, want)
			}
		})
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func countFrom(minutes []int, first int) int {
	n := 0
	for _, m := range minutes {
		if m >= first {
			n++
		}
	}
	return n
}

// TestSamplesQuantiles: a minute's p50 and p99 are within 1% of the exact
// quantiles of its calls' durations, while the minute runs and once it is
// over; the next minute starts afresh.
func TestSamplesQuantiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		name string
		gen  func() time.Duration
		n    int
	}{
		{"uniform 1ms-1s", func() time.Duration { return time.Millisecond + time.Duration(rng.Int64N(int64(time.Second))) }, 1000},
		{"long tail", func() time.Duration {
			return time.Duration(math.Exp(rng.NormFloat64()*2) * float64(10*time.Millisecond))
		}, 5000},
		{"one call", func() time.Duration { return 420 * time.Millisecond }, 1},
		{"two calls, one slow", func() time.Duration { return time.Duration(1+rng.IntN(2)*999) * time.Millisecond }, 2},
		{"instant calls", func() time.Duration { return 0 }, 10},
		{"bimodal", func() time.Duration {
			if rng.IntN(100) < 95 {
				return 5 * time.Millisecond
			}
			return 3 * time.Second
		}, 2000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSamples()
			var ds []float64
			for i := range tt.n {
				d := tt.gen()
				ds = append(ds, d.Seconds()*1000)
				s.call(t0.Add(time.Duration(i)*time.Millisecond), d)
			}
			slices.Sort(ds)
			// Nearest rank: the ceil(q×n)-th smallest.
			exact := func(q float64) float64 { return ds[int(math.Ceil(q*float64(len(ds))))-1] }
			check := func(when string, m dashSample) {
				t.Helper()
				if m.Calls != tt.n {
					t.Errorf("%s: got %d calls, want %d", when, m.Calls, tt.n)
				}
				for _, c := range []struct {
					q   float64
					got float64
				}{{0.5, m.P50MS}, {0.99, m.P99MS}} {
					if want := exact(c.q); math.Abs(c.got-want) > latencyAccuracy*want*1.0001 {
						t.Errorf("%s: p%g got %.3f ms, want %.3f ms within %g%%", when, c.q*100, c.got, want, latencyAccuracy*100)
					}
				}
			}
			check("while the minute runs", s.series(t0.Add(30 * time.Second))[0])
			next := s.series(t0.Add(sampleStep + time.Second))
			check("once it is over", next[0])
			if len(next) != 2 || next[1].Calls != 0 || next[1].P50MS != 0 || next[1].P99MS != 0 {
				t.Errorf("the next minute: got %+v, want no calls and no latency", next[1:])
			}
		})
	}
}

// TestSamplesSessionsAndRate: a minute's sessions are the most open at
// once in it, the next minute starting with the last count; calls per
// second are over the minute, or the part of it gone by.
func TestSamplesSessionsAndRate(t *testing.T) {
	s := newSamples()
	s.count(t0.Add(time.Second), 2, 1)
	s.count(t0.Add(2*time.Second), 5, 0)
	s.count(t0.Add(3*time.Second), 1, 0)
	for i := range 11 {
		s.call(t0.Add(time.Duration(10+i)*time.Second), time.Millisecond)
	}
	got := s.series(t0.Add(20 * time.Second))
	if len(got) != 1 || got[0].Sessions != 5 || got[0].PrincipalCores != 1 {
		t.Fatalf("the first minute: got %+v, want 5 sessions and 1 principal core at most", got)
	}
	if got[0].Calls != 11 || got[0].CallsPerSecond != 11.0/20 {
		t.Errorf("20 s into the minute: got %d calls, %g per second; want 11 and %g", got[0].Calls, got[0].CallsPerSecond, 11.0/20)
	}
	for i := range 19 {
		s.call(t0.Add(time.Duration(21+i)*time.Second), time.Millisecond)
	}
	got = s.series(t0.Add(3*time.Minute + 15*time.Second))
	tests := []struct {
		at                   int
		sessions, calls      int
		perSecond            float64
		principalCoresAtMost int
	}{
		{0, 5, 30, 0.5, 1},
		{1, 1, 0, 0, 0},
		{2, 1, 0, 0, 0},
		{3, 1, 0, 0, 0},
	}
	if len(got) != len(tests) {
		t.Fatalf("got %d samples, want %d", len(got), len(tests))
	}
	for _, tt := range tests {
		m := got[tt.at]
		if m.Sessions != tt.sessions || m.Calls != tt.calls || m.CallsPerSecond != tt.perSecond || m.PrincipalCores > tt.principalCoresAtMost {
			t.Errorf("minute %d: got %+v, want %d sessions, %d calls, %g per second", tt.at, m, tt.sessions, tt.calls, tt.perSecond)
		}
	}
}

// BenchmarkSamplesCall is the cost a tool call adds to the host's plots
// (under the Observer's lock).
func BenchmarkSamplesCall(b *testing.B) {
	s := newSamples()
	rng := rand.New(rand.NewPCG(1, 2))
	now := t0
	for b.Loop() {
		now = now.Add(time.Millisecond)
		s.call(now, time.Duration(math.Exp(rng.NormFloat64()*2)*float64(10*time.Millisecond)))
	}
}

// BenchmarkSamplesSeries is the cost of the plots in each state sent: an
// hour of samples, the current minute's quantiles read from its sketch.
func BenchmarkSamplesSeries(b *testing.B) {
	s := newSamples()
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 60 * 1000 {
		s.call(t0.Add(time.Duration(i)*3600*time.Microsecond), time.Duration(math.Exp(rng.NormFloat64()*2)*float64(10*time.Millisecond)))
	}
	now := t0.Add(time.Hour - time.Second)
	for b.Loop() {
		if len(s.series(now)) != sampleCount {
			b.Fatal("not an hour of samples")
		}
	}
}
