package sessions

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Resumable streams (docs/reference/gateway.md#http-surface; Streamable HTTP, "Resumability and
// Redelivery", 2025 revisions): every event a session's SSE streams carry
// has an id, <stream>-<seq>, and each stream keeps what it sent, bounded,
// so a GET with Last-Event-ID replays what followed that event on that
// stream ("The server MUST NOT replay messages that would have been
// delivered on a different stream") and continues it.
//
// Bounds, whatever clients do: each stream keeps at most ReplayLimits.Bytes
// (its newest event always, so a response outlives a disconnect) and
// nothing older than ReplayLimits.Window; a session keeps at most
// MaxFinishedStreams streams that are over; and every event kept holds its
// bytes of the session's and the gateway's budgets (see budget), which shed
// events already delivered, oldest first, before they refuse a new message.

// eventOverhead is what a kept event costs beyond its message, against a
// stream's replay bytes: a stream of tiny events is bounded too.
const eventOverhead = 64

// MaxFinishedStreams bounds the streams over (a POST's response is in) that
// a session keeps for replay; the oldest is dropped first.
const MaxFinishedStreams = 64

// ReplayLimits bound what streams keep for replay.
type ReplayLimits struct {
	Bytes  int64         // per stream, events and eventOverhead each
	Window time.Duration // age beyond which an event is dropped
	// Evicted counts events dropped before their time for a reason:
	// "size", "age", "budget" or "streams". Never nil.
	Evicted func(reason string, n int)
}

// streamSet is a session's SSE streams: a POST's response streams and
// its GET stream, what each keeps for replay, and the bounds on that. Its
// fields, and those of its streams, are guarded by the session's mu; its
// methods are called with it held.
type streamSet struct {
	byID map[string]*stream
	get  *stream // the session's GET stream among them, nil until used
	lim  ReplayLimits
	held *Budget // the session's: kept events hold their bytes of it
}

// release gives back the budget a dropped event's message held.
func (ss *streamSet) release(m coreMsg) { ss.held.give(m.held) }

// stream is one SSE stream of a session: a POST's response stream, or the
// session's GET stream. Its fields are guarded by the session's mu.
type stream struct {
	id  string // 64 random bits in hex: no other session's stream has it
	get bool   // the session's GET stream, which never ends
	// legacy marks a 2024-11-05 SSE session's stream: not resumable, so an
	// event is dropped as soon as it is written.
	legacy bool

	seq       uint64  // the last sequence number given (to an event or a priming id)
	events    []event // kept, oldest first
	bytes     int64   // their cost against ReplayLimits.Bytes
	evictedTo uint64  // the newest seq dropped: a cursor below it has a gap
	delivered uint64  // the newest seq written to a reader
	done      bool    // a POST stream whose response is in: nothing follows
	doneAt    time.Time
	reader    chan struct{} // closed to end the attached reader; nil without one
	wake      chan struct{} // closed and replaced when an event comes or the stream ends
}

// event is a message a stream carried or will carry.
type event struct {
	seq uint64
	msg coreMsg
	at  time.Time
}

// eventID is the SSE id of a stream's event seq.
func (st *stream) eventID(seq uint64) string { return st.id + "-" + strconv.FormatUint(seq, 10) }

// parseEventID splits a Last-Event-ID into a stream id and a sequence
// number, reporting false for anything the gateway did not make.
func parseEventID(id string) (string, uint64, bool) {
	sid, n, ok := strings.Cut(id, "-")
	if !ok || len(sid) != 16 || strings.Trim(sid, "0123456789abcdef") != "" {
		return "", 0, false
	}
	seq, err := strconv.ParseUint(n, 10, 64)
	if err != nil || strconv.FormatUint(seq, 10) != n {
		return "", 0, false
	}
	return sid, seq, true
}

// newStreamLocked opens a stream of s.
func (ss *streamSet) newStreamLocked(get bool) *stream {
	var b [8]byte
	_, _ = rand.Read(b[:])
	st := &stream{id: hex.EncodeToString(b[:]), get: get, wake: make(chan struct{})}
	ss.byID[st.id] = st
	return st
}

// getStreamLocked returns the session's GET stream, opening it if need be.
func (ss *streamSet) getStreamLocked() *stream {
	if ss.get == nil {
		ss.get = ss.newStreamLocked(true)
	}
	return ss.get
}

// primeLocked gives a priming id: a cursor before anything st sends next.
func (ss *streamSet) primeLocked(st *stream) uint64 {
	st.seq++
	return st.seq
}

// appendLocked adds msg to st, waking its reader, and drops what no longer
// fits st's bounds.
func (ss *streamSet) appendLocked(st *stream, msg coreMsg) {
	st.seq++
	now := time.Now()
	st.events = append(st.events, event{seq: st.seq, msg: msg, at: now})
	st.bytes += int64(len(msg.raw)) + eventOverhead
	n := 0
	for bytes := st.bytes; bytes > ss.lim.Bytes && n < len(st.events)-1; n++ {
		bytes -= int64(len(st.events[n].msg.raw)) + eventOverhead
	}
	ss.evictLocked(st, n, "size")
	ss.ageLocked(st, now)
	close(st.wake)
	st.wake = make(chan struct{})
}

// ageLocked drops st's events older than the replay window.
func (ss *streamSet) ageLocked(st *stream, now time.Time) {
	n := 0
	for n < len(st.events) && now.Sub(st.events[n].at) > ss.lim.Window {
		n++
	}
	ss.evictLocked(st, n, "age")
}

// evictLocked drops st's n oldest events, releasing their budget.
func (ss *streamSet) evictLocked(st *stream, n int, reason string) {
	if n == 0 {
		return
	}
	for _, ev := range st.events[:n] {
		ss.release(ev.msg)
		st.bytes -= int64(len(ev.msg.raw)) + eventOverhead
	}
	st.evictedTo = st.events[n-1].seq
	clear(st.events[:n]) // the backing array holds no dropped message
	st.events = st.events[n:]
	ss.lim.Evicted(reason, n)
}

// finishLocked marks a POST stream over.
func (ss *streamSet) finishLocked(st *stream) {
	st.done, st.doneAt = true, time.Now()
	close(st.wake)
	st.wake = make(chan struct{})
	ss.trimFinishedLocked()
}

// trimFinishedLocked drops the oldest stream over that nobody reads while
// the session keeps more than MaxFinishedStreams streams over.
func (ss *streamSet) trimFinishedLocked() {
	for {
		var oldest *stream
		finished := 0
		for _, o := range ss.byID {
			if !o.done {
				continue
			}
			finished++
			if o.reader == nil && (oldest == nil || o.doneAt.Before(oldest.doneAt)) {
				oldest = o
			}
		}
		if finished <= MaxFinishedStreams || oldest == nil {
			return
		}
		ss.evictLocked(oldest, len(oldest.events), "streams")
		delete(ss.byID, oldest.id)
	}
}

// SweepReplay drops events past the replay window, and streams over
// that nobody reads and have nothing left to replay.
func (s *Session) SweepReplay(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.streams.sweepLocked(now)
}

// sweepLocked is SweepReplay with the session's mu held.
func (ss *streamSet) sweepLocked(now time.Time) {
	for id, st := range ss.byID {
		ss.ageLocked(st, now)
		if st.done && st.reader == nil && len(st.events) == 0 {
			delete(ss.byID, id)
		}
	}
}

// shedLocked drops one of the session's events to make room for a new
// message, reporting false when there is none it may drop: the oldest
// event a client was already sent (kept only for replay), else the oldest
// not yet sent on a stream nobody reads (its client left; it may resume,
// but a message for a client that is here comes first). Events due to a
// reader that is attached are never shed: they hold the budget as unread
// replies always did.
func (ss *streamSet) shedLocked() bool {
	for _, sent := range []bool{true, false} {
		var from *stream
		for _, st := range ss.byID {
			if len(st.events) == 0 || sent && st.events[0].seq > st.delivered || !sent && st.reader != nil {
				continue
			}
			if from == nil || st.events[0].at.Before(from.events[0].at) {
				from = st
			}
		}
		if from != nil {
			ss.evictLocked(from, 1, "budget")
			return true
		}
	}
	return false
}

// take claims n bytes of the session's budget (and the gateway's),
// shedding replay history to make room: its own, then, when the gateway's
// budget is what is full, other sessions' (see Limits.ShedElsewhere). It
// reports which budget is full, or "".
func (s *Session) take(n int64) string {
	for {
		full := s.held.take(n)
		if full == "" {
			return ""
		}
		s.mu.Lock()
		shed := s.streams.shedLocked()
		s.mu.Unlock()
		if !shed && full == "gateway" && s.lim.ShedElsewhere != nil {
			shed = s.lim.ShedElsewhere(s)
		}
		if !shed {
			return full
		}
	}
}

// replayBytesLocked is what s's streams keep, for shedElsewhere to choose
// whose history goes first.
func (ss *streamSet) replayBytesLocked() int64 {
	var n int64
	for _, st := range ss.byID {
		n += st.bytes
	}
	return n
}

// attachLocked makes the caller st's reader, ending the one before (a
// client that resumes a stream says the connection it had is dead). The
// returned channel closes when another reader takes over.
func (ss *streamSet) attachLocked(st *stream) chan struct{} {
	if st.reader != nil {
		close(st.reader)
	}
	st.reader = make(chan struct{})
	return st.reader
}

// detach ends a reader's hold on st.
func (s *Session) detach(st *stream, reader chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st.reader == reader {
		st.reader = nil
		s.streams.trimFinishedLocked()
	}
}

// next returns st's events after cursor (skipping any dropped), whether
// the stream is over once they are written, and a channel closed when
// there is more.
func (s *Session) next(st *stream, cursor uint64) (evs []event, over bool, wake chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, ev := range st.events {
		if ev.seq > cursor {
			evs = append(evs, st.events[i:]...)
			break
		}
	}
	return evs, st.done, st.wake
}

// sent records that seq of st was written to a client.
func (s *Session) sent(st *stream, seq uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st.delivered = max(st.delivered, seq)
	if !st.legacy {
		return
	}
	n := 0
	for n < len(st.events) && st.events[n].seq <= seq {
		s.release(st.events[n].msg)
		st.bytes -= int64(len(st.events[n].msg.raw)) + eventOverhead
		n++
	}
	clear(st.events[:n])
	st.events = st.events[n:]
}

// Refusals of resumeLocked: answered 400, never 404, which would tell the
// client its session is gone.
var (
	errEventID      = errors.New("malformed Last-Event-ID: not an event id this gateway sent")
	errEventUnknown = errors.New("unknown Last-Event-ID: no stream of this session has sent it (a stream over is kept for --replay-window); start a new request")
	errEventExpired = errors.New("Last-Event-ID too old: events after it were dropped (they are kept for --replay-window, within --replay-buffer); start a new request")
)

// resumeLocked finds the stream and the cursor a Last-Event-ID names. An id
// of another session's stream is unknown here, like a forged one.
func (ss *streamSet) resumeLocked(lastID string) (*stream, uint64, error) {
	sid, seq, ok := parseEventID(lastID)
	if !ok {
		return nil, 0, errEventID
	}
	st := ss.byID[sid]
	switch {
	case st == nil || seq > st.seq:
		return nil, 0, errEventUnknown
	case st.evictedTo > seq:
		return nil, 0, errEventExpired
	}
	return st, seq, nil
}
