package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/gateway/sessions"
	"github.com/mjkoo/boris/gateway/wire"
)

// allVersions are the revisions the gateway serves, newest first, as an
// UnsupportedProtocolVersionError lists them.
var allVersions = []string{wire.StatelessVersion, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// statelessRequest reports whether a message that names no session
// follows the 2026-07-28 rules: its MCP-Protocol-Version is not one of the
// session revisions (it is 2026-07-28, or a revision the gateway does not
// know, which is answered with the ones it does), or its _meta names a
// protocol version.
func statelessRequest(r *http.Request, m *wire.Message) bool {
	if v := r.Header.Get("MCP-Protocol-Version"); v != "" && !slices.Contains(supportedVersions, v) {
		return true
	}
	if m.Req == nil || !bytes.Contains(m.Req.Params, []byte(mcp.MetaKeyProtocolVersion)) {
		return false
	}
	p, err := m.Params2026()
	return err == nil && p.Version() != ""
}

// stateless serves a 2026-07-28 message: validated against its headers,
// then handed to its principal's core.
func (h *Handler) stateless(w http.ResponseWriter, r *http.Request, m *wire.Message, acc wire.Accepts) {
	var id jsonrpc.ID
	if m.Req != nil {
		id = m.Req.ID
	}
	v := r.Header.Get("MCP-Protocol-Version")
	switch {
	case m.Res != nil:
		wire.WriteError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "a 2026-07-28 client sends no JSON-RPC responses: the gateway sends it no requests")
		return
	case v == "":
		wire.WriteError(w, http.StatusBadRequest, id, wire.CodeHeaderMismatch, "missing MCP-Protocol-Version header: a 2026-07-28 request carries it, equal to _meta's "+mcp.MetaKeyProtocolVersion)
		return
	case v != wire.StatelessVersion:
		data, _ := json.Marshal(mcp.UnsupportedProtocolVersionData{Supported: allVersions, Requested: v})
		wire.WriteErrorData(w, http.StatusBadRequest, id, wire.CodeUnsupportedVersion, "unsupported protocol version "+v, data)
		return
	case !m.IsCall():
		// The revision defines no client notifications over HTTP (closing a
		// response stream is the cancellation): accepted, and dropped.
		w.WriteHeader(http.StatusAccepted)
		return
	}
	p, err := m.Params2026()
	switch {
	case err != nil:
		wire.WriteError(w, http.StatusBadRequest, id, jsonrpc.CodeInvalidParams, err.Error())
		return
	case p.Version() == "":
		wire.WriteError(w, http.StatusBadRequest, id, jsonrpc.CodeInvalidParams, "params._meta must carry "+mcp.MetaKeyProtocolVersion+" (and the client's capabilities): a 2026-07-28 request names its revision")
		return
	case m.Req.Method == "initialize":
		wire.WriteError(w, http.StatusNotFound, id, jsonrpc.CodeMethodNotFound, "initialize is not a 2026-07-28 method: send requests directly (server/discover tells what the server offers)")
		return
	}
	if err := wire.CheckHeaders(r.Header, m.Req.Method, p); err != nil {
		wire.WriteError(w, http.StatusBadRequest, id, wire.CodeHeaderMismatch, "header mismatch: "+err.Error())
		return
	}
	s, routed := h.principalCore(w, r, id)
	if s == nil {
		return
	}
	defer routed()
	switch m.Req.Method {
	case "subscriptions/listen":
		h.streams.Listen(w, r, s, m)
		return
	case "tools/call":
		if err := s.CheckParamHeaders(r.Context(), r.Header, p); err != nil {
			status, code := http.StatusBadRequest, int64(wire.CodeHeaderMismatch)
			var jerr *jsonrpc.Error
			if errors.As(err, &jerr) {
				status, code = http.StatusServiceUnavailable, jerr.Code
			}
			wire.WriteError(w, status, id, code, err.Error())
			return
		}
	}
	raw, c, err := s.Rewrite(m, p)
	if err != nil {
		wire.WriteError(w, http.StatusBadRequest, id, jsonrpc.CodeInvalidRequest, err.Error())
		return
	}
	if !admit(w, m, s.Add(c)) {
		return
	}
	routed() // in flight now
	h.exchange(w, r, s, m, c, raw, acc)
}

// principalCore returns the core of the request's principal, starting it
// if there is none, with the request routed to it (Session.Hold: it is
// not idle until the request is in flight; call routed then). On failure
// it answers the request and returns nil.
func (h *Handler) principalCore(w http.ResponseWriter, r *http.Request, id jsonrpc.ID) (s *sessions.Session, routed func()) {
	p := h.opts.Principal(r)
	for {
		s, release, wait := h.table.PrincipalCore(p.Key)
		if s != nil {
			return s, release
		}
		if wait != nil {
			select {
			case <-wait:
				continue
			case <-r.Context().Done():
				return nil, nil
			}
		}
		s, routed = h.startPrincipalCore(w, p, id)
		if s == nil {
			h.table.Started(p.Key, nil)
			return nil, nil
		}
		h.table.Started(p.Key, s)
		return s, routed
	}
}

// startPrincipalCore starts p's core, answering the request if it cannot.
// The core is held for the request (routed releases it) before the table
// holds it, where the idle reaper sees it: its start may have taken longer
// than the idle timeout.
func (h *Handler) startPrincipalCore(w http.ResponseWriter, p Principal, id jsonrpc.ID) (s *sessions.Session, routed func()) {
	if !h.reserve(w, p, id) {
		return nil, nil
	}
	s, err := h.cores.startSession(p, true)
	if err != nil {
		h.table.Release(p.owner())
		h.log.Error("cannot start core", "err", err)
		wire.WriteError(w, http.StatusInternalServerError, id, jsonrpc.CodeInternalError, "cannot start a core for this principal")
		return nil, nil
	}
	routed = s.Hold()
	h.table.Bind(s, p.owner())
	h.log.Info("principal core started", "session", s.ID, "subject", s.Subject)
	s.StartListen() // the gateway's own listen goes first
	return s, routed
}
