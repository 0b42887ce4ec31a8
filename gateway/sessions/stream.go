package sessions

import (
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mjkoo/boris/gateway/wire"
)

// Await writes everything the core sends for c until its response, and
// returns that response (nil if there was none). Each message's budget is
// released once it is written. On a session, a client that accepts an
// event stream is answered on a resumable one (see streamCall) as soon as
// anything but a lone response is due.
func (sw *Streamer) Await(w http.ResponseWriter, r *http.Request, s *Session, c *Call, acc wire.Accepts) []byte {
	resumable := s.principal == nil && acc.SSE
	rp := &wire.Reply{Writer: w, Accepts: acc, Timeout: sw.WriteTimeout, Stateless: s.principal != nil}
	handedOver := false
	defer func() {
		if !handedOver {
			s.leave(c)
		}
	}()
	tick := time.NewTicker(sw.KeepAlive)
	defer tick.Stop()
	for {
		select {
		case m := <-c.notes:
			if resumable {
				handedOver = true
				return sw.streamCall(w, r, s, c, &m)
			}
			sw.noteOrStream(rp, s, m)
		case m := <-c.resp:
			if resumable && (len(c.notes) > 0 || !acc.JSON) {
				c.resp <- m // deliver forgot c: nothing else sends on resp
				handedOver = true
				return sw.streamCall(w, r, s, c, nil)
			}
			sw.drainNotes(rp, s, c)
			rp.Final(m.raw)
			s.release(m)
			return m.raw
		case <-tick.C:
			if resumable {
				handedOver = true
				return sw.streamCall(w, r, s, c, nil)
			}
			rp.KeepAlive()
		case <-c.ended:
			rp.Final(wire.ErrorResponse(c.id, wire.CodeRequestCancelled, "request cancelled by the client"))
			return nil
		case <-s.done:
			sw.drainNotes(rp, s, c)
			rp.Final(wire.ErrorResponse(c.id, jsonrpc.CodeInternalError, "session ended: "+s.reason))
			return nil
		case <-r.Context().Done():
			// The client went away, or stopped reading for WriteTimeout.
			// Before 2026-07-28 a disconnect is not a cancellation: the
			// request runs on, its response dropped (see session.leave).
			// From 2026-07-28 on it is: the core is told to stop.
			if s.principal != nil {
				s.cancelAtCore(c)
			}
			return nil
		}
	}
}

// streamCall answers c on a resumable event stream (2025 revisions): a
// pump moves what the core sends for c into the stream, and this request
// writes the stream until the response. A client that loses the
// connection before then loses nothing: the request runs on, its stream
// keeps what it sends, and a GET with the Last-Event-ID the client last
// saw writes the rest, response included (see resume). first, if not nil,
// is the stream's first message.
func (sw *Streamer) streamCall(w http.ResponseWriter, r *http.Request, s *Session, c *Call, first *coreMsg) []byte {
	s.mu.Lock()
	st := s.streams.newStreamLocked(false)
	c.stream = st
	var cursor uint64
	if primes(r) {
		cursor = s.streams.primeLocked(st)
	}
	if first != nil {
		s.streams.appendLocked(st, *first)
	}
	reader := s.streams.attachLocked(st)
	s.mu.Unlock()
	go s.pump(c, st)
	sse := wire.StartSSE(w, sw.WriteTimeout)
	if cursor > 0 && sse.Prime(st.eventID(cursor)) != nil {
		s.detach(st, reader)
		return nil
	}
	return sw.follow(r, sse, s, st, cursor, reader)
}

// primes reports whether a stream for r starts with a priming event: from
// 2025-11-25 on (clients of earlier revisions may not expect an event
// without data).
func primes(r *http.Request) bool {
	v := r.Header.Get("MCP-Protocol-Version")
	return v >= "2025-11-25" && v != wire.StatelessVersion
}

// pump moves what the core sends for c into st until its response (or its
// cancellation, or the session's end), whether a client reads st or not.
func (s *Session) pump(c *Call, st *stream) {
	final := func(m coreMsg) {
		if c.Finished != nil {
			defer c.Finished(m.raw)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		for {
			select {
			case n := <-c.notes:
				s.streams.appendLocked(st, n)
				continue
			default:
			}
			break
		}
		s.streams.appendLocked(st, m)
		if !st.get { // a session's GET stream never ends
			s.streams.finishLocked(st)
		}
	}
	for {
		select {
		case m := <-c.notes:
			s.mu.Lock()
			s.streams.appendLocked(st, m)
			s.mu.Unlock()
		case m := <-c.resp:
			final(m)
			return
		case <-c.ended:
			final(coreMsg{raw: wire.ErrorResponse(c.id, wire.CodeRequestCancelled, "request cancelled by the client")})
			return
		case <-s.done:
			final(coreMsg{raw: wire.ErrorResponse(c.id, jsonrpc.CodeInternalError, "session ended: "+s.reason)})
			return
		}
	}
}

// follow writes st's events after cursor until the stream is over and
// written, the client leaves, another reader takes over, or (the GET
// stream) the session ends or the gateway drains. It returns the stream's
// last message if it wrote the end of a stream that is over.
func (sw *Streamer) follow(r *http.Request, sse *wire.SSEWriter, s *Session, st *stream, cursor uint64, reader chan struct{}) []byte {
	defer s.detach(st, reader)
	var sessionDone, draining <-chan struct{}
	if st.get {
		sessionDone, draining = s.done, sw.Draining
	}
	tick := time.NewTicker(sw.KeepAlive)
	defer tick.Stop()
	for {
		evs, over, wake := s.next(st, cursor)
		for _, ev := range evs {
			if sw.writeEvent(sse, st, ev) != nil {
				return nil
			}
			cursor = ev.seq
			s.sent(st, cursor)
			s.Touch()
		}
		if over {
			if len(evs) > 0 {
				return evs[len(evs)-1].msg.raw
			}
			return nil
		}
		var err error
		select {
		case <-wake:
		case <-tick.C:
			err = sse.Comment("keep-alive")
		case <-r.Context().Done():
			return nil
		case <-reader:
			return nil
		case <-sessionDone:
			return nil
		case <-draining:
			return nil
		}
		if err != nil {
			return nil
		}
	}
}

// writeEvent writes one event of st: with its id, for resumption, except
// on a 2024-11-05 stream, which has none.
func (sw *Streamer) writeEvent(sse *wire.SSEWriter, st *stream, ev event) error {
	if st.legacy {
		return sse.Event(ev.msg.raw)
	}
	return sse.EventID(st.eventID(ev.seq), ev.msg.raw)
}

// noteOrStream delivers a request-scoped message on the request's stream,
// or on the session's GET stream when the client accepts only JSON.
func (sw *Streamer) noteOrStream(rp *wire.Reply, s *Session, m coreMsg) {
	if rp.Note(m.raw) {
		s.release(m)
		return
	}
	s.mu.Lock()
	s.toStreamLocked(m)
	s.mu.Unlock()
}

// drainNotes sends messages that arrived before the response, keeping order.
func (sw *Streamer) drainNotes(rp *wire.Reply, s *Session, c *Call) {
	for {
		select {
		case m := <-c.notes:
			sw.noteOrStream(rp, s, m)
		default:
			return
		}
	}
}

// Get writes the session's stream for messages not tied to a request on
// a GET's response (its caller found s and checked Accept). One stream
// per session: a second gets 409 and ends nothing. With Last-Event-ID, it
// resumes the stream that event was sent on instead (see resume).
func (sw *Streamer) Get(w http.ResponseWriter, r *http.Request, s *Session) {
	if ids := r.Header.Values("Last-Event-ID"); len(ids) > 0 {
		sw.resume(w, r, s, ids[0])
		return
	}
	s.mu.Lock()
	st := s.streams.getStreamLocked()
	if st.reader != nil {
		s.mu.Unlock()
		wire.WriteError(w, http.StatusConflict, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "this session already has an open GET stream")
		return
	}
	reader := s.streams.attachLocked(st)
	// What no GET has read yet comes first; with nothing due, a priming
	// id gives the client a cursor.
	cursor, prime := st.delivered, uint64(0)
	if cursor == st.seq && primes(r) {
		prime = s.streams.primeLocked(st)
		cursor = prime
	}
	s.mu.Unlock()
	sw.followGET(w, r, s, st, cursor, prime, reader)
}

// resume answers a GET with Last-Event-ID: the stream that event was sent
// on, from the event after it, and on until the stream is over (a POST's:
// its response) or the client leaves. A reader the stream still had is
// ended: the client says its connection is dead. An id that is malformed,
// unknown (another session's ids are), or older than what the stream kept
// gets 400 and a JSON-RPC error saying which; not 404, which tells a
// client its session is gone.
func (sw *Streamer) resume(w http.ResponseWriter, r *http.Request, s *Session, lastID string) {
	s.mu.Lock()
	st, cursor, err := s.streams.resumeLocked(lastID)
	if err != nil {
		s.mu.Unlock()
		wire.WriteError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, err.Error())
		return
	}
	reader := s.streams.attachLocked(st)
	s.mu.Unlock()
	sw.followGET(w, r, s, st, cursor, 0, reader)
}

// followGET writes st on a GET's response from cursor, after a priming id
// if prime is not 0.
func (sw *Streamer) followGET(w http.ResponseWriter, r *http.Request, s *Session, st *stream, cursor, prime uint64, reader chan struct{}) {
	if r.ContentLength == 0 {
		wire.UnboundReads(w) // a stream lasts as long as the client wants
	}
	sse := wire.StartSSE(w, sw.WriteTimeout)
	if prime != 0 && sse.Prime(st.eventID(prime)) != nil {
		s.detach(st, reader)
		return
	}
	sw.follow(r, sse, s, st, cursor, reader)
}

// FollowLegacy makes s a 2024-11-05 SSE session and writes its one stream
// on a GET's response: the endpoint event first, then everything the core
// sends, until the client leaves or the session ends.
func (sw *Streamer) FollowLegacy(w http.ResponseWriter, r *http.Request, s *Session, endpoint string) {
	s.mu.Lock()
	st := s.streams.getStreamLocked()
	st.legacy = true
	reader := s.streams.attachLocked(st)
	s.mu.Unlock()
	if r.ContentLength == 0 {
		wire.UnboundReads(w) // the stream lasts as long as the session
	}
	sse := wire.StartSSE(w, sw.WriteTimeout)
	if sse.Endpoint(endpoint) == nil {
		sw.follow(r, sse, s, st, 0, reader)
	} else {
		s.detach(st, reader)
	}
}

// SendLegacy sends the core c's request raw on a 2024-11-05 SSE session:
// whatever the core sends for it goes to the session's one stream.
func (s *Session) SendLegacy(c *Call, raw []byte) error {
	s.mu.Lock()
	st := s.streams.get
	c.stream = st
	s.mu.Unlock()
	if err := s.Core.Send(raw); err != nil {
		s.Forget(c)
		return err
	}
	go s.pump(c, st)
	return nil
}
