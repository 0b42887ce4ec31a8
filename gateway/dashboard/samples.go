package dashboard

import (
	"math"
	"time"

	"github.com/DataDog/sketches-go/ddsketch"
)

// The host's plots on the dashboard: open sessions, calls per second and
// the p50/p99 latency of tool calls over the last hour, one sample a
// minute, kept in a ring of fixed size: the gateway's memory for them never
// grows.
const (
	sampleStep  = time.Minute
	sampleCount = 60 // an hour of samples, the current minute's included
	// latencyAccuracy is the relative accuracy of p50 and p99: a
	// quantile shown is within 1% of the call duration it stands for.
	latencyAccuracy = 0.01
	// latencyBins bounds a minute's latency sketch: at 1% accuracy, 2,048
	// bins span durations from a microsecond to past a year.
	latencyBins = 2048
)

// sample is one minute of the host's activity.
type sample struct {
	start          time.Time // the minute's start
	sessions       int       // the most MCP sessions open at once in it
	principalCores int       // the most principals' cores open at once in it
	calls          int       // tool calls finished in it
	p50, p99       float64   // their latency quantiles, in seconds; 0 without calls
}

// samples is the ring of the last sampleCount minutes. The current minute's
// latencies are held in a DDSketch (bounded: latencyBins) until it ends,
// then only its quantiles are kept. Not safe for concurrent use: the
// Observer holds its lock around every call.
type samples struct {
	ring   [sampleCount]sample
	n      int // samples in the ring, the current one included
	head   int // the current minute's index; valid when n > 0
	sketch *ddsketch.DDSketch
	// open is the last count of open sessions and principals' cores
	// recorded: a minute starts with it.
	open, openPrincipals int
}

// newSamples returns an empty ring.
func newSamples() *samples {
	sk, err := ddsketch.LogCollapsingLowestDenseDDSketch(latencyAccuracy, latencyBins)
	if err != nil { // only for an accuracy outside (0, 1)
		panic("dashboard: latency sketch: " + err.Error())
	}
	return &samples{sketch: sk}
}

// advance makes now's minute the current one: the minutes since the last
// sample are added (without calls, with the sessions last counted), the
// oldest going past sampleCount.
func (s *samples) advance(now time.Time) {
	minute := now.Truncate(sampleStep)
	if s.n > 0 && !minute.After(s.ring[s.head].start) {
		return
	}
	if s.n > 0 {
		s.close()
		last := s.ring[s.head].start
		if gap := minute.Sub(last) / sampleStep; gap > sampleCount {
			last = minute.Add(-sampleCount * sampleStep) // older minutes would fall off the ring at once
		}
		for t := last.Add(sampleStep); t.Before(minute); t = t.Add(sampleStep) {
			s.push(t)
		}
	}
	s.push(minute)
}

// push starts the sample of the minute at start.
func (s *samples) push(start time.Time) {
	if s.n > 0 {
		s.head = (s.head + 1) % sampleCount
	}
	s.n = min(s.n+1, sampleCount)
	s.ring[s.head] = sample{start: start, sessions: s.open, principalCores: s.openPrincipals}
}

// close keeps the current minute's latency quantiles and empties the sketch
// for the next one.
func (s *samples) close() {
	cur := &s.ring[s.head]
	cur.p50, cur.p99 = s.quantiles()
	s.sketch.Clear()
}

// quantiles are the p50 and p99 of the current minute's calls so far.
func (s *samples) quantiles() (p50, p99 float64) {
	return s.quantile(0.5), s.quantile(0.99)
}

// quantile is the nearest-rank q-quantile of the current minute's calls
// (the ceil(q×n)-th smallest duration, within latencyAccuracy), 0 without
// calls. Nearest rank, not the sketch's own interpolated rank q×(n-1): of
// two calls, one slow, p99 is the slow one; a minute of few calls still
// shows its tail.
func (s *samples) quantile(q float64) float64 {
	n := s.sketch.GetCount()
	if n == 0 {
		return 0
	}
	rank := max(math.Ceil(q*n)-1, 0) // 0-based
	zeros := s.sketch.GetZeroCount() // calls that took no measurable time
	if rank < zeros {
		return 0
	}
	return s.sketch.Value(s.sketch.GetPositiveValueStore().KeyAtRank(rank - zeros))
}

// call records a tool call that finished at now after d.
func (s *samples) call(now time.Time, d time.Duration) {
	s.advance(now)
	s.ring[s.head].calls++
	_ = s.sketch.Add(max(d.Seconds(), 0)) // a duration is never NaN nor past the sketch's range
}

// count records how many sessions and principals' cores are open at now.
func (s *samples) count(now time.Time, sessions, principalCores int) {
	s.advance(now)
	s.open, s.openPrincipals = sessions, principalCores
	cur := &s.ring[s.head]
	cur.sessions = max(cur.sessions, sessions)
	cur.principalCores = max(cur.principalCores, principalCores)
}

// dashSample is a minute of the host's plots as the page receives it.
type dashSample struct {
	At             time.Time `json:"at"` // the minute's start
	Sessions       int       `json:"sessions"`
	PrincipalCores int       `json:"principal_cores"`
	Calls          int       `json:"calls"`
	CallsPerSecond float64   `json:"calls_per_second"` // over the minute, or the part of it gone by
	P50MS          float64   `json:"p50_ms"`
	P99MS          float64   `json:"p99_ms"`
}

// series returns the samples of the hour up to now, oldest first; the
// current minute's rate and quantiles are those of its calls so far.
func (s *samples) series(now time.Time) []dashSample {
	s.advance(now)
	out := make([]dashSample, 0, s.n)
	for i := s.n - 1; i >= 0; i-- {
		idx := (s.head - i + sampleCount) % sampleCount
		m := s.ring[idx]
		span := sampleStep
		if idx == s.head {
			m.p50, m.p99 = s.quantiles()
			span = max(now.Sub(m.start), time.Second)
		}
		out = append(out, dashSample{At: m.start, Sessions: m.sessions, PrincipalCores: m.principalCores, Calls: m.calls,
			CallsPerSecond: float64(m.calls) / span.Seconds(), P50MS: m.p50 * 1000, P99MS: m.p99 * 1000})
	}
	return out
}
