package gateway

import (
	"errors"
	"mime"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mjkoo/boris/gateway/sessions"
	"github.com/mjkoo/boris/gateway/wire"
)

// post handles a client message (Streamable HTTP "Sending Messages to the
// Server").
func (h *Handler) post(w http.ResponseWriter, r *http.Request) {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		wire.WriteError(w, http.StatusUnsupportedMediaType, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "Content-Type must be application/json")
		return
	}
	acc := wire.ParseAccept(r.Header.Get("Accept"))
	if !acc.JSON && !acc.SSE {
		wire.WriteError(w, http.StatusNotAcceptable, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "Accept must allow application/json or text/event-stream")
		return
	}
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
	m, ok := decodeBody(w, body)
	if !ok {
		return
	}
	// 2026-07-28 first: an initialize that says it is one is a method that
	// revision does not have, not the start of a session.
	if r.Header.Get("Mcp-Session-Id") == "" && statelessRequest(r, m) {
		h.stateless(w, r, m, acc)
		return
	}
	if m.Req != nil && m.Req.Method == "initialize" {
		h.initialize(w, r, m, acc)
		return
	}
	s := h.session(w, r)
	if s == nil {
		return
	}
	if !m.IsCall() {
		h.forward(w, s, m)
		return
	}
	h.call(w, r, s, m, acc)
}

// forward passes a notification or a response to the core: 202, no body.
func (h *Handler) forward(w http.ResponseWriter, s *sessions.Session, m *wire.Message) {
	if m.Req != nil && m.Req.Method == "notifications/cancelled" {
		// Forwarded unchanged; the request it names gets no response from
		// the core, so its HTTP request is ended here.
		defer s.Cancel(wire.CancelledRawID(m.Req.Params), wire.CancelledID(m.Req.Params))
	}
	if err := s.Core.Send(m.Raw); err != nil {
		wire.WriteError(w, http.StatusNotFound, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "session ended")
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// initialize starts a session: a fresh core gets the client's initialize
// verbatim, so the core negotiates with the real client.
func (h *Handler) initialize(w http.ResponseWriter, r *http.Request, m *wire.Message, acc wire.Accepts) {
	if r.Header.Get("Mcp-Session-Id") != "" {
		wire.WriteError(w, http.StatusBadRequest, m.Req.ID, jsonrpc.CodeInvalidRequest, "initialize must not carry Mcp-Session-Id: a session is initialized once")
		return
	}
	if !m.IsCall() {
		wire.WriteError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "initialize must be a request with an id")
		return
	}
	p := h.opts.Principal(r)
	if !h.reserve(w, p, m.Req.ID) {
		return
	}
	s, err := h.cores.startSession(p, false)
	if err != nil {
		h.table.Release(p.owner())
		h.log.Error("cannot start core", "err", err)
		wire.WriteError(w, http.StatusInternalServerError, m.Req.ID, jsonrpc.CodeInternalError, "cannot start a core for this session")
		return
	}
	// Bound before its id is given out: no request can use it unbound.
	h.table.Bind(s, p.owner())
	h.log.Info("session started", "session", s.ID, "subject", s.Subject)
	w.Header().Set("Mcp-Session-Id", s.ID)
	c, err := s.Register(m)
	if !admit(w, m, err) {
		h.table.End(s, "initialize refused")
		return
	}
	// A session exists once its initialize succeeded: one the core refused
	// (an unsupported protocolVersion, malformed params) or whose client
	// left before the answer is ended at once, not left to idle out.
	if res := h.exchange(w, r, s, m, c, m.Raw, acc); res == nil || wire.ResponseOutcome(res) == "error" {
		h.table.End(s, "initialize failed")
	}
}

// reserve claims a slot for a new core of p, answering 429 or 503 (and
// returning false) if there is none.
func (h *Handler) reserve(w http.ResponseWriter, p Principal, id jsonrpc.ID) bool {
	if h.closing.Load() {
		w.Header().Set("Retry-After", "1")
		wire.WriteError(w, http.StatusServiceUnavailable, id, jsonrpc.CodeInternalError, "this node is draining: it starts no session; retry (a load balancer sends the retry to another node)")
		return false
	}
	err := h.table.Reserve(p.owner(), h.opts.MaxPerSubject)
	if err == nil {
		return true
	}
	h.log.Info("session refused", "subject", p.Subject, "reason", err)
	w.Header().Set("Retry-After", "10")
	if errors.Is(err, sessions.ErrSubjectFull) {
		wire.WriteError(w, http.StatusTooManyRequests, id, jsonrpc.CodeInternalError, err.Error()+"; end one or retry later")
		return false
	}
	wire.WriteError(w, http.StatusServiceUnavailable, id, jsonrpc.CodeInternalError, "the gateway is at its session limit; retry later")
	return false
}

// coreGoneWait bounds how long a request that found its core gone waits
// for the session to end with the core's reason.
const coreGoneWait = 3 * time.Second

// call forwards a request and streams back what the core sends for it.
func (h *Handler) call(w http.ResponseWriter, r *http.Request, s *sessions.Session, m *wire.Message, acc wire.Accepts) {
	c, err := s.Register(m)
	if !admit(w, m, err) {
		return
	}
	h.exchange(w, r, s, m, c, m.Raw, acc)
}

// admit answers a request its session could not take in (err from
// session.add): 429 when too many are in flight, else 400.
func admit(w http.ResponseWriter, m *wire.Message, err error) bool {
	switch {
	case errors.Is(err, sessions.ErrTooMany):
		w.Header().Set("Retry-After", "1")
		wire.WriteError(w, http.StatusTooManyRequests, m.Req.ID, jsonrpc.CodeInternalError, err.Error())
		return false
	case err != nil:
		wire.WriteError(w, http.StatusBadRequest, m.Req.ID, jsonrpc.CodeInvalidRequest, err.Error())
		return false
	}
	return true
}

// exchange sends the core raw, the request c waits for, and streams back
// what the core sends for it. It returns the response, or nil if there was
// none.
func (h *Handler) exchange(w http.ResponseWriter, r *http.Request, s *sessions.Session, m *wire.Message, c *sessions.Call, raw []byte, acc wire.Accepts) []byte {
	start := time.Now()
	if err := s.Core.Send(raw); err != nil {
		// The core is gone. Its router sees that too and ends the session,
		// logging why the core exited (a core that fails to start says so
		// on stderr); the answer waits for that, or the session would end
		// here first, unexplained.
		select {
		case <-s.Done():
		case <-time.After(coreGoneWait):
		}
		s.Forget(c)
		wire.WriteError(w, http.StatusNotFound, m.Req.ID, jsonrpc.CodeInvalidRequest, "session ended")
		return nil
	}
	if m.Req.Method != "tools/call" {
		return h.streams.Await(w, r, s, c, acc)
	}
	tool := wire.ToolName(m.Req.Params)
	defer h.obs.Begin(s.ID, tool, start)()
	// A call answered on a resumable stream is logged when its response
	// comes, read or not: a client that lost its connection may resume and
	// read it (see streamCall); one answered here is logged as it ends.
	var once sync.Once
	logged := func(res []byte) { once.Do(func() { h.logToolCall(s, tool, res, time.Since(start)) }) }
	c.Finished = logged
	res := h.streams.Await(w, r, s, c, acc)
	if !s.Streamed(c) {
		logged(res)
	}
	return res
}

// logToolCall writes the one log line per tool call: never arguments or
// results, only what happened. res is nil when the call ended without a
// response: its client left (abandoned; on 2026-07-28, cancelled).
func (h *Handler) logToolCall(s *sessions.Session, tool string, res []byte, d time.Duration) {
	result := "abandoned"
	if s.IsPrincipal() {
		result = "cancelled" // a 2026-07-28 client closed its stream
	}
	if res != nil {
		result = wire.ResponseOutcome(res)
	}
	h.log.Info("tool call", "session", s.ID, "subject", s.Subject, "tool", tool,
		"duration", d.Round(time.Microsecond), "outcome", result)
	h.obs.ToolCall(s.ID, s.Subject, h.table.OwnerOf(s), tool, d, result)
}

// decodeBody decodes a POSTed message, answering 400 for what is not one
// (a batch, a message nested too deep, invalid JSON-RPC).
func decodeBody(w http.ResponseWriter, body []byte) (*wire.Message, bool) {
	m, err := wire.Decode(body)
	switch {
	case err == wire.ErrBatch:
		wire.WriteError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, err.Error())
		return nil, false
	case err == wire.ErrTooDeep:
		// Answered here, with its id when it has one: a core would answer
		// it with id null, and the request would wait for ever.
		wire.WriteError(w, http.StatusBadRequest, wire.IDOf(body), jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
		return nil, false
	case err != nil:
		wire.WriteError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeParseError, "invalid JSON-RPC message: "+err.Error())
		return nil, false
	}
	return m, true
}
