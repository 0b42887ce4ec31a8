package wire

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"

	"github.com/mjkoo/boris/internal/jsonscan"
)

// readingCases are client messages the gateway and go-sdk could read two
// ways: names in another case, escaped or twice, ids of every kind,
// invalid UTF-8, deep nesting. They seed FuzzDecodeAsSDK, whose plain `go
// test` run checks each of them.
var readingCases = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"view","arguments":{"path":"a"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":1,"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"m","data":[1]}}`,
	// Member names in another case are other members.
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","Method":"ping","params":{"name":"bash"}}`,
	`{"jsonrpc":"2.0","id":1,"Method":"ping","method":"tools/call","params":{"name":"bash"}}`,
	`{"jsonrpc":"2.0","id":1,"METHOD":"ping"}`,
	`{"jsonrpc":"2.0","ID":5,"method":"tools/call","params":{"name":"bash"}}`,
	`{"jsonrpc":"2.0","Id":5,"iD":6,"method":"ping"}`,
	`{"JSONRPC":"2.0","jsonrpc":"2.0","id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","Params":{"name":"view"},"params":{"name":"bash"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_file","Name":"view"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"NAME":"view"}}`,
	`{"jsonrpc":"2.0","id":1,"Result":{},"ERROR":{"code":1}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"Code":"x","code":2,"message":"m"}}`,
	// Escaped names are the names they spell.
	`{"jsonrpc":"2.0","id":1,"\u006dethod":"tools/call","params":{"\u006eame":"view"}}`,
	`{"jsonrpc":"2.0","id":1,"\u004dethod":"ping","method":"tools/call"}`,
	`{"jsonrpc":"2.0","\u0069d":7,"method":"ping"}`,
	`{"jsonrpc":"2.0","\u0049D":7,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"m\u0065thod":"ping","method":"x"}`,
	// The last of a name wins, as the decoder applies it.
	`{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"method":"a"}`,
	`{"jsonrpc":"2.0","id":1,"id":null,"method":"a"}`,
	`{"jsonrpc":"2.0","id":1,"method":"a","method":null}`,
	`{"jsonrpc":"2.0","jsonrpc":null,"id":1,"method":"a"}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"view","name":null}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"view"},"params":null}`,
	// Progress tokens.
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bash","_meta":{"progressToken":"t"}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bash","_META":{"progressToken":"t"}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bash","_meta":{"ProgressToken":"t"}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bash","\u005fmeta":{"progress\u0054oken":4}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":1},"_meta":{"x":2}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":1.0}}}`,
	// Cancellations.
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7.0}}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"RequestId":8,"requestId":"7"}}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"requestId":null}}`,
	// Ids and methods of every kind.
	`{"jsonrpc":"2.0","id":1.5,"method":"x"}`,
	`{"jsonrpc":"2.0","id":1e2,"method":"x"}`,
	`{"jsonrpc":"2.0","id":-0,"method":"x"}`,
	`{"jsonrpc":"2.0","id":1e400,"method":"x"}`,
	`{"jsonrpc":"2.0","id":12345678901234567890,"method":"x"}`,
	`{"jsonrpc":"2.0","id":"a\u0000b","method":"x"}`,
	`{"jsonrpc":"2.0","id":true,"method":"x"}`,
	`{"jsonrpc":"2.0","id":{},"method":"x"}`,
	`{"jsonrpc":"2.0","id":1,"method":""}`,
	`{"jsonrpc":"2.0","id":1,"method":5}`,
	`{"jsonrpc":"2.0","id":null}`,
	// Invalid UTF-8 and lone surrogates.
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"m\xffethod\":\"y\"}",
	"{\"jsonrpc\":\"2.0\",\"id\":\"\xc3\",\"method\":\"x\"}",
	`{"jsonrpc":"2.0","id":"\ud800","method":"p\udc00\ud800ing"}`,
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"v\xffiew\"}}",
	// Not one message.
	`[{"jsonrpc":"2.0","id":1,"method":"x"}]`,
	`{"jsonrpc":"2.0","id":1,"method":"x"} {"jsonrpc":"2.0","id":2,"method":"y"}`,
	`{"jsonrpc":"2.0","id":1,"method":"x",}`,
	"{\"jsonrpc\":\"2.0\",\r\n \"id\":1,\n\"method\":\"ping\"}",
	// Deep nesting: refused by the gateway past maxNesting.
	`{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":` + nested(maxNesting-1) + `}}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":` + nested(maxNesting) + `}}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":` + nested(jsonscan.SDKMaxDepth+1) + `}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":"` + strings.Repeat("[", 2000) + `"}`,
}

// FuzzDecodeAsSDK holds the gateway's reading of a client message to what
// the core reads in the bytes it is sent: the kind of message, its id,
// method, params and result as jsonrpc.DecodeMessage decodes them, and the
// tool name, progress token and cancelled request the gateway extracts from
// the params as go-sdk's decoder reads them. Where the gateway cannot read
// a message as the SDK does, it must refuse it.
func FuzzDecodeAsSDK(f *testing.F) {
	for _, c := range readingCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := Decode(raw)
		if err != nil {
			return // refused: the core never sees it
		}
		if bytes.ContainsAny(m.Raw, "\r\n") {
			t.Fatalf("decode(%q) forwards %q: the core reads one message per line", raw, m.Raw)
		}
		if jsonscan.TooDeep(raw, maxNesting) {
			t.Fatalf("decode(%q) took a message nested deeper than %d", raw, maxNesting)
		}
		sdk, err := jsonrpc.DecodeMessage(m.Raw)
		if err != nil {
			t.Fatalf("decode(%q) took a message go-sdk refuses: %v", raw, err)
		}
		switch want := sdk.(type) {
		case *jsonrpc.Request:
			got := m.Req
			if got == nil || sdkID(got.ID) != want.ID || got.Method != want.Method || !bytes.Equal(got.Params, want.Params) {
				t.Fatalf("decode(%q) = %s; go-sdk reads %s", raw, describe(m), describe(&Message{Req: want}))
			}
			sameParamsReading(t, raw, want.Params, got.Params)
		case *jsonrpc.Response:
			got := m.Res
			if got == nil || sdkID(got.ID) != want.ID || !bytes.Equal(got.Result, want.Result) || errorText(got.Error) != errorText(want.Error) {
				t.Fatalf("decode(%q) = %s; go-sdk reads %s", raw, describe(m), describe(&Message{Res: want}))
			}
		}
	})
}

// sameParamsReading checks what the gateway extracts from a request's
// params against go-sdk's reading of them. go-sdk's decoder (its
// internal/json) cannot be imported; exported types whose UnmarshalJSON
// runs it stand in: CompleteReference reads a "name" member, CallToolResult
// a "_meta" one. A reference that cannot read the params (a member it
// knows holds something else) has nothing to say about them.
func sameParamsReading(t *testing.T, raw []byte, sdkParams, params []byte) {
	t.Helper()
	var ref mcp.CompleteReference
	if ref.UnmarshalJSON(withFirstMember(sdkParams, `"type":"ref/prompt"`)) == nil && ToolName(params) != ref.Name {
		t.Fatalf("%q: the gateway logs tool %q; go-sdk reads name %q", raw, ToolName(params), ref.Name)
	}
	var res mcp.CallToolResult
	if res.UnmarshalJSON(sdkParams) == nil {
		want := ""
		if tok := res.Meta.GetMeta()["progressToken"]; tok != nil {
			want = TokenKey(tok)
		}
		if got := ProgressTokenOf(params); got != want {
			t.Fatalf("%q: the gateway reads progress token %q; go-sdk %q", raw, got, want)
		}
	}
	// What go-sdk's canceller does with a notifications/cancelled: its
	// params decoded as its internal/json decodes, the id made by MakeID.
	var c mcp.CancelledParams
	if _, err := segjson.Parse(sdkParams, &c, segjson.DontMatchCaseInsensitiveStructFields); err == nil && c.RequestID != nil {
		if id, err := jsonrpc.MakeID(c.RequestID); err == nil && CancelledID(params) != IDKey(id) {
			t.Fatalf("%q: the gateway cancels %q; go-sdk %q", raw, CancelledID(params), IDKey(id))
		}
	}
}

// withFirstMember returns the JSON object obj with member (name and
// value) put first, or nil if obj is not an object.
func withFirstMember(obj []byte, member string) []byte {
	obj = bytes.TrimSpace(obj)
	if len(obj) < 2 || obj[0] != '{' {
		return nil
	}
	rest := bytes.TrimSpace(obj[1:])
	if rest[0] != '}' {
		member += ","
	}
	return append([]byte("{"+member), rest...)
}

// describe prints a decoded message for a failure.
func describe(m *Message) string {
	switch {
	case m.Req != nil:
		return "request id " + IDKey(m.Req.ID) + " method " + strconv.Quote(m.Req.Method) + " params " + string(m.Req.Params)
	case m.Res != nil:
		return "response id " + IDKey(m.Res.ID) + " result " + string(m.Res.Result) + " error " + errorText(m.Res.Error)
	}
	return "nothing"
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	b, _ := json.Marshal(err)
	return string(b)
}

// TestReadingAsSDK: the cases the issue named read as the core reads them,
// or are refused.
func TestReadingAsSDK(t *testing.T) {
	tests := []struct {
		name, raw   string
		call        bool   // a request the core answers
		method      string // "" when refused
		tool, token string
	}{
		{"Method beside method", `{"jsonrpc":"2.0","id":1,"method":"tools/call","Method":"ping","params":{"name":"bash"}}`, true, "tools/call", "bash", ""},
		{"Name beside name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_file","Name":"view"}}`, true, "tools/call", "create_file", ""},
		{"ID for id", `{"jsonrpc":"2.0","ID":5,"method":"tools/call","params":{"name":"bash"}}`, false, "tools/call", "bash", ""},
		{"escaped method", `{"jsonrpc":"2.0","id":1,"\u006dethod":"tools/call","params":{"\u006eame":"view"}}`, true, "tools/call", "view", ""},
		{"_META", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bash","_META":{"progressToken":"t"}}}`, true, "tools/call", "bash", ""},
		{"_meta", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bash","_meta":{"progressToken":"t"}}}`, true, "tools/call", "bash", "s:t"},
		{"too deep", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bash","arguments":` + nested(maxNesting) + `}}`, false, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Decode([]byte(tt.raw))
			if tt.method == "" {
				if err == nil {
					t.Fatalf("decode: got %s, want it refused", describe(m))
				}
				return
			}
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if m.Req == nil || m.Req.Method != tt.method || m.IsCall() != tt.call {
				t.Fatalf("decode: got %s, want method %s, call %v", describe(m), tt.method, tt.call)
			}
			if got := ToolName(m.Req.Params); got != tt.tool {
				t.Errorf("toolName: got %q, want %q", got, tt.tool)
			}
			if got := ProgressTokenOf(m.Req.Params); got != tt.token {
				t.Errorf("progressTokenOf: got %q, want %q", got, tt.token)
			}
		})
	}
}

// TestCancelledIDAsSDK: a cancellation names the request go-sdk's
// canceller cancels: requestId matched exactly, 7.0 the request 7.
func TestCancelledIDAsSDK(t *testing.T) {
	for params, want := range map[string]string{
		`{"requestId":7}`:                  "int64:7",
		`{"requestId":7.0}`:                "int64:7",
		`{"RequestId":8,"requestId":"7"}`:  "string:7",
		`{"RequestId":8}`:                  "",
		`{"requestId":7,"requestId":null}`: "",
	} {
		if got := CancelledID([]byte(params)); got != want {
			t.Errorf("cancelledID(%s): got %q, want %q", params, got, want)
		}
	}
}

// TestIDOfRefused: a message refused unread is answered with its id as
// go-sdk reads it.
func TestIDOfRefused(t *testing.T) {
	for raw, want := range map[string]string{
		`{"jsonrpc":"2.0","id":5,"method":"x","params":` + nested(maxNesting+1) + `}`:           "int64:5",
		`{"params":` + nested(maxNesting+1) + `,"\u0069d":"a","method":"x"}`:                    "string:a",
		`{"jsonrpc":"2.0","ID":5,"method":"x","params":` + nested(maxNesting+1) + `}`:           "<nil>:<nil>",
		`{"jsonrpc":"2.0","id":5,"id":null,"method":"x","params":` + nested(maxNesting+1) + `}`: "<nil>:<nil>",
	} {
		if got := IDKey(IDOf([]byte(raw))); got != want {
			t.Errorf("idOf(%.60s...): got %q, want %q", raw, got, want)
		}
	}
}

// nested is a value nested depth arrays deep.
func nested(depth int) string { return strings.Repeat("[", depth) + strings.Repeat("]", depth) }
