package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/internal/jsonscan"
)

// Message is a decoded JSON-RPC message with the raw bytes kept, so the
// gateway forwards exactly what it received in either direction.
type Message struct {
	Raw []byte
	Req *jsonrpc.Request  // request or notification
	Res *jsonrpc.Response // response

	parsed *Request2026 // the params of a 2026-07-28 request, once parsed
}

// maxNesting is how deep a client's message may nest objects and arrays.
// go-sdk refuses a message nested deeper than 1000 whole, and a core
// answers it with id null: a request the gateway forwarded would wait for
// an answer never sent, holding one of its session's slots in flight. The
// gateway refuses deeper messages itself, well short of that.
const maxNesting = 400

// ErrTooDeep refuses a message nested deeper than maxNesting.
var ErrTooDeep = fmt.Errorf("message nested more than %d deep", maxNesting)

// wireMessage is a JSON-RPC message as go-sdk's decoder reads it (its
// jsonrpc2.wireDecode): the method raw, so that its presence alone makes a
// request, even when it is "" or null.
type wireMessage struct {
	Version string          `json:"jsonrpc"`
	ID      any             `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *jsonrpc.Error  `json:"error"`
}

// Decode parses one JSON-RPC message as go-sdk's jsonrpc.DecodeMessage
// does, which is how the core will read it: members matched by exact name
// (a "Method" or "ID" is not the method or the id), the last of a name
// winning; jsonrpc "2.0"; an id a string, a number or absent; a method
// makes a request, else an id makes a response. It is DecodeMessage
// without the 64 KiB buffer that function allocates per message, which
// every client request would pay; FuzzDecodeAsSDK holds the two equal. It
// refuses more: a JSON array (a batch: the gateway speaks the revisions
// without them), anything but one JSON value, and a message nested deeper
// than maxNesting (ErrTooDeep).
func Decode(raw []byte) (*Message, error) {
	if first := firstByte(raw); first == '[' {
		return nil, ErrBatch
	}
	// One JSON value and nothing after it: a body carrying a second message
	// must not smuggle it past the gateway into the core.
	if !json.Valid(raw) {
		return nil, errors.New("body is not a single JSON value")
	}
	if jsonscan.TooDeep(raw, maxNesting) {
		return nil, ErrTooDeep
	}
	var w wireMessage
	if err := jsonscan.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
	}
	if w.Version != "2.0" {
		return nil, fmt.Errorf("invalid message version tag %q; expected \"2.0\"", w.Version)
	}
	id, err := jsonrpc.MakeID(w.ID)
	if err != nil {
		return nil, err
	}
	if val, ok := jsonscan.Member(raw, "id"); ok && id.IsValid() {
		if id, err = IDFromRaw(val); err != nil {
			return nil, err
		}
	}
	// The core reads one message per line (stdio transport: messages "MUST
	// NOT contain embedded newlines"), so a pretty-printed body is compacted.
	if bytes.ContainsAny(raw, "\r\n") {
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return nil, err
		}
		raw = buf.Bytes()
	}
	m := &Message{Raw: raw}
	switch {
	case len(w.Method) > 0:
		var method string
		if err := jsonscan.Unmarshal(w.Method, &method); err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
		}
		m.Req = &jsonrpc.Request{ID: id, Method: method, Params: w.Params}
	case !id.IsValid():
		return nil, errors.New("invalid request: neither a method nor an id")
	default:
		m.Res = &jsonrpc.Response{ID: id, Result: w.Result}
		if w.Error != nil { // not a typed nil in the error interface
			m.Res.Error = w.Error
		}
	}
	return m, nil
}

// IDOf returns the id of a message the gateway refuses without decoding
// it (see ErrTooDeep), read as go-sdk would read it, or the zero ID.
func IDOf(raw []byte) jsonrpc.ID {
	val, ok := jsonscan.Member(raw, "id")
	if !ok {
		return jsonrpc.ID{}
	}
	id, _ := IDFromRaw(val)
	return id
}

var ErrBatch = fmt.Errorf("JSON-RPC batches are not supported")

func firstByte(b []byte) byte {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
	}
	return 0
}

// Peeked is what routing needs of a core's message, read without decoding
// its result: a core's messages are well-formed (it is go-sdk's encoder on
// the other end of a pipe the gateway owns), and a view or grep result can
// be large, so the hot path skips the full decode that client input gets.
type Peeked struct {
	ID     string          // id key as IDKey spells it; "" for a notification
	Method string          // "" for a response
	Params json.RawMessage // of a request or notification
}

// RawIDKey spells a JSON id the way IDKey spells a jsonrpc.ID.
func RawIDKey(raw json.RawMessage) string {
	// The ids a core answers with are nearly always an integer or a plain
	// string: keyed here without a decoder, as the decoder would key them.
	if jsonInteger(raw) {
		// Exact only where go-sdk's float64 is (|n| <= 2^53) and spelled
		// as Go spells it (not -0): any other goes through IDFromRaw.
		if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil && strconv.FormatInt(n, 10) == string(raw) && n <= 1<<53 && n >= -(1<<53) {
			return "int64:" + strconv.FormatInt(n, 10)
		}
	}
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' && plainJSONString(raw[1:len(raw)-1]) && !marshalEscapes(raw) {
		return "string:" + string(raw[1:len(raw)-1])
	}
	return decodedIDKey(raw)
}

// decodedIDKey is RawIDKey for any id, by decoding it as Decode does.
func decodedIDKey(raw json.RawMessage) string {
	if id, err := IDFromRaw(raw); err == nil && id.IsValid() {
		return IDKey(id)
	}
	return "raw:" + string(raw)
}

// IsCall reports whether m is a request expecting a response.
func (m *Message) IsCall() bool { return m.Req != nil && m.Req.IsCall() }

// IDKey is a map key for a JSON-RPC id: ints and strings never collide.
func IDKey(id jsonrpc.ID) string {
	switch v := id.Raw().(type) {
	case int64:
		return "int64:" + strconv.FormatInt(v, 10)
	case string:
		return "string:" + v
	}
	return fmt.Sprintf("%T:%v", id.Raw(), id.Raw())
}

// jsonInteger reports whether b is an integer as JSON writes one: an
// optional minus, then 0 or digits not starting with 0.
func jsonInteger(b []byte) bool {
	b = bytes.TrimPrefix(b, []byte("-"))
	if len(b) == 0 || (b[0] == '0' && len(b) > 1) {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// marshalEscapes reports whether encoding/json escapes a character of the
// plain string b: "<", ">" and "&", and U+2028 and U+2029. Such an id
// would not come back as sent from go-sdk (see IDFromRaw).
func marshalEscapes(b []byte) bool {
	return bytes.ContainsAny(b, "<>&") || bytes.Contains(b, []byte("\u2028")) || bytes.Contains(b, []byte("\u2029"))
}

// plainJSONString reports whether b, a JSON string's contents, holds no
// escape and no control character: its bytes are its value.
func plainJSONString(b []byte) bool {
	for _, c := range b {
		if c == '\\' || c == '"' || c < 0x20 {
			return false
		}
	}
	return utf8.Valid(b)
}

// TokenKey is a map key for a progress token, however it was spelled.
func TokenKey(tok any) string {
	if f, ok := tok.(float64); ok && f == float64(int64(f)) {
		return fmt.Sprintf("n:%d", int64(f))
	}
	if s, ok := tok.(string); ok {
		return "s:" + s
	}
	return fmt.Sprintf("%T:%v", tok, tok)
}

// ProgressTokenOf returns the key of params._meta.progressToken, or "".
func ProgressTokenOf(params json.RawMessage) string {
	if !mayHoldMeta(params) {
		return "" // most requests: decoding them would find nothing
	}
	return decodedProgressToken(params)
}

// decodedProgressToken is ProgressTokenOf for any params, by decoding them
// as the core does (every request's params have go-sdk's Meta as _meta).
func decodedProgressToken(params json.RawMessage) string {
	var p struct {
		Meta mcp.Meta `json:"_meta"`
	}
	if len(params) == 0 || jsonscan.Unmarshal(params, &p) != nil {
		return ""
	}
	tok := p.Meta.GetMeta()["progressToken"]
	if tok == nil {
		return ""
	}
	return TokenKey(tok)
}

// mayHoldMeta reports whether params could have a "_meta" member: spelled
// so, or behind an escape.
func mayHoldMeta(params []byte) bool {
	return bytes.Contains(params, []byte("_meta")) || bytes.Contains(params, []byte(`\u`))
}

// NotifiedToken returns the key of a notifications/progress message's
// progressToken, or "".
func NotifiedToken(params json.RawMessage) string {
	var p struct {
		ProgressToken any `json:"progressToken"`
	}
	if len(params) == 0 || json.Unmarshal(params, &p) != nil || p.ProgressToken == nil {
		return ""
	}
	return TokenKey(p.ProgressToken)
}

// CancelledID returns the id key of the request a notifications/cancelled
// message names, read as the core reads it (go-sdk's CancelledParams, its
// requestId made an ID as the SDK makes it), or "".
func CancelledID(params json.RawMessage) string {
	var p mcp.CancelledParams
	if jsonscan.Unmarshal(params, &p) != nil || p.RequestID == nil {
		return ""
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil {
		return ""
	}
	return IDKey(id)
}

// CancelledRawID returns the id key of the request a notifications/cancelled
// message names when it names one by an id go-sdk would alter (see
// IDFromRaw), or "". The core cancels such a request when the requestId is
// its id byte for byte, else what CancelledID names.
func CancelledRawID(params json.RawMessage) string {
	raw, ok := jsonscan.Member(params, "requestId")
	if !ok {
		return ""
	}
	id, err := IDFromRaw(raw)
	if err != nil || !strings.HasPrefix(IDKey(id), "string:"+rawIDPrefix) {
		return ""
	}
	return IDKey(id)
}

// ToolName returns params.name of a tools/call request as the core reads
// it: the params decoded into go-sdk's CallToolParamsRaw, as the core
// decodes them; "" if they do not decode (the core then runs no tool).
func ToolName(params json.RawMessage) string {
	var p mcp.CallToolParamsRaw
	if jsonscan.Unmarshal(params, &p) != nil {
		return ""
	}
	return p.Name
}

// ErrorResponse encodes a JSON-RPC error response. With the zero ID (the
// request's id unknown) the id is null, as JSON-RPC 2.0 §5 requires.
func ErrorResponse(id jsonrpc.ID, code int64, msg string) []byte {
	if !id.IsValid() {
		b, _ := json.Marshal(map[string]any{
			"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg},
		})
		return b
	}
	b, err := EncodeResponse(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: code, Message: msg}})
	if err != nil {
		// Only a programming error can get here; keep the wire valid anyway.
		return []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}`)
	}
	return b
}

// CodeRequestCancelled answers a request the client cancelled.
const CodeRequestCancelled = -32800
