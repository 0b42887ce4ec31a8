package gateway

import (
	"context"
	"sync"
	"time"
	"unicode/utf8"

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

// observer records what /dashboard and /metrics show: tool calls in
// progress and the last ones finished, the principals cores were started
// for, and the metrics. Its methods are safe on a nil observer, which
// records nothing (handlers built without NewHandler, in tests).
type observer struct {
	table   *table
	metrics *metrics.Metrics

	mu       sync.Mutex
	inflight map[string]map[uint64]inflightCall // by session id
	next     uint64
	ring     []finishedCall // the last recentCalls, oldest first
	seen     map[string]seenPrincipal
	seenSeq  uint64
	changed  chan struct{} // closed and replaced on every change
	boards   map[string]cachedBoard
	reading  map[string]*boardRead // reads of boards under way, by path

	// read reads a board for the dashboard. If nil, readBoard (tests
	// stand in a read that hangs).
	read func(ctx context.Context, path string) dashBoard
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
	Subject string
	Board   string
	seq     uint64
}

func newObserver(t *table) *observer {
	return &observer{
		table: t, metrics: metrics.New(t),
		inflight: map[string]map[uint64]inflightCall{}, seen: map[string]seenPrincipal{}, boards: map[string]cachedBoard{},
		reading: map[string]*boardRead{},
		changed: make(chan struct{}),
	}
}

// notify wakes every dashboard stream. Called with mu held.
func (o *observer) notify() {
	close(o.changed)
	o.changed = make(chan struct{})
}

// changes returns a channel closed at the next change.
func (o *observer) changes() <-chan struct{} {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.changed
}

// begin records that s's core is working on a call of tool since start;
// the function it returns records that it no longer is.
func (o *observer) begin(s *session, tool string, start time.Time) func() {
	if o == nil {
		return func() {}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.next++
	n := o.next
	if o.inflight[s.id] == nil {
		o.inflight[s.id] = map[uint64]inflightCall{}
	}
	o.inflight[s.id][n] = inflightCall{Tool: shortTool(tool), Started: start}
	o.notify()
	return func() {
		o.mu.Lock()
		defer o.mu.Unlock()
		delete(o.inflight[s.id], n)
		if len(o.inflight[s.id]) == 0 {
			delete(o.inflight, s.id)
		}
		o.notify()
	}
}

// toolCall records a finished tool call of s: in the recent calls and the
// metrics.
func (o *observer) toolCall(s *session, subjectKey, tool string, d time.Duration, outcome string) {
	if o == nil {
		return
	}
	o.metrics.ToolCall(tool, outcome, d.Seconds())
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.ring) == recentCalls {
		o.ring = append(o.ring[:0], o.ring[1:]...)
	}
	o.ring = append(o.ring, finishedCall{
		At: time.Now(), Tool: shortTool(tool), Subject: s.subject, subjectKey: subjectKey,
		Session: shortID(s.id), Duration: d, Outcome: outcome,
	})
	o.notify()
}

// coreStarted counts a core started, or one that failed to start.
func (o *observer) coreStarted(err error) {
	if o == nil {
		return
	}
	if err != nil {
		o.metrics.SpawnFailures.Inc()
		return
	}
	o.metrics.CoresStarted.Inc()
	o.mu.Lock()
	defer o.mu.Unlock()
	o.notify()
}

// sawPrincipal remembers that a core was started for p, whose board is db.
func (o *observer) sawPrincipal(p Principal, db string) {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seenSeq++
	o.seen[p.SubjectKey] = seenPrincipal{Subject: p.Subject, Board: db, seq: o.seenSeq}
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
