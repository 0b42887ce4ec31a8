package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/corecheck"
	"github.com/mjkoo/boris/gateway/wire"
	"github.com/mjkoo/boris/internal/version"
)

// statelessVersion is the MCP revision without sessions (docs/reference/gateway.md#stateless-requests-2026-07-28): no
// initialize, no Mcp-Session-Id; every request carries its protocol
// version and client capabilities in _meta and mirrors its method (and
// name) in headers.
const statelessVersion = "2026-07-28"

// allVersions are the revisions the gateway serves, newest first, as an
// UnsupportedProtocolVersionError lists them.
var allVersions = []string{statelessVersion, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// principalCore is what a core kept for one principal's 2026-07-28
// requests holds beside its session: the ids it gives requests, the
// subscriptions/listen streams it multiplexes, and what it knows of the
// core's tools' x-mcp-header parameters.
type principalCore struct {
	seq      atomic.Uint64    // numbers the ids and progress tokens the core is sent
	internal map[string]*call // the gateway's own requests, by id key; under session.mu
	hub      *listenHub
	tools    toolHeaders
}

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
	case v != statelessVersion:
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
	s := h.principalCore(w, r, id)
	if s == nil {
		return
	}
	switch m.Req.Method {
	case "subscriptions/listen":
		h.listen(w, r, s, m)
		return
	case "tools/call":
		if err := s.checkParamHeaders(r.Context(), r.Header, p); err != nil {
			status, code := http.StatusBadRequest, int64(wire.CodeHeaderMismatch)
			var jerr *jsonrpc.Error
			if errors.As(err, &jerr) {
				status, code = http.StatusServiceUnavailable, jerr.Code
			}
			wire.WriteError(w, status, id, code, err.Error())
			return
		}
	}
	raw, c, err := s.principal.rewrite(m, p)
	if err != nil {
		wire.WriteError(w, http.StatusBadRequest, id, jsonrpc.CodeInvalidRequest, err.Error())
		return
	}
	if !h.admit(w, m, s.add(c)) {
		return
	}
	h.exchange(w, r, s, m, c, raw, acc)
}

// rewrite gives a client's request an id (and, if it has one, a progress
// token) the core has not seen from another client of this principal, and
// returns what to send the core and the call that waits for the answer.
func (pc *principalCore) rewrite(m *wire.Message, p *wire.Request2026) ([]byte, *call, error) {
	tag := "gw-" + strconv.FormatUint(pc.seq.Add(1), 10)
	coreID, _ := jsonrpc.MakeID(tag)
	// The client's id goes back as it was sent, byte for byte (JSON-RPC
	// 2.0 §5): an id decoded and encoded again would not be its own (1.5
	// as 1, 2^63 as -2^63).
	clientID := wire.RawID(m.Req.ID)
	var clientToken json.RawMessage
	if tok := p.Meta["progressToken"]; len(tok) > 0 && string(tok) != "null" {
		clientToken = tok
		p.Meta["progressToken"] = mustJSON(tag)
	}
	// The core copies the tag into its logs about the request, which the
	// gateway routes by it (see relatedCall); a client's own value is
	// replaced.
	p.Meta[corecheck.RelatedRequestMeta] = mustJSON(tag)
	p.Params["_meta"] = mustJSON(p.Meta)
	params, err := json.Marshal(p.Params)
	if err != nil {
		return nil, nil, err
	}
	m.Req.Params = params // what the gateway logs (the tool's name) is what the core is sent
	method, _ := json.Marshal(m.Req.Method)
	raw := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%q,"method":%s,"params":%s}`, tag, method, params)
	token := ""
	if clientToken != nil {
		token = wire.TokenKey(tag)
	}
	c := newCall(m.Req.ID, coreID, token)
	c.clientID, c.clientToken = clientID, clientToken
	return raw, c, nil
}

// principalCore returns the core of the request's principal, starting it
// if there is none. On failure it answers the request and returns nil.
func (h *Handler) principalCore(w http.ResponseWriter, r *http.Request, id jsonrpc.ID) *session {
	p := h.opts.Principal(r)
	for {
		s, wait := h.table.principalCore(p.Key)
		if s != nil {
			s.touch()
			return s
		}
		if wait != nil {
			select {
			case <-wait:
				continue
			case <-r.Context().Done():
				return nil
			}
		}
		s = h.startPrincipalCore(w, p, id)
		h.table.started(p.Key, s)
		return s
	}
}

// startPrincipalCore starts p's core, answering the request if it cannot.
func (h *Handler) startPrincipalCore(w http.ResponseWriter, p Principal, id jsonrpc.ID) *session {
	if !h.reserve(w, p, id) {
		return nil
	}
	s, err := h.startSession(p, true)
	if err != nil {
		h.table.release(p)
		h.log.Error("cannot start core", "err", err)
		wire.WriteError(w, http.StatusInternalServerError, id, jsonrpc.CodeInternalError, "cannot start a core for this principal")
		return nil
	}
	h.table.bind(s, p)
	h.log.Info("principal core started", "session", s.id, "subject", s.subject)
	// The gateway's own listen goes first: the core learns of no client's
	// capabilities as the session's, and list changes reach the gateway
	// from the start (the tools' header cache depends on them).
	hub := s.principal.hub
	hub.opening.Lock()
	hub.open(nil)
	hub.opening.Unlock()
	return s
}

// ask sends the core a request of the gateway's own and returns the
// response, or an error if ctx ends, the core ends or the response is an
// error.
func (s *session) ask(ctx context.Context, method string, params map[string]any) (json.RawMessage, error) {
	c, raw, err := s.internalCall(method, params)
	if err != nil {
		return nil, err
	}
	defer s.dropInternal(c)
	if err := s.core.Send(raw); err != nil {
		return nil, err
	}
	select {
	case m := <-c.resp:
		s.release(m)
		msg, err := jsonrpc.DecodeMessage(m.raw)
		if err != nil {
			return nil, err
		}
		res, ok := msg.(*jsonrpc.Response)
		switch {
		case !ok:
			return nil, errors.New("the core answered with a request")
		case res.Error != nil:
			return nil, res.Error
		}
		return res.Result, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.done:
		return nil, errors.New("core ended: " + s.reason)
	}
}

// internalCall registers a request of the gateway's own.
func (s *session) internalCall(method string, params map[string]any) (*call, []byte, error) {
	tag := "gw-internal-" + strconv.FormatUint(s.principal.seq.Add(1), 10)
	id, _ := jsonrpc.MakeID(tag)
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = gatewayMeta()
	p, err := json.Marshal(params)
	if err != nil {
		return nil, nil, err
	}
	raw, err := jsonrpc.EncodeMessage(&jsonrpc.Request{ID: id, Method: method, Params: p})
	if err != nil {
		return nil, nil, err
	}
	c := newCall(id, id, "")
	s.mu.Lock()
	s.principal.internal[c.key] = c
	s.mu.Unlock()
	return c, raw, nil
}

func (s *session) dropInternal(c *call) {
	s.touch() // the idle clock starts once the gateway's own request ended
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.principal.internal[c.key] == c {
		delete(s.principal.internal, c.key)
	}
}

// gatewayMeta is the _meta of the gateway's own requests to a principal's
// core: the gateway speaks 2026-07-28 and offers no client capabilities.
func gatewayMeta() map[string]any {
	return map[string]any{
		mcp.MetaKeyProtocolVersion:    statelessVersion,
		mcp.MetaKeyClientCapabilities: map[string]any{},
		mcp.MetaKeyClientInfo:         map[string]any{"name": "boris-gateway", "version": version.Version},
	}
}

// deliverPrincipal routes what a principal's core sends that is not a
// response to a client's request: responses to the gateway's own requests,
// notifications of subscriptions, and requests, which a 2026-07-28 client
// cannot be sent (the revision has none from server to client) and which
// are refused at once so the core never waits for an answer. It reports
// whether it took msg. Called with s.mu held.
func (s *session) deliverPrincipal(msg coreMsg, m wire.Peeked) bool {
	pc := s.principal
	switch {
	case m.Method == "" && pc.internal[m.ID] != nil:
		c := pc.internal[m.ID]
		delete(pc.internal, m.ID)
		if pc.hub.answered(c, msg.raw) {
			s.release(msg)
		} else {
			c.resp <- msg
		}
		return true
	case m.Method != "" && m.ID != "":
		s.release(msg)
		if id, ok := wire.Member(msg.raw, "id"); ok {
			refusal := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, id, jsonrpc.CodeMethodNotFound,
				m.Method+" cannot reach a 2026-07-28 client: that revision has no requests from server to client")
			go func() { _ = s.core.Send(refusal) }()
		}
		return true
	case m.Method != "" && pc.hub.owns(m.Params):
		pc.hub.dispatch(m.Method, msg.raw, m.Params)
		s.release(msg)
		return true
	}
	return false
}

// relatedCall returns the request a principal's core tagged a log with
// (see corecheck.RelatedRequestMeta), and the log with the gateway's tag
// taken out; nil if the tag names no request in flight or there is none:
// a log of a principal's core goes to the request it is about, or
// nowhere, never to another client's request. Called with s.mu held.
func (s *session) relatedCall(msg coreMsg, m wire.Peeked) (*call, coreMsg) {
	tag, ok := wire.Member(m.Params, "_meta", corecheck.RelatedRequestMeta)
	if !ok {
		return nil, msg
	}
	c := s.calls[wire.RawIDKey(tag)]
	if c == nil {
		return nil, msg
	}
	if raw, ok := wire.WithMember(msg.raw, []byte("{}"), "params", "_meta"); ok {
		msg.raw = raw
	}
	return c, msg
}

// restore puts the client's val (its id or progress token, nil on a
// session) back at path in a message the core sent for c.
func (c *call) restore(msg coreMsg, val json.RawMessage, path ...string) coreMsg {
	if val == nil {
		return msg
	}
	if raw, ok := wire.WithMember(msg.raw, val, path...); ok {
		msg.raw = raw
	}
	return msg
}

// cancelAtCore tells the core a request's client closed its response
// stream: the 2026-07-28 cancellation.
func (s *session) cancelAtCore(c *call) {
	id, err := json.Marshal(c.coreID.Raw())
	if err != nil {
		return
	}
	_ = s.core.Send(fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"the client closed its response stream"}}`, id))
}

// listenTimeout bounds how long the gateway waits for its core to
// acknowledge a subscription.
const listenTimeout = 10 * time.Second
