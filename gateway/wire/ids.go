package wire

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mjkoo/boris/internal/jsonscan"
)

// JSON-RPC 2.0 §5: a response's id "MUST be the same as the value of the id
// member in the Request Object". go-sdk keeps an id as an int64 or a
// string and writes it back with encoding/json, which alters some (1.5 as
// 1, 2^63 as -2^63, "\u0041" as "A"). The gateway keeps such an id as a
// carrier: a jsonrpc.ID holding the id as the client wrote it, which every
// response the gateway writes itself (EncodeResponse) puts back, and which
// keys the request exactly as the core's answer, carrying the id as sent
// (the core keeps it too), is keyed (RawIDKey).

// rawIDPrefix starts a carrier's string: a NUL no id a client sends as a
// plain string begins with.
const rawIDPrefix = "\x00boris-raw-id:"

// IDFromRaw returns the id a message's raw id member stands for: as go-sdk
// reads it when go-sdk writes it back as raw, else a carrier of raw.
func IDFromRaw(raw []byte) (jsonrpc.ID, error) {
	var v any
	if err := jsonscan.Unmarshal(raw, &v); err != nil {
		return jsonrpc.ID{}, err
	}
	id, err := jsonrpc.MakeID(v)
	if err != nil || !id.IsValid() {
		return id, err
	}
	if enc, err := json.Marshal(id.Raw()); err == nil && bytes.Equal(enc, raw) {
		return id, nil
	}
	return jsonrpc.MakeID(rawIDPrefix + string(raw))
}

// RawID returns id as its client wrote it.
func RawID(id jsonrpc.ID) json.RawMessage {
	if s, ok := id.Raw().(string); ok && strings.HasPrefix(s, rawIDPrefix) {
		return json.RawMessage(s[len(rawIDPrefix):])
	}
	raw, _ := json.Marshal(id.Raw())
	return raw
}

// EncodeResponse encodes resp with its id as its client wrote it.
func EncodeResponse(resp *jsonrpc.Response) ([]byte, error) {
	b, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		return nil, err
	}
	if s, ok := resp.ID.Raw().(string); ok && strings.HasPrefix(s, rawIDPrefix) {
		quoted, _ := json.Marshal(s)
		// The id is the first member after "jsonrpc": nothing before it
		// holds the carrier.
		b = bytes.Replace(b, quoted, []byte(s[len(rawIDPrefix):]), 1)
	}
	return b, nil
}

// sdkID returns id as go-sdk reads it: a carrier's id decoded.
func sdkID(id jsonrpc.ID) jsonrpc.ID {
	s, ok := id.Raw().(string)
	if !ok || !strings.HasPrefix(s, rawIDPrefix) {
		return id
	}
	var v any
	if jsonscan.Unmarshal([]byte(s[len(rawIDPrefix):]), &v) != nil {
		return id
	}
	out, err := jsonrpc.MakeID(v)
	if err != nil {
		return id
	}
	return out
}
