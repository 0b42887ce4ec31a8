package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"

	"github.com/mjkoo/boris/internal/jsonscan"
)

// nested is a value nested depth arrays deep.
func nested(depth int) string { return strings.Repeat("[", depth) + strings.Repeat("]", depth) }

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
		m, err := decode(raw)
		if err != nil {
			return // refused: the core never sees it
		}
		if bytes.ContainsAny(m.raw, "\r\n") {
			t.Fatalf("decode(%q) forwards %q: the core reads one message per line", raw, m.raw)
		}
		if jsonscan.TooDeep(raw, maxNesting) {
			t.Fatalf("decode(%q) took a message nested deeper than %d", raw, maxNesting)
		}
		sdk, err := jsonrpc.DecodeMessage(m.raw)
		if err != nil {
			t.Fatalf("decode(%q) took a message go-sdk refuses: %v", raw, err)
		}
		switch want := sdk.(type) {
		case *jsonrpc.Request:
			got := m.req
			if got == nil || got.ID != want.ID || got.Method != want.Method || !bytes.Equal(got.Params, want.Params) {
				t.Fatalf("decode(%q) = %s; go-sdk reads %s", raw, describe(m), describe(&message{req: want}))
			}
			sameParamsReading(t, raw, want.Params, got.Params)
		case *jsonrpc.Response:
			got := m.res
			if got == nil || got.ID != want.ID || !bytes.Equal(got.Result, want.Result) || errorText(got.Error) != errorText(want.Error) {
				t.Fatalf("decode(%q) = %s; go-sdk reads %s", raw, describe(m), describe(&message{res: want}))
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
	if ref.UnmarshalJSON(withFirstMember(sdkParams, `"type":"ref/prompt"`)) == nil && toolName(params) != ref.Name {
		t.Fatalf("%q: the gateway logs tool %q; go-sdk reads name %q", raw, toolName(params), ref.Name)
	}
	var res mcp.CallToolResult
	if res.UnmarshalJSON(sdkParams) == nil {
		want := ""
		if tok := res.Meta.GetMeta()["progressToken"]; tok != nil {
			want = tokenKey(tok)
		}
		if got := progressTokenOf(params); got != want {
			t.Fatalf("%q: the gateway reads progress token %q; go-sdk %q", raw, got, want)
		}
	}
	// What go-sdk's canceller does with a notifications/cancelled: its
	// params decoded as its internal/json decodes, the id made by MakeID.
	var c mcp.CancelledParams
	if _, err := segjson.Parse(sdkParams, &c, segjson.DontMatchCaseInsensitiveStructFields); err == nil && c.RequestID != nil {
		if id, err := jsonrpc.MakeID(c.RequestID); err == nil && cancelledID(params) != idKey(id) {
			t.Fatalf("%q: the gateway cancels %q; go-sdk %q", raw, cancelledID(params), idKey(id))
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
func describe(m *message) string {
	switch {
	case m.req != nil:
		return "request id " + idKey(m.req.ID) + " method " + strconv.Quote(m.req.Method) + " params " + string(m.req.Params)
	case m.res != nil:
		return "response id " + idKey(m.res.ID) + " result " + string(m.res.Result) + " error " + errorText(m.res.Error)
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
			m, err := decode([]byte(tt.raw))
			if tt.method == "" {
				if err == nil {
					t.Fatalf("decode: got %s, want it refused", describe(m))
				}
				return
			}
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if m.req == nil || m.req.Method != tt.method || m.isCall() != tt.call {
				t.Fatalf("decode: got %s, want method %s, call %v", describe(m), tt.method, tt.call)
			}
			if got := toolName(m.req.Params); got != tt.tool {
				t.Errorf("toolName: got %q, want %q", got, tt.tool)
			}
			if got := progressTokenOf(m.req.Params); got != tt.token {
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
		if got := cancelledID([]byte(params)); got != want {
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
		if got := idKey(idOf([]byte(raw))); got != want {
			t.Errorf("idOf(%.60s...): got %q, want %q", raw, got, want)
		}
	}
}

// TestDeepMessagesNeverWedge: a message nested deeper than go-sdk reads
// is answered by the gateway with its id and never reaches a core (which
// would answer it with id null, leaving the request to wait for ever), so
// more of them than a session may have in flight leave it serving, on a
// session and on a principal's 2026-07-28 core alike.
func TestDeepMessagesNeverWedge(t *testing.T) {
	const inFlight = 2
	g := newTestGateway(t, func(o *Options) { o.MaxInFlight = inFlight })
	sid := g.initialize()
	deep := map[string]any{"command": "true", "x": json.RawMessage(nested(jsonscan.SDKMaxDepth))}
	h2026, deep2026 := call2026(1, "bash", deep)
	h2026.Set("Accept", "application/json")
	paths := []struct {
		name     string
		h        http.Header
		deep, ok func(id int) string
	}{
		{"session", postHeader(sid, "Accept", "application/json"),
			func(id int) string { return callBody(id, "bash", deep, "") },
			func(id int) string { return callBody(id, "bash", map[string]any{"command": "echo served"}, "") }},
		{"principal core", h2026,
			func(id int) string { return strings.Replace(deep2026, `"id":1`, fmt.Sprintf(`"id":%d`, id), 1) },
			func(id int) string {
				_, b := call2026(id, "bash", map[string]any{"command": "echo served"})
				return b
			}},
	}
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			for id := 100; id < 100+inFlight+2; id++ {
				status, body, err := g.quick(p.h, p.deep(id))
				if err != nil || status != http.StatusBadRequest || !strings.Contains(string(body), fmt.Sprintf(`"id":%d`, id)) ||
					!strings.Contains(string(body), "nested more than") {
					t.Fatalf("deep message %d: got %d %s %v, want 400 with its id, saying it is nested too deep", id, status, body, err)
				}
			}
			status, body, err := g.quick(p.h, p.ok(200))
			if err != nil || status != http.StatusOK || !strings.Contains(string(body), "served") {
				t.Errorf("a call after the deep messages: got %d %s %v, want 200 and its output", status, body, err)
			}
		})
	}
}
