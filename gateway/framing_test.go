package gateway

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestBodyFraming: one POST body is one JSON-RPC message however it is
// laid out. The core speaks newline-delimited stdio, whose messages "MUST
// NOT contain embedded newlines" (2025-06-18 basic/transports), so a body
// must reach it as exactly one line: pretty-printed JSON is a valid request,
// and a body with anything after its message is not one message.
func TestBodyFraming(t *testing.T) {
	g := newTestGateway(t)
	tests := []struct {
		name     string
		body     string
		want     int
		smuggled string // a file the body's hidden tool call would create
	}{
		{"pretty-printed request", "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 2,\n  \"method\": \"tools/list\"\n}\n", 200, ""},
		{"CRLF-separated request", "{\r\n\"jsonrpc\": \"2.0\",\r\n\"id\": 2,\r\n\"method\": \"tools/list\"}", 200, ""},
		{"leading and trailing whitespace", " \n\t" + listTools + " \t\n", 200, ""},
		{"request then garbage", listTools + "garbage", 400, ""},
		{"two requests", listTools + "\n" + `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, 400, ""},
		{"notification then request", initializedBody + `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, 400, ""},
		// The second line would reach the core as a request of its own: a
		// tool call the gateway neither logs nor answers.
		{"notification, newline, tool call", initializedBody + "\n" + `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"bash","arguments":{"command":"touch smuggled"}}}`, 400, "smuggled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sid := g.initialize()
			status, body, err := g.quick(postHeader(sid, "Accept", "application/json"), tt.body)
			switch {
			case err != nil:
				t.Errorf("got no response (%v), want %d", err, tt.want)
			case status != tt.want:
				t.Errorf("got %d %.200s, want %d", status, body, tt.want)
			case tt.want == 400:
				if m := parseMessage(t, body); m.Error == nil || m.Error.Code != jsonrpc.CodeParseError {
					t.Errorf("got %s, want a JSON-RPC parse error", body)
				}
			}
			// Whatever the body was, the session still answers.
			if status, body, err := g.quick(postHeader(sid, "Accept", "application/json"), `{"jsonrpc":"2.0","id":99,"method":"tools/list"}`); err != nil || status != 200 {
				t.Errorf("next request: got %d %.200s %v, want 200", status, body, err)
			}
			// And it ran nothing the gateway did not see. (Proving an
			// absence takes a wait: two seconds for a touch.)
			for end := time.Now().Add(2 * time.Second); tt.smuggled != "" && time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
				if _, err := os.Stat(filepath.Join(g.dir, tt.smuggled)); err == nil {
					t.Fatal("a tool call hidden after the body's message ran in the core")
				}
			}
		})
	}
}

// quick posts a body with header h (which should accept only JSON, so
// keep-alives cannot turn the answer into a stream) that must be answered
// within 5 s (a tools/list takes milliseconds), and returns the status and
// body, or the error of a request left unanswered.
func (g *testGateway) quick(h http.Header, body string) (int, []byte, error) {
	g.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "POST", g.url, strings.NewReader(body))
	if err != nil {
		g.t.Fatal(err)
	}
	req.Header = h
	resp, err := g.client().Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}
