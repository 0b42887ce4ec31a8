package gateway

import (
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"path"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mjkoo/boris/gateway/sessions"
	"github.com/mjkoo/boris/gateway/wire"
)

// The 2024-11-05 HTTP+SSE transport, for clients that have not moved to
// Streamable HTTP (https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse):
// "The server MUST provide two endpoints: 1. An SSE endpoint, for clients to
// establish a connection and receive messages from the server 2. A regular
// HTTP POST endpoint for clients to send messages to the server". Both are
// Options.SSEPath: a GET opens a session, with a core of its own, and its
// stream; a POST with ?sessionId= sends the session a message. "When a
// client connects, the server MUST send an endpoint event containing a URI
// for the client to use for sending messages"; every message the core
// sends, answers included, comes on the stream as a "message" event.
//
// A legacy session is an ordinary session (the same table, limits,
// ownership, metrics and logs): its GET stream is the one stream it has,
// and everything the core sends goes there. The stream is not resumable
// (the transport has no resumption), so an event is dropped once written;
// what is unread holds the session's budget like any reply. The session
// lives as long as its stream: when the client closes it, or stops reading
// for --write-timeout, the session ends and its core is killed.

// sessionParam is the query parameter naming a legacy session on POSTs, as
// the official TypeScript SDK's SSEServerTransport spells it.
const sessionParam = "sessionId"

// serveSSE dispatches the 2024-11-05 SSE endpoint's methods.
func (h *Handler) serveSSE(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		h.openSSE(w, r)
	case http.MethodPost:
		h.postSSE(w, r)
	default:
		w.Header().Set("Allow", "GET, POST")
		wire.WriteError(w, http.StatusMethodNotAllowed, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest,
			"method not allowed: GET opens a 2024-11-05 SSE session, POST ?"+sessionParam+"= sends it a message")
	}
}

// openSSE starts a session and writes its stream until the client leaves
// or the session ends, then ends the session.
func (h *Handler) openSSE(w http.ResponseWriter, r *http.Request) {
	if !wire.ParseAccept(r.Header.Get("Accept")).SSE {
		wire.WriteError(w, http.StatusNotAcceptable, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "GET needs Accept: text/event-stream")
		return
	}
	p := h.opts.Principal(r)
	if !h.reserve(w, p, jsonrpc.ID{}) {
		return
	}
	s, err := h.cores.startSession(p, false)
	if err != nil {
		h.table.Release(p.owner())
		h.log.Error("cannot start core", "err", err)
		wire.WriteError(w, http.StatusInternalServerError, jsonrpc.ID{}, jsonrpc.CodeInternalError, "cannot start a core for this session")
		return
	}
	h.table.Bind(s, p.owner())
	h.log.Info("session started", "session", s.ID, "subject", s.Subject, "transport", "sse")
	h.streams.FollowLegacy(w, r, s, endpointFor(h.opts.SSEPath, s.ID))
	h.table.End(s, "SSE stream closed")
}

// endpointFor is the endpoint event's URI: a reference relative to the SSE
// endpoint (its last segment and the query), so it resolves to the same
// path whatever prefix a reverse proxy puts before it.
func endpointFor(ssePath, id string) string {
	return path.Base(ssePath) + "?" + url.Values{sessionParam: {id}}.Encode()
}

// postSSE takes a client message for a legacy session: 202 once the core
// has it; whatever the core sends for it comes on the session's stream.
func (h *Handler) postSSE(w http.ResponseWriter, r *http.Request) {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		wire.WriteError(w, http.StatusUnsupportedMediaType, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "Content-Type must be application/json")
		return
	}
	s := h.legacySession(w, r)
	if s == nil {
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
	if !m.IsCall() {
		h.forward(w, s, m)
		return
	}
	c, err := s.Register(m)
	if !admit(w, m, err) {
		return
	}
	h.sendLegacy(w, s, m, c)
}

// legacySession finds the legacy session a POST names: 400 when it names
// none, 404 when it is unknown, ended, another principal's, or a
// Streamable HTTP session (whose messages go to /mcp).
func (h *Handler) legacySession(w http.ResponseWriter, r *http.Request) *sessions.Session {
	sid := r.URL.Query().Get(sessionParam)
	if sid == "" {
		wire.WriteError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest,
			"missing ?"+sessionParam+"=: POST to the endpoint the SSE stream's endpoint event gave")
		return nil
	}
	s := h.table.Lookup(sid, h.opts.Principal(r).Key)
	if s == nil || !s.Legacy() {
		wire.WriteError(w, http.StatusNotFound, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest,
			"session not found: it ended (its SSE stream closed) or never existed; open a new SSE stream")
		return nil
	}
	s.Touch()
	return s
}

// sendLegacy sends the core a request whose answer goes to the session's
// stream, and answers 202. A tool call is shown on the dashboard while it
// runs and logged when its response comes, as on Streamable HTTP.
func (h *Handler) sendLegacy(w http.ResponseWriter, s *sessions.Session, m *wire.Message, c *sessions.Call) {
	start := time.Now()
	if m.Req.Method == "tools/call" {
		tool := wire.ToolName(m.Req.Params)
		end := h.obs.Begin(s.ID, tool, start)
		var once sync.Once
		c.Finished = func(res []byte) {
			once.Do(func() {
				end()
				h.logToolCall(s, tool, res, time.Since(start))
			})
		}
	}
	if err := s.SendLegacy(c, m.Raw); err != nil {
		if c.Finished != nil {
			c.Finished(nil)
		}
		wire.WriteError(w, http.StatusNotFound, m.Req.ID, jsonrpc.CodeInvalidRequest, "session ended")
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// validSSEPath reports why p cannot be the SSE endpoint's path ("" if it
// can): an absolute path of its own, not one the gateway serves already.
func validSSEPath(p string) string {
	switch {
	case p == "" || p[0] != '/' || p == "/":
		return "want an absolute path such as /sse, or off"
	case path.Clean(p) != p:
		return "want a clean path, without a trailing slash, dot segments or doubled slashes"
	}
	for _, taken := range []string{"/mcp", "/healthz", "/dashboard", "/metrics", "/.well-known"} {
		if p == taken || len(p) > len(taken) && p[:len(taken)+1] == taken+"/" {
			return fmt.Sprintf("%s is the gateway's own", taken)
		}
	}
	for _, c := range p {
		if c <= ' ' || c == '?' || c == '#' || c == '{' || c == '}' || c >= 0x7f {
			return "want a path of visible ASCII without ?, #, { or }"
		}
	}
	return ""
}
