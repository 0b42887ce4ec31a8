package gateway

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mjkoo/boris/gateway/wire"
)

// get opens the session's stream for messages not tied to a request (see
// sessions.Streamer.Get).
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
	h.streams.Get(w, r, s)
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
	h.table.End(s, "deleted by client")
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
