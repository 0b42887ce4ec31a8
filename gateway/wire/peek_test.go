package wire

import (
	"encoding/json"
	"testing"
)

func TestPeek(t *testing.T) {
	tests := []struct {
		name, raw          string
		id, method, params string
		bad                bool
	}{
		{"response", `{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"a \"}\" b"}]}}`, "int64:5", "", "", false},
		{"string id", `{"jsonrpc":"2.0","id":"x\"y","result":{}}`, `string:x"y`, "", "", false},
		{"result before id", `{"result":{"a":[1,{"b":"]"}]},"id":7,"jsonrpc":"2.0"}`, "int64:7", "", "", false},
		{"error response", `{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"x"}}`, "int64:3", "", "", false},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`, "", "notifications/progress", `{"progressToken":"t","progress":1}`, false},
		{"request with spaces", ` { "jsonrpc" : "2.0" , "id" : 1 , "method" : "roots/list" } `, "int64:1", "roots/list", "", false},
		{"null id", `{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}`, "", "", "", false},
		{"not an object", `[1,2]`, "", "", "", true},
		{"truncated", `{"jsonrpc":"2.0","id":5,"result":{"a":"b`, "", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Peek([]byte(tt.raw))
			if (err != nil) != tt.bad {
				t.Fatalf("peek error %v, want error %v", err, tt.bad)
			}
			if tt.bad {
				return
			}
			if p.ID != tt.id || p.Method != tt.method || string(p.Params) != tt.params {
				t.Errorf("got id %q method %q params %s, want %q %q %s", p.ID, p.Method, p.Params, tt.id, tt.method, tt.params)
			}
		})
	}
}

// BenchmarkPeek measures routing a 4 KB tool result.
func BenchmarkPeek(b *testing.B) {
	text := make([]byte, 4096)
	for i := range text {
		text[i] = 'a' + byte(i%26)
	}
	res, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 9, "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": string(text) + "\t\n\"x\""}}}})
	b.SetBytes(int64(len(res)))
	for b.Loop() {
		if _, err := Peek(res); err != nil {
			b.Fatal(err)
		}
	}
}

func TestResponseOutcome(t *testing.T) {
	tests := map[string]string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`:                                                            "ok",
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"\"isError\":true"}]}}`:                   "ok",
		`{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}`:                                             "tool_error",
		`{"jsonrpc":"2.0","id":1,"result":{"isError":false}}`:                                                         "ok",
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"unknown tool"}}`:                                   "error",
		`{"jsonrpc":"2.0","id":1,"result":{"content":null,"inputRequests":{},"resultType":"input_required"}}`:         "input_required",
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"resultType"}],"resultType":"complete"}}`: "ok",
	}
	for raw, want := range tests {
		if got := ResponseOutcome([]byte(raw)); got != want {
			t.Errorf("responseOutcome(%s) = %q, want %q", raw, got, want)
		}
	}
}

// TestPeekHead: the routing fields of a message cut short.
func TestPeekHead(t *testing.T) {
	full := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"image","data":"AAAA"}]}}`
	tests := []struct {
		name, head string
		id         string
		response   bool
	}{
		{"response cut in its result", full[:40], "int64:7", true},
		{"response cut in the result key", full[:30], "int64:7", false},
		{"cut in the id", `{"jsonrpc":"2.0","id":12`, "", false},
		{"request cut in its params", `{"jsonrpc":"2.0","id":"a","method":"sampling/createMessage","params":{"x":"`, "string:a", false},
		{"notification cut in its params", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"message":"`, "", false},
		{"error response cut", `{"jsonrpc":"2.0","id":"z","error":{"code":-1,"message":"xx`, "string:z", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, isResponse := PeekHead([]byte(tt.head))
			if p.ID != tt.id || isResponse != tt.response {
				t.Errorf("got id %q response %v, want %q %v", p.ID, isResponse, tt.id, tt.response)
			}
		})
	}
}
