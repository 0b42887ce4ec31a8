package gateway

import (
	"net/http"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// reply is how a request's HTTP response is written. Headers wait until the
// first message: a lone response goes out as application/json when the
// client accepts it; anything before it (progress) switches to
// text/event-stream.
type reply struct {
	w       http.ResponseWriter
	acc     accepts
	sse     *sseWriter
	timeout time.Duration // per piece written, see writeParts
	// stateless: a 2026-07-28 error response sent as JSON has the HTTP
	// status its code calls for (see statusOf).
	stateless bool
}

// note sends a message tied to the request, starting a stream if needed.
// It reports false when the client accepts only JSON, which cannot carry it.
func (rp *reply) note(raw []byte) bool {
	if rp.sse == nil {
		if !rp.acc.sse {
			return false
		}
		rp.sse = startSSE(rp.w, rp.timeout)
	}
	_ = rp.sse.event(raw)
	return true
}

// final sends the response and ends the reply.
func (rp *reply) final(raw []byte) {
	if rp.sse == nil && rp.acc.json {
		// Sized and flushed now, so the client has its answer before the
		// handler's bookkeeping (the tool-call log line) runs.
		h := rp.w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(raw)))
		if rp.stateless {
			rp.w.WriteHeader(statusOf(raw))
		}
		_ = writeParts(rp.w, http.NewResponseController(rp.w), rp.timeout, raw)
		return
	}
	rp.note(raw)
}

// keepAlive sends a keep-alive comment, opening the stream if allowed.
func (rp *reply) keepAlive() {
	if rp.sse == nil && rp.acc.sse {
		rp.sse = startSSE(rp.w, rp.timeout)
	}
	if rp.sse != nil {
		_ = rp.sse.comment("keep-alive")
	}
}

// await writes everything the core sends for c until its response, and
// returns that response (nil if there was none). Each message's budget is
// released once it is written.
func (h *Handler) await(w http.ResponseWriter, r *http.Request, s *session, c *call, acc accepts) []byte {
	rp := &reply{w: w, acc: acc, timeout: h.opts.WriteTimeout, stateless: s.principal != nil}
	defer s.leave(c)
	tick := time.NewTicker(h.opts.KeepAlive)
	defer tick.Stop()
	for {
		select {
		case m := <-c.notes:
			h.noteOrStream(rp, s, m)
		case m := <-c.resp:
			h.drainNotes(rp, s, c)
			rp.final(m.raw)
			s.release(m)
			return m.raw
		case <-tick.C:
			rp.keepAlive()
		case <-c.ended:
			rp.final(errorResponse(c.id, codeRequestCancelled, "request cancelled by the client"))
			return nil
		case <-s.done:
			h.drainNotes(rp, s, c)
			rp.final(errorResponse(c.id, jsonrpc.CodeInternalError, "session ended: "+s.reason))
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
func (h *Handler) noteOrStream(rp *reply, s *session, m coreMsg) {
	if rp.note(m.raw) {
		s.release(m)
		return
	}
	s.mu.Lock()
	s.toStreamLocked(m)
	s.mu.Unlock()
}

// drainNotes sends messages that arrived before the response, keeping order.
func (h *Handler) drainNotes(rp *reply, s *session, c *call) {
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
	if !parseAccept(r.Header.Get("Accept")).sse {
		writeError(w, http.StatusNotAcceptable, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "GET needs Accept: text/event-stream")
		return
	}
	s := h.session(w, r)
	if s == nil {
		return
	}
	ch, ok := s.openStream()
	if !ok {
		writeError(w, http.StatusConflict, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "this session already has an open GET stream")
		return
	}
	defer s.closeStream(ch)
	if r.ContentLength == 0 {
		unboundReads(w) // a stream lasts as long as the client wants
	}
	sse := startSSE(w, h.opts.WriteTimeout)
	tick := time.NewTicker(h.opts.KeepAlive)
	defer tick.Stop()
	for {
		var err error
		select {
		case m := <-ch:
			err = sse.event(m.raw)
			s.release(m)
		case <-tick.C:
			err = sse.comment("keep-alive")
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
	writeError(w, http.StatusMethodNotAllowed, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest,
		r.Method+" needs an Mcp-Session-Id: it opens or ends a session's stream (2025 revisions); without a session, POST every message")
	return true
}
