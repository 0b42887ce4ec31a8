package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// TestParseAccept: which of JSON and SSE an Accept header allows; a missing
// header allows both.
func TestParseAccept(t *testing.T) {
	tests := []struct {
		header string
		want   Accepts
	}{
		{"", Accepts{JSON: true, SSE: true}},
		{"application/json, text/event-stream", Accepts{JSON: true, SSE: true}},
		{"application/json", Accepts{JSON: true}},
		{"text/event-stream", Accepts{SSE: true}},
		{"Text/Event-Stream;q=0.9", Accepts{SSE: true}},
		{"*/*", Accepts{JSON: true, SSE: true}},
		{"application/*", Accepts{JSON: true}},
		{"text/*", Accepts{SSE: true}},
		{"text/html, image/png", Accepts{}},
	}
	for _, tt := range tests {
		t.Run(tt.header, func(t *testing.T) {
			if got := ParseAccept(tt.header); got != tt.want {
				t.Errorf("parseAccept(%q): got %+v, want %+v", tt.header, got, tt.want)
			}
		})
	}
}

// TestDecode: one JSON-RPC message per body; batches and invalid messages
// are refused.
func TestDecode(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		wantErr bool
		call    bool
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, false, true},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, false, false},
		{"response", `{"jsonrpc":"2.0","id":1,"result":{}}`, false, false},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, true, false},
		{"batch after whitespace", "\r\n\t [", true, false},
		{"truncated", `{"jsonrpc":"2.0","id":1,`, true, false},
		{"wrong version", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, true, false},
		{"neither method nor id", `{"jsonrpc":"2.0"}`, true, false},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, true, false},
		{"string", `"hello"`, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Decode([]byte(tt.raw))
			if (err != nil) != tt.wantErr {
				t.Fatalf("decode(%s): got error %v, want error %v", tt.raw, err, tt.wantErr)
			}
			if err == nil && m.IsCall() != tt.call {
				t.Errorf("decode(%s).isCall(): got %v, want %v", tt.raw, m.IsCall(), tt.call)
			}
		})
	}
}

// TestIDKeys: ids and progress tokens are told apart by type, and a
// cancellation names the request the way its id was registered.
func TestIDKeys(t *testing.T) {
	idOf := func(raw string) string {
		m, err := Decode([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		return IDKey(m.Req.ID)
	}
	num, str := idOf(`{"jsonrpc":"2.0","id":7,"method":"ping"}`), idOf(`{"jsonrpc":"2.0","id":"7","method":"ping"}`)
	if num == str {
		t.Error(`idKey: 7 and "7" collide, want distinct keys`)
	}
	for _, tt := range []struct{ params, want string }{
		{`{"requestId":7}`, num},
		{`{"requestId":"7"}`, str},
	} {
		if got := CancelledID(json.RawMessage(tt.params)); got != tt.want {
			t.Errorf("cancelledID(%s): got %q, want %q (the request's key)", tt.params, got, tt.want)
		}
	}
	for _, tt := range []struct {
		request, notification string
	}{
		{`{"_meta":{"progressToken":"a"}}`, `{"progressToken":"a"}`},
		{`{"_meta":{"progressToken":42}}`, `{"progressToken":42}`},
		{`{"_meta":{"progressToken":42}}`, `{"progressToken":42.0}`},
	} {
		req, note := ProgressTokenOf(json.RawMessage(tt.request)), NotifiedToken(json.RawMessage(tt.notification))
		if req == "" || req != note {
			t.Errorf("progress token of %s: got %q, notification %s: %q; want equal, non-empty", tt.request, req, tt.notification, note)
		}
	}
	if ProgressTokenOf(json.RawMessage(`{"_meta":{"progressToken":"42"}}`)) == ProgressTokenOf(json.RawMessage(`{"_meta":{"progressToken":42}}`)) {
		t.Error(`progress tokens "42" and 42 collide, want distinct keys`)
	}
	if got := ProgressTokenOf(json.RawMessage(`{"name":"bash"}`)); got != "" {
		t.Errorf("no token: got %q, want empty", got)
	}
}

// TestKeyShortcutsAgree: the keys IDKey, RawIDKey and ProgressTokenOf
// make without decoding are the ones decoding makes, for ids and params
// of every spelling a client or core could send.
func TestKeyShortcutsAgree(t *testing.T) {
	for _, raw := range []string{`0`, `7`, `-0`, `-12`, `1.5`, `12345678901234567890123`, `9007199254740993`, `9223372036854775807`, `9223372036854775808`, `-9223372036854775808`,
		`007`, `+5`, `1e3`, `7.0`, `"<&>"`, "\"\u2028\"", `""`, `"a"`, `"7"`, `"a b"`, `"é"`, `"\u0041"`, `"a\"b"`, `"a\\b"`, "\"\xff\"", `"tab	x"`, `null`, `true`, `[1]`} {
		if got, want := RawIDKey(json.RawMessage(raw)), decodedIDKey(json.RawMessage(raw)); got != want {
			t.Errorf("rawIDKey(%s) = %q, the decoder's key is %q", raw, got, want)
		}
		m, err := Decode([]byte(`{"jsonrpc":"2.0","id":` + raw + `,"method":"ping"}`))
		if err != nil || !m.Req.ID.IsValid() {
			continue // not an id a request may carry
		}
		if got, want := IDKey(m.Req.ID), fmt.Sprintf("%T:%v", m.Req.ID.Raw(), m.Req.ID.Raw()); got != want {
			t.Errorf("idKey(%s) = %q, want %q", raw, got, want)
		}
		// The core answers with the id as the client wrote it.
		echoed := RawID(m.Req.ID)
		if want := []byte(raw); !bytes.Equal(echoed, want) {
			t.Errorf("id %s: kept as %s, want it as sent", raw, echoed)
		}
		if got, want := IDKey(m.Req.ID), RawIDKey(echoed); got != want {
			t.Errorf("id %s: a request's key %q, its response's (id %s) %q", raw, got, echoed, want)
		}
	}
	for _, params := range []string{`{"name":"view","arguments":{"path":"a"}}`, `{"_meta":{"progressToken":1},"name":"x"}`,
		`{"_META":{"progressToken":"t"}}`, `{"_Meta":{"progressToken":2}}`, `{"\u005fmeta":{"progressToken":3}}`,
		`{"\u005Fmeta":{"progressToken":4}}`, `{"_m\u0065ta":{"progressToken":5}}`, `{"name":"_meta"}`, `{}`, ``} {
		if got, want := ProgressTokenOf(json.RawMessage(params)), decodedProgressToken(json.RawMessage(params)); got != want {
			t.Errorf("progressTokenOf(%s) = %q, decoding finds %q", params, got, want)
		}
	}
}
