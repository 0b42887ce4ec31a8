package wire

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StatelessVersion is the MCP revision without sessions (docs/reference/gateway.md#stateless-requests-2026-07-28): no
// initialize, no Mcp-Session-Id; every request carries its protocol
// version and client capabilities in _meta and mirrors its method (and
// name) in headers.
const StatelessVersion = "2026-07-28"

// Error codes of the 2026-07-28 revision.
const (
	CodeHeaderMismatch     = mcp.CodeHeaderMismatch             // -32020
	CodeUnsupportedVersion = mcp.CodeUnsupportedProtocolVersion // -32022
)

// Request2026 is a 2026-07-28 request's params, parsed once: what the
// gateway checks is what the core is sent (params are re-encoded from
// this parse, so a body with a member twice cannot show the gateway one
// value and the core another).
type Request2026 struct {
	Params map[string]json.RawMessage
	Meta   map[string]json.RawMessage // params._meta
}

// Parse2026 parses params; nil params are an empty object.
func parse2026(raw json.RawMessage) (*Request2026, error) {
	r := &Request2026{Params: map[string]json.RawMessage{}, Meta: map[string]json.RawMessage{}}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &r.Params); err != nil {
			return nil, errors.New("params must be an object")
		}
	}
	if m := r.Params["_meta"]; len(m) > 0 && string(m) != "null" {
		if err := json.Unmarshal(m, &r.Meta); err != nil {
			return nil, errors.New("params._meta must be an object")
		}
	}
	return r, nil
}

// StringValue returns the string at raw, or "" if it is none.
func StringValue(raw json.RawMessage) string {
	var v string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &v) != nil {
		return ""
	}
	return v
}

// Version is _meta's protocol version, or "".
func (r *Request2026) Version() string { return StringValue(r.Meta[mcp.MetaKeyProtocolVersion]) }

// Params2026 parses a request's params as a 2026-07-28 request's, once.
func (m *Message) Params2026() (*Request2026, error) {
	if m.parsed != nil {
		return m.parsed, nil
	}
	p, err := parse2026(m.Req.Params)
	m.parsed = p
	return p, err
}

// WriteErrorData is WriteError with the error's data member.
func WriteErrorData(w http.ResponseWriter, status int, id jsonrpc.ID, code int64, msg string, data json.RawMessage) {
	b, _ := EncodeResponse(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: code, Message: msg, Data: data}})
	if !id.IsValid() {
		b, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg, "data": data}})
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// StatusOf is the HTTP status of a 2026-07-28 response sent as JSON: 404
// for an unknown method, 400 for invalid params, an unsupported version or
// a missing client capability (SEP-2575), else 200.
func statusOf(raw []byte) int {
	code, ok := Member(raw, "error", "code")
	if !ok {
		return http.StatusOK
	}
	switch string(code) {
	case strconv.Itoa(jsonrpc.CodeMethodNotFound):
		return http.StatusNotFound
	case strconv.Itoa(jsonrpc.CodeInvalidParams), strconv.Itoa(CodeUnsupportedVersion), strconv.Itoa(mcp.CodeMissingRequiredClientCapabilities):
		return http.StatusBadRequest
	}
	return http.StatusOK
}
