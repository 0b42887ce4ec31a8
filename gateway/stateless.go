package gateway

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core"
)

// statelessVersion is the MCP revision without sessions (SPEC §10): no
// initialize, no Mcp-Session-Id; every request carries its protocol
// version and client capabilities in _meta and mirrors its method (and
// name) in headers.
const statelessVersion = "2026-07-28"

// allVersions are the revisions the gateway serves, newest first, as an
// UnsupportedProtocolVersionError lists them.
var allVersions = []string{statelessVersion, "2025-11-25", "2025-06-18", "2025-03-26"}

// Error codes of the 2026-07-28 revision.
const (
	codeHeaderMismatch     = mcp.CodeHeaderMismatch             // -32020
	codeUnsupportedVersion = mcp.CodeUnsupportedProtocolVersion // -32022
)

// nameMethods are the methods whose params.name (or params.uri) a request
// mirrors in Mcp-Name.
var nameMethods = map[string]string{"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}

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

// request2026 is a 2026-07-28 request's params, parsed once: what the
// gateway checks is what the core is sent (params are re-encoded from
// this parse, so a body with a member twice cannot show the gateway one
// value and the core another).
type request2026 struct {
	params map[string]json.RawMessage
	meta   map[string]json.RawMessage // params._meta
}

// parse2026 parses params; nil params are an empty object.
func parse2026(raw json.RawMessage) (*request2026, error) {
	r := &request2026{params: map[string]json.RawMessage{}, meta: map[string]json.RawMessage{}}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &r.params); err != nil {
			return nil, errors.New("params must be an object")
		}
	}
	if m := r.params["_meta"]; len(m) > 0 && string(m) != "null" {
		if err := json.Unmarshal(m, &r.meta); err != nil {
			return nil, errors.New("params._meta must be an object")
		}
	}
	return r, nil
}

// str returns the string at raw, or "" if it is none.
func str(raw json.RawMessage) string {
	var v string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &v) != nil {
		return ""
	}
	return v
}

// version is _meta's protocol version, or "".
func (r *request2026) version() string { return str(r.meta[mcp.MetaKeyProtocolVersion]) }

// statelessRequest reports whether a message that names no session
// follows the 2026-07-28 rules: its MCP-Protocol-Version is not one of the
// session revisions (it is 2026-07-28, or a revision the gateway does not
// know, which is answered with the ones it does), or its _meta names a
// protocol version.
func statelessRequest(r *http.Request, m *message) bool {
	if v := r.Header.Get("MCP-Protocol-Version"); v != "" && !slices.Contains(supportedVersions, v) {
		return true
	}
	if m.req == nil || !bytes.Contains(m.req.Params, []byte(mcp.MetaKeyProtocolVersion)) {
		return false
	}
	p, err := m.params2026()
	return err == nil && p.version() != ""
}

// params2026 parses a request's params as a 2026-07-28 request's, once.
func (m *message) params2026() (*request2026, error) {
	if m.parsed != nil {
		return m.parsed, nil
	}
	p, err := parse2026(m.req.Params)
	m.parsed = p
	return p, err
}

// stateless serves a 2026-07-28 message: validated against its headers,
// then handed to its principal's core.
func (h *Handler) stateless(w http.ResponseWriter, r *http.Request, m *message, acc accepts) {
	var id jsonrpc.ID
	if m.req != nil {
		id = m.req.ID
	}
	v := r.Header.Get("MCP-Protocol-Version")
	switch {
	case m.res != nil:
		writeError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "a 2026-07-28 client sends no JSON-RPC responses: the gateway sends it no requests")
		return
	case v == "":
		writeError(w, http.StatusBadRequest, id, codeHeaderMismatch, "missing MCP-Protocol-Version header: a 2026-07-28 request carries it, equal to _meta's "+mcp.MetaKeyProtocolVersion)
		return
	case v != statelessVersion:
		data, _ := json.Marshal(mcp.UnsupportedProtocolVersionData{Supported: allVersions, Requested: v})
		writeErrorData(w, http.StatusBadRequest, id, codeUnsupportedVersion, "unsupported protocol version "+v, data)
		return
	case !m.isCall():
		// The revision defines no client notifications over HTTP (closing a
		// response stream is the cancellation): accepted, and dropped.
		w.WriteHeader(http.StatusAccepted)
		return
	}
	p, err := m.params2026()
	switch {
	case err != nil:
		writeError(w, http.StatusBadRequest, id, jsonrpc.CodeInvalidParams, err.Error())
		return
	case p.version() == "":
		writeError(w, http.StatusBadRequest, id, jsonrpc.CodeInvalidParams, "params._meta must carry "+mcp.MetaKeyProtocolVersion+" (and the client's capabilities): a 2026-07-28 request names its revision")
		return
	case m.req.Method == "initialize":
		writeError(w, http.StatusNotFound, id, jsonrpc.CodeMethodNotFound, "initialize is not a 2026-07-28 method: send requests directly (server/discover tells what the server offers)")
		return
	}
	if err := checkHeaders(r.Header, m.req.Method, p); err != nil {
		writeError(w, http.StatusBadRequest, id, codeHeaderMismatch, "header mismatch: "+err.Error())
		return
	}
	s := h.principalCore(w, r, id)
	if s == nil {
		return
	}
	switch m.req.Method {
	case "subscriptions/listen":
		h.listen(w, r, s, m)
		return
	case "tools/call":
		if err := s.checkParamHeaders(r.Context(), r.Header, p); err != nil {
			status, code := http.StatusBadRequest, int64(codeHeaderMismatch)
			var jerr *jsonrpc.Error
			if errors.As(err, &jerr) {
				status, code = http.StatusServiceUnavailable, jerr.Code
			}
			writeError(w, status, id, code, err.Error())
			return
		}
	}
	raw, c, err := s.principal.rewrite(m, p)
	if err != nil {
		writeError(w, http.StatusBadRequest, id, jsonrpc.CodeInvalidRequest, err.Error())
		return
	}
	if !h.admit(w, m, s.add(c)) {
		return
	}
	h.exchange(w, r, s, m, c, raw, acc)
}

// checkHeaders validates the standard request headers against the body:
// MCP-Protocol-Version against _meta, Mcp-Method, and Mcp-Name where the
// method has a name.
func checkHeaders(hdr http.Header, method string, p *request2026) error {
	for name, vals := range hdr {
		if !strings.HasPrefix(name, "Mcp-") {
			continue
		}
		for _, v := range vals {
			if !headerSafe(v) {
				return fmt.Errorf("%s header value holds characters a header may not carry (use the =?base64?...?= form)", name)
			}
		}
	}
	if hv, mv := hdr.Get("MCP-Protocol-Version"), p.version(); hv != mv {
		return fmt.Errorf("MCP-Protocol-Version header value '%s' does not match body value '%s'", hv, mv)
	}
	switch hm := hdr.Get("Mcp-Method"); {
	case hm == "":
		return errors.New("missing required Mcp-Method header")
	case hm != method:
		return fmt.Errorf("Mcp-Method header value '%s' does not match body value '%s'", hm, method)
	}
	field, named := nameMethods[method]
	if !named {
		return nil
	}
	raw := hdr.Get("Mcp-Name")
	if raw == "" {
		return fmt.Errorf("missing required Mcp-Name header for method %s", method)
	}
	name, err := decodeHeader(raw)
	if err != nil {
		return fmt.Errorf("Mcp-Name: %v", err)
	}
	body := p.params[field]
	if str(body) == "" {
		return fmt.Errorf("Mcp-Name header value '%s' does not match the body, which has no params.%s string", name, field)
	}
	if name != str(body) {
		return fmt.Errorf("Mcp-Name header value '%s' does not match body value '%s'", name, str(body))
	}
	return nil
}

// headerSafe reports whether v is a plain header value: visible ASCII,
// space and tab only.
func headerSafe(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c != '\t' && (c < 0x20 || c > 0x7e) {
			return false
		}
	}
	return true
}

// decodeHeader decodes a mirrored header value: the =?base64?...?= form
// carries any UTF-8 value, anything else is the value itself.
func decodeHeader(v string) (string, error) {
	inner, ok := strings.CutPrefix(v, "=?base64?")
	if !ok {
		return v, nil
	}
	inner, ok = strings.CutSuffix(inner, "?=")
	if !ok {
		return v, nil
	}
	b, err := base64.StdEncoding.DecodeString(inner)
	if err != nil || !utf8.Valid(b) {
		return "", fmt.Errorf("value '%s' is not valid base64 of UTF-8 text", v)
	}
	return string(b), nil
}

// rewrite gives a client's request an id (and, if it has one, a progress
// token) the core has not seen from another client of this principal, and
// returns what to send the core and the call that waits for the answer.
func (pc *principalCore) rewrite(m *message, p *request2026) ([]byte, *call, error) {
	tag := "gw-" + strconv.FormatUint(pc.seq.Add(1), 10)
	coreID, _ := jsonrpc.MakeID(tag)
	clientID, err := json.Marshal(m.req.ID.Raw())
	if err != nil {
		return nil, nil, err
	}
	var clientToken json.RawMessage
	if tok := p.meta["progressToken"]; len(tok) > 0 && string(tok) != "null" {
		clientToken = tok
		p.meta["progressToken"] = mustJSON(tag)
	}
	p.params["_meta"] = mustJSON(p.meta)
	params, err := json.Marshal(p.params)
	if err != nil {
		return nil, nil, err
	}
	m.req.Params = params // what the gateway logs (the tool's name) is what the core is sent
	method, _ := json.Marshal(m.req.Method)
	raw := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%q,"method":%s,"params":%s}`, tag, method, params)
	token := ""
	if clientToken != nil {
		token = tokenKey(tag)
	}
	c := newCall(m.req.ID, coreID, token)
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
		writeError(w, http.StatusInternalServerError, id, jsonrpc.CodeInternalError, "cannot start a core for this principal")
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
	if err := s.core.send(raw); err != nil {
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
		mcp.MetaKeyClientInfo:         map[string]any{"name": "boris-gateway", "version": core.Version},
	}
}

// deliverPrincipal routes what a principal's core sends that is not a
// response to a client's request: responses to the gateway's own requests,
// notifications of subscriptions, and requests, which a 2026-07-28 client
// cannot be sent (the revision has none from server to client) and which
// are refused at once so the core never waits for an answer. It reports
// whether it took msg. Called with s.mu held.
func (s *session) deliverPrincipal(msg coreMsg, m peeked) bool {
	pc := s.principal
	switch {
	case m.method == "" && pc.internal[m.id] != nil:
		c := pc.internal[m.id]
		delete(pc.internal, m.id)
		if pc.hub.answered(c, msg.raw) {
			s.release(msg)
		} else {
			c.resp <- msg
		}
		return true
	case m.method != "" && m.id != "":
		s.release(msg)
		if id, ok := member(msg.raw, "id"); ok {
			refusal := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, id, jsonrpc.CodeMethodNotFound,
				m.method+" cannot reach a 2026-07-28 client: that revision has no requests from server to client")
			go func() { _ = s.core.send(refusal) }()
		}
		return true
	case m.method != "" && pc.hub.owns(m.params):
		pc.hub.dispatch(m.method, msg.raw, m.params)
		s.release(msg)
		return true
	}
	return false
}

// restore puts the client's val (its id or progress token, nil on a
// session) back at path in a message the core sent for c.
func (c *call) restore(msg coreMsg, val json.RawMessage, path ...string) coreMsg {
	if val == nil {
		return msg
	}
	if raw, ok := withMember(msg.raw, val, path...); ok {
		msg.raw = raw
	}
	return msg
}

// writeErrorData is writeError with the error's data member.
func writeErrorData(w http.ResponseWriter, status int, id jsonrpc.ID, code int64, msg string, data json.RawMessage) {
	b, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: code, Message: msg, Data: data}})
	if !id.IsValid() {
		b, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg, "data": data}})
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// statusOf is the HTTP status of a 2026-07-28 response sent as JSON: 404
// for an unknown method, 400 for invalid params, an unsupported version or
// a missing client capability (SEP-2575), else 200.
func statusOf(raw []byte) int {
	code, ok := member(raw, "error", "code")
	if !ok {
		return http.StatusOK
	}
	switch string(code) {
	case strconv.Itoa(jsonrpc.CodeMethodNotFound):
		return http.StatusNotFound
	case strconv.Itoa(jsonrpc.CodeInvalidParams), strconv.Itoa(codeUnsupportedVersion), strconv.Itoa(mcp.CodeMissingRequiredClientCapabilities):
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// cancelAtCore tells the core a request's client closed its response
// stream: the 2026-07-28 cancellation.
func (s *session) cancelAtCore(c *call) {
	id, err := json.Marshal(c.coreID.Raw())
	if err != nil {
		return
	}
	_ = s.core.send(fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"the client closed its response stream"}}`, id))
}

// listenTimeout bounds how long the gateway waits for its core to
// acknowledge a subscription.
const listenTimeout = 10 * time.Second
