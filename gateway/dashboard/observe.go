package dashboard

import (
	"context"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mjkoo/boris/core/board"
	"github.com/mjkoo/boris/gateway/metrics"
)

// recentCalls is how many finished tool calls the dashboard keeps.
const recentCalls = 200

// maxSeenPrincipals bounds the principals the gateway remembers for the
// dashboard (those whose cores it started); past it, the oldest go.
const maxSeenPrincipals = 4096

// maxShownTool bounds the bytes of a tool name the dashboard keeps: a
// client chooses the name it calls.
const maxShownTool = 128

// Observer records what /dashboard and /metrics show: tool calls in
// progress and the last ones finished, the principals cores were started
// for, and the metrics. Its methods are safe on a nil observer, which
// records nothing (the gateway's handlers built without NewHandler, in
// tests).
type Observer struct {
	sessions Sessions
	metrics  *metrics.Metrics

	mu       sync.Mutex
	inflight map[string]map[uint64]inflightCall // by session id
	next     uint64
	ring     []finishedCall // the last recentCalls, oldest first
	seen     map[string]seenPrincipal
	seenSeq  uint64
	changed  chan struct{} // closed and replaced on every change
	boards   map[string]cachedBoard
	reading  map[string]*boardRead // reads of boards under way, by path
	host     *samples              // the host's plots: the last hour, a sample a minute
	mine     map[string]*plotted   // each principal's own plots, by subject key

	// read reads a board for the dashboard. If nil, readBoard (tests
	// stand in a read that hangs).
	read func(ctx context.Context, path string, pg board.PGOptions) dashBoard
}

// inflightCall is a tool call a core is working on.
type inflightCall struct {
	Tool    string
	Started time.Time
}

// finishedCall is one tool call as the dashboard lists it.
type finishedCall struct {
	At         time.Time
	Tool       string
	Subject    string
	subjectKey string
	Session    string // short id
	Duration   time.Duration
	Outcome    string
}

// seenPrincipal is a principal a core was started for, and its board.
type seenPrincipal struct {
	Key     string // its SubjectKey
	Subject string
	Board   string
	seq     uint64
}

// NewObserver returns an observer of the sessions t.
func NewObserver(t Sessions) *Observer {
	return &Observer{
		sessions: t, metrics: metrics.New(t),
		inflight: map[string]map[uint64]inflightCall{}, seen: map[string]seenPrincipal{}, boards: map[string]cachedBoard{},
		reading: map[string]*boardRead{}, host: newSamples(), mine: map[string]*plotted{},
		changed: make(chan struct{}),
	}
}

// WarmCores counts the warm pool's hits and misses in /metrics, read
// through rate.
func (o *Observer) WarmCores(rate func() (hits, misses int64)) { o.metrics.WarmCores(rate) }

// Egress counts the egress proxy's connections and refusals in /metrics,
// read through read.
func (o *Observer) Egress(read func() metrics.Egress) { o.metrics.Egress(read) }

// notify wakes every dashboard stream. Called with mu held.
func (o *Observer) notify() {
	close(o.changed)
	o.changed = make(chan struct{})
}

// changes returns a channel closed at the next change.
func (o *Observer) changes() <-chan struct{} {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.changed
}

// Begin records that the core of session is working on a call of tool
// since start; the function it returns records that it no longer is.
func (o *Observer) Begin(session, tool string, start time.Time) func() {
	if o == nil {
		return func() {}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.next++
	n := o.next
	if o.inflight[session] == nil {
		o.inflight[session] = map[uint64]inflightCall{}
	}
	o.inflight[session][n] = inflightCall{Tool: shortTool(tool), Started: start}
	o.notify()
	return func() {
		o.mu.Lock()
		defer o.mu.Unlock()
		delete(o.inflight[session], n)
		if len(o.inflight[session]) == 0 {
			delete(o.inflight, session)
		}
		o.notify()
	}
}

// ToolCall records a finished tool call of session, of the principal
// subject (subjectKey): in the recent calls and the metrics.
func (o *Observer) ToolCall(session, subject, subjectKey, tool string, d time.Duration, outcome string) {
	if o == nil {
		return
	}
	o.metrics.ToolCall(tool, outcome, d.Seconds())
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.ring) == recentCalls {
		o.ring = append(o.ring[:0], o.ring[1:]...)
	}
	now := time.Now()
	o.host.call(now, d)
	if subjectKey != "" {
		o.own(subjectKey, now).call(now, d)
	}
	o.ring = append(o.ring, finishedCall{
		At: now, Tool: shortTool(tool), Subject: subject, subjectKey: subjectKey,
		Session: shortID(session), Duration: d, Outcome: outcome,
	})
	o.notify()
}

// ReplayEvicted counts n events a stream dropped from its replay buffer,
// for reason (size, age, budget or streams).
func (o *Observer) ReplayEvicted(reason string, n int) {
	if o == nil {
		return
	}
	o.metrics.ReplayEvictions.WithLabelValues(reason).Add(float64(n))
}

// CoreStarted counts a core started, or one that failed to start.
func (o *Observer) CoreStarted(err error) {
	if o == nil {
		return
	}
	if err != nil {
		o.metrics.SpawnFailures.Inc()
		return
	}
	o.metrics.CoresStarted.Inc()
	o.countCores()
	o.mu.Lock()
	defer o.mu.Unlock()
	o.notify()
}

// sampleEvery is how often Sample counts the cores open for the host's
// plots, besides at every core started.
const sampleEvery = time.Second

// Sample counts the cores open for the host's plots every sampleEvery,
// until ctx is done: a minute's sample holds the most open at once.
func (o *Observer) Sample(ctx context.Context) {
	if o == nil {
		return
	}
	tick := time.NewTicker(sampleEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			o.countCores()
		}
	}
}

// countCores records the cores open now in the host's plots and each
// principal's.
func (o *Observer) countCores() {
	// Read before mu: the table's lock is never taken under it.
	all, principals, cores := o.sessions.Count(), o.sessions.CountPrincipals(), o.sessions.Cores()
	now := time.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	o.host.count(now, all-principals, principals)
	o.countOwn(now, cores)
}

// hostSeries returns the host's plots up to now.
func (o *Observer) hostSeries(now time.Time) []dashSample {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.host.series(now)
}

// SawPrincipal remembers that a core was started for the principal
// subject (subjectKey), whose board is db.
func (o *Observer) SawPrincipal(subjectKey, subject, db string) {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seenSeq++
	o.seen[subjectKey] = seenPrincipal{Key: subjectKey, Subject: subject, Board: db, seq: o.seenSeq}
	if len(o.seen) > maxSeenPrincipals {
		oldest, key := o.seenSeq, ""
		for k, v := range o.seen {
			if v.seq < oldest {
				oldest, key = v.seq, k
			}
		}
		delete(o.seen, key)
	}
}

// shortTool cuts a client's tool name to maxShownTool bytes of valid UTF-8.
func shortTool(name string) string {
	if len(name) <= maxShownTool {
		return name
	}
	name = name[:maxShownTool]
	for !utf8.ValidString(name) {
		name = name[:len(name)-1]
	}
	return name + "…"
}

// shortID is the part of a session id the dashboard shows: enough to tell
// sessions apart, too little to name one in a request.
func shortID(id string) string { return id[:min(8, len(id))] }
