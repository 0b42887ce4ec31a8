package gateway

import (
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mjkoo/boris/gateway/wire"
)

// await writes everything the core sends for c until its response, and
// returns that response (nil if there was none). Each message's budget is
// released once it is written.
func (h *Handler) await(w http.ResponseWriter, r *http.Request, s *session, c *call, acc wire.Accepts) []byte {
	rp := &wire.Reply{Writer: w, Accepts: acc, Timeout: h.opts.WriteTimeout, Stateless: s.principal != nil}
	defer s.leave(c)
	tick := time.NewTicker(h.opts.KeepAlive)
	defer tick.Stop()
	for {
		select {
		case m := <-c.notes:
			h.noteOrStream(rp, s, m)
		case m := <-c.resp:
			h.drainNotes(rp, s, c)
			rp.Final(m.raw)
			s.release(m)
			return m.raw
		case <-tick.C:
			rp.KeepAlive()
		case <-c.ended:
			rp.Final(wire.ErrorResponse(c.id, wire.CodeRequestCancelled, "request cancelled by the client"))
			return nil
		case <-s.done:
			h.drainNotes(rp, s, c)
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

// noteOrStream delivers a request-scoped message on the request's stream,
// or on the session's GET stream when the client accepts only JSON.
func (h *Handler) noteOrStream(rp *wire.Reply, s *session, m coreMsg) {
	if rp.Note(m.raw) {
		s.release(m)
		return
	}
	s.mu.Lock()
	s.toStreamLocked(m)
	s.mu.Unlock()
}

// drainNotes sends messages that arrived before the response, keeping order.
func (h *Handler) drainNotes(rp *wire.Reply, s *session, c *call) {
	for {
		select {
		case m := <-c.notes:
			h.noteOrStream(rp, s, m)
		default:
			return
		}
	}
}

// get opens the session's stream for messages not tied to a request. One
// stream per session: a second gets 409 and ends nothing.
func (h *Handler) get(w http.ResponseWriter, r *http.Request) {
	if noSession(w, r) {
		return
	}
	if !wire.ParseAccept(r.Header.Get("Accept")).SSE {
		wire.WriteError(w, http.StatusNotAcceptable, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "GET needs Accept: text/event-stream")
		return
	}
	s := h.session(w, r)
	if s == nil {
		return
	}
	ch, ok := s.openStream()
	if !ok {
		wire.WriteError(w, http.StatusConflict, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "this session already has an open GET stream")
		return
	}
	defer s.closeStream(ch)
	if r.ContentLength == 0 {
		wire.UnboundReads(w) // a stream lasts as long as the client wants
	}
	sse := wire.StartSSE(w, h.opts.WriteTimeout)
	tick := time.NewTicker(h.opts.KeepAlive)
	defer tick.Stop()
	for {
		var err error
		select {
		case m := <-ch:
			err = sse.Event(m.raw)
			s.release(m)
		case <-tick.C:
			err = sse.Comment("keep-alive")
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		case <-h.draining:
			return
		}
		if err != nil {
			return
		}
		s.touch()
	}
}

// delete ends a session at the client's request: its core is killed with
// its process group before the 204, and the id gives 404 from then on.
func (h *Handler) delete(w http.ResponseWriter, r *http.Request) {
	if noSession(w, r) {
		return
	}
	s := h.session(w, r)
	if s == nil {
		return
	}
	h.table.end(s, "deleted by client")
	w.WriteHeader(http.StatusNoContent)
}

// noSession answers 405 to a GET or DELETE that names no session: only a
// session (2025 revisions) has a stream to open or an end; 2026-07-28
// clients POST every message.
func noSession(w http.ResponseWriter, r *http.Request) bool {
	if r.Header.Get("Mcp-Session-Id") != "" {
		return false
	}
	w.Header().Set("Allow", "POST")
	wire.WriteError(w, http.StatusMethodNotAllowed, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest,
		r.Method+" needs an Mcp-Session-Id: it opens or ends a session's stream (2025 revisions); without a session, POST every message")
	return true
}
