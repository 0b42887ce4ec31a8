package gateway

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// check inspects a response beyond its status code.
type check func(t *testing.T, resp *http.Response, body []byte)

// rpcError wants a JSON-RPC error body with the given code; code 0 accepts
// any code (the spec names codes only for some refusals).
func rpcError(code int64) check {
	return func(t *testing.T, resp *http.Response, body []byte) {
		t.Helper()
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type: got %q, want application/json", ct)
		}
		m := parseMessage(t, body)
		if m.Error == nil || (code != 0 && m.Error.Code != code) {
			t.Errorf("body: got %s, want a JSON-RPC error with code %d", body, code)
		}
	}
}

// anyRPCError wants a JSON-RPC error body.
var anyRPCError = rpcError(0)

// result wants a JSON-RPC result, as application/json or as the last event
// of a stream when sse is true.
func result(sse bool) check {
	return func(t *testing.T, resp *http.Response, body []byte) {
		t.Helper()
		ct := resp.Header.Get("Content-Type")
		if sse {
			if ct != "text/event-stream" {
				t.Fatalf("Content-Type: got %q, want text/event-stream", ct)
			}
			if got := resp.Header.Get("X-Accel-Buffering"); got != "no" {
				t.Errorf("X-Accel-Buffering: got %q, want no", got)
			}
			resp.Body = io.NopCloser(strings.NewReader(string(body)))
			if m, _ := responseOf(t, resp); m.Result == nil {
				t.Errorf("stream: got %+v, want a result event", m)
			}
			return
		}
		if ct != "application/json" {
			t.Fatalf("Content-Type: got %q, want application/json", ct)
		}
		if m := parseMessage(t, body); m.Result == nil || m.Error != nil {
			t.Errorf("body: got %s, want a JSON-RPC result", body)
		}
	}
}

// empty wants no body.
func empty(t *testing.T, _ *http.Response, body []byte) {
	t.Helper()
	if len(body) != 0 {
		t.Errorf("body: got %q, want none", body)
	}
}

// headerIs wants a response header with a given value.
func headerIs(name, want string) check {
	return func(t *testing.T, resp *http.Response, _ []byte) {
		t.Helper()
		if got := resp.Header.Get(name); got != want {
			t.Errorf("%s: got %q, want %q", name, got, want)
		}
	}
}

var sessionIDRe = regexp.MustCompile(`^[0-9a-f]{32}$`)

// freshSession wants a fresh session id (128 bits in hex) and the core's
// initialize result.
func freshSession(t *testing.T, resp *http.Response, body []byte) {
	t.Helper()
	if sid := resp.Header.Get("Mcp-Session-Id"); !sessionIDRe.MatchString(sid) {
		t.Errorf("Mcp-Session-Id: got %q, want 32 hex characters", sid)
	}
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	m := parseMessage(t, body)
	if err := json.Unmarshal(m.Result, &r); err != nil || r.ProtocolVersion != "2025-06-18" || r.ServerInfo.Name == "" {
		t.Errorf("body: got %s, want the core's initialize result for 2025-06-18", body)
	}
}

const (
	listTools = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	maxBody   = 64 << 10
)

// TestStatusCodes checks each status-code rule of the HTTP surface
// (docs/reference/gateway.md#http-surface) against the real handler and a real core.
func TestStatusCodes(t *testing.T) {
	// A long keep-alive interval: a keep-alive before a slow answer would
	// turn the application/json answers checked here into streams.
	g := newTestGateway(t, func(o *Options) { o.MaxBody, o.KeepAlive = maxBody, time.Minute })
	sid := g.initialize()
	unknown := strings.Repeat("ab", 16)
	tests := []struct {
		name   string
		method string
		header http.Header
		body   string
		want   int
		checks []check
	}{
		{"initialize without session id", "POST", postHeader(""), initializeBody(1), 200, []check{freshSession, result(false)}},
		{"initialize with this session's id", "POST", postHeader(sid), initializeBody(1), 400, []check{anyRPCError}},
		{"initialize with an unknown session id", "POST", postHeader(unknown), initializeBody(1), 400, []check{anyRPCError}},
		{"initialize as a notification", "POST", postHeader(""), `{"jsonrpc":"2.0","method":"initialize","params":{}}`, 400, nil},
		{"request without session id", "POST", postHeader(""), listTools, 400, []check{anyRPCError}},
		{"request with unknown session id", "POST", postHeader(unknown), listTools, 404, []check{anyRPCError}},
		{"request", "POST", postHeader(sid), listTools, 200, []check{result(false)}},
		{"protocol version absent", "POST", postHeader(sid), listTools, 200, []check{result(false)}},
		{"protocol version 2025-03-26", "POST", postHeader(sid, "MCP-Protocol-Version", "2025-03-26"), listTools, 200, []check{result(false)}},
		{"protocol version 2025-06-18", "POST", postHeader(sid, "MCP-Protocol-Version", "2025-06-18"), listTools, 200, []check{result(false)}},
		{"protocol version 2025-11-25", "POST", postHeader(sid, "MCP-Protocol-Version", "2025-11-25"), listTools, 200, []check{result(false)}},
		{"protocol version 2024-11-05", "POST", postHeader(sid, "MCP-Protocol-Version", "2024-11-05"), listTools, 200, []check{result(false)}},
		{"protocol version garbage", "POST", postHeader(sid, "MCP-Protocol-Version", "latest"), listTools, 400, []check{anyRPCError}},
		{"foreign Origin", "POST", postHeader(sid, "Origin", "http://evil.example"), listTools, 403, []check{anyRPCError}},
		{"foreign Origin on initialize", "POST", postHeader("", "Origin", "https://evil.example"), initializeBody(1), 403, []check{anyRPCError}},
		{"Origin null", "POST", postHeader(sid, "Origin", "null"), listTools, 403, []check{anyRPCError}},
		{"loopback Origin", "POST", postHeader(sid, "Origin", "http://localhost:6274"), listTools, 200, []check{result(false)}},
		{"non-loopback Host", "POST", postHeader(sid, "Host", "evil.example"), listTools, 403, []check{anyRPCError}},
		{"non-loopback Host with port", "POST", postHeader("", "Host", "evil.example:80"), initializeBody(1), 403, []check{anyRPCError}},
		{"Host localhost", "POST", postHeader(sid, "Host", "localhost:8080"), listTools, 200, []check{result(false)}},
		{"Host [::1]", "POST", postHeader(sid, "Host", "[::1]:8080"), listTools, 200, []check{result(false)}},
		{"Accept neither JSON nor SSE", "POST", postHeader(sid, "Accept", "text/html"), listTools, 406, []check{anyRPCError}},
		{"Accept JSON only", "POST", postHeader(sid, "Accept", "application/json"), listTools, 200, []check{result(false)}},
		{"Accept SSE only", "POST", postHeader(sid, "Accept", "text/event-stream"), listTools, 200, []check{result(true)}},
		{"Accept */*", "POST", postHeader(sid, "Accept", "*/*"), listTools, 200, []check{result(false)}},
		{"Content-Type text/plain", "POST", postHeader(sid, "Content-Type", "text/plain"), listTools, 415, []check{anyRPCError}},
		{"Content-Type absent", "POST", header("Mcp-Session-Id", sid, "Accept", "application/json"), listTools, 415, nil},
		{"Content-Type application/jsonp", "POST", postHeader(sid, "Content-Type", "application/jsonp"), listTools, 415, nil},
		{"Content-Type with charset", "POST", postHeader(sid, "Content-Type", "application/json; charset=utf-8"), listTools, 200, []check{result(false)}},
		{"body over max", "POST", postHeader(sid), padded(listTools, maxBody+1), 413, []check{anyRPCError}},
		{"body of exactly max", "POST", postHeader(sid), padded(listTools, maxBody), 200, []check{result(false)}},
		{"batch", "POST", postHeader(sid), "[" + listTools + "]", 400, []check{anyRPCError}},
		{"batch after whitespace", "POST", postHeader(sid), " \n[" + listTools + "]", 400, []check{anyRPCError}},
		{"batch initialize", "POST", postHeader(""), "[" + initializeBody(1) + "]", 400, []check{anyRPCError}},
		{"malformed JSON", "POST", postHeader(sid), `{"jsonrpc":"2.0","id":2,`, 400, []check{rpcError(jsonrpc.CodeParseError)}},
		{"empty body", "POST", postHeader(sid), "", 400, []check{rpcError(jsonrpc.CodeParseError)}},
		{"not JSON-RPC 2.0", "POST", postHeader(sid), `{"jsonrpc":"1.0","id":2,"method":"tools/list"}`, 400, nil},
		{"notification", "POST", postHeader(sid), `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`, 202, []check{empty}},
		{"response", "POST", postHeader(sid), `{"jsonrpc":"2.0","id":"s1","result":{}}`, 202, []check{empty}},
		{"error response", "POST", postHeader(sid), `{"jsonrpc":"2.0","id":"s2","error":{"code":-1,"message":"no"}}`, 202, []check{empty}},
		{"PUT", "PUT", postHeader(sid), listTools, 405, []check{headerIs("Allow", "GET, POST, DELETE")}},
		{"PATCH", "PATCH", postHeader(sid), listTools, 405, []check{headerIs("Allow", "GET, POST, DELETE")}},
		{"GET without Accept event-stream", "GET", header("Mcp-Session-Id", sid, "Accept", "application/json"), "", 406, []check{anyRPCError}},
		{"GET without session id", "GET", header("Accept", "text/event-stream"), "", 405, []check{anyRPCError, headerIs("Allow", "POST")}},
		{"GET with unknown session id", "GET", header("Accept", "text/event-stream", "Mcp-Session-Id", unknown), "", 404, nil},
		{"GET with unsupported protocol version", "GET", header("Accept", "text/event-stream", "Mcp-Session-Id", sid, "MCP-Protocol-Version", "1999-01-01"), "", 400, nil},
		{"DELETE without session id", "DELETE", header(), "", 405, []check{anyRPCError, headerIs("Allow", "POST")}},
		{"DELETE with unknown session id", "DELETE", header("Mcp-Session-Id", unknown), "", 404, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := g.do(tt.method, tt.header, tt.body)
			if resp.StatusCode != tt.want {
				t.Fatalf("got %d %s, want %d", resp.StatusCode, body, tt.want)
			}
			for _, c := range tt.checks {
				c(t, resp, body)
			}
		})
	}
	// None of the refusals harmed the session.
	if resp, body := g.do("POST", postHeader(sid), listTools); resp.StatusCode != 200 {
		t.Errorf("after the table: got %d %s, want the session still serving", resp.StatusCode, body)
	}
}

// padded prefixes msg with spaces to n bytes: valid JSON of an exact size.
func padded(msg string, n int) string {
	return strings.Repeat(" ", n-len(msg)) + msg
}

// TestDeleteEndsSession: DELETE answers 204 after killing the core, and the
// id gives 404 to every method from then on.
func TestDeleteEndsSession(t *testing.T) {
	g := newTestGateway(t)
	sid := g.initialize()
	core := g.coreOf(sid)
	if resp, body := g.do("DELETE", header("Mcp-Session-Id", sid), ""); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: got %d %s, want 204", resp.StatusCode, body)
	}
	if !coreExited(core) {
		t.Error("core still running after DELETE answered")
	}
	if n := g.h.Sessions(); n != 0 {
		t.Errorf("sessions after DELETE: got %d, want 0", n)
	}
	for _, tt := range []struct {
		method string
		header http.Header
		body   string
	}{
		{"POST", postHeader(sid), listTools},
		{"POST", postHeader(sid), initializedBody},
		{"GET", header("Mcp-Session-Id", sid, "Accept", "text/event-stream"), ""},
		{"DELETE", header("Mcp-Session-Id", sid), ""},
	} {
		if resp, body := g.do(tt.method, tt.header, tt.body); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s %s after DELETE: got %d %s, want 404", tt.method, tt.body, resp.StatusCode, body)
		}
	}
}

// TestMaxSessions: a full gateway answers initialize with 503 and
// Retry-After, and takes new sessions again once one ends.
func TestMaxSessions(t *testing.T) {
	g := newTestGateway(t, func(o *Options) { o.MaxSessions = 2 })
	first := g.initialize()
	g.initialize()
	resp, body := g.do("POST", postHeader(""), initializeBody(1))
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("third initialize: got %d %s, want 503", resp.StatusCode, body)
	}
	if ra := resp.Header.Get("Retry-After"); ra == "" || strings.Trim(ra, "0123456789") != "" || ra == "0" {
		t.Errorf("Retry-After: got %q, want a positive number of seconds", ra)
	}
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		t.Errorf("503 carries Mcp-Session-Id %q, want none", sid)
	}
	anyRPCError(t, resp, body)
	if n := len(g.cores()); n != 2 {
		t.Errorf("cores running: got %d, want 2 (no core for the refused session)", n)
	}
	if resp, _ := g.do("DELETE", header("Mcp-Session-Id", first), ""); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: got %d, want 204", resp.StatusCode)
	}
	g.initialize()
}

// TestHealthz reports liveness and the session count as JSON.
func TestHealthz(t *testing.T) {
	g := newTestGateway(t)
	health := func() map[string]any {
		t.Helper()
		resp, err := g.srv.Client().Get(g.srv.URL + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("got %d %q, want 200 application/json", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		var got map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := health(); got["status"] != "ok" || got["sessions"] != float64(0) {
		t.Errorf("idle gateway: got %v, want status ok, 0 sessions", got)
	}
	g.initialize()
	g.initialize()
	if got := health(); got["sessions"] != float64(2) {
		t.Errorf("after two initializes: got %v, want 2 sessions", got)
	}
}

// TestCORS: a preflight from an allowed origin allows MCP's request
// headers; responses expose Mcp-Session-Id; other origins get no grant.
func TestCORS(t *testing.T) {
	g := newTestGateway(t, func(o *Options) { o.AllowedOrigins = []string{"https://app.example"} })
	preflight := header(
		"Origin", "https://app.example",
		"Access-Control-Request-Method", "POST",
		// As a browser sends it (Fetch: sorted, lower case, no spaces).
		"Access-Control-Request-Headers", "authorization,content-type,last-event-id,mcp-method,mcp-name,mcp-param-region,mcp-protocol-version,mcp-session-id",
	)
	resp, body := g.do("OPTIONS", preflight, "")
	if resp.StatusCode/100 != 2 {
		t.Fatalf("preflight: got %d %s, want 2xx", resp.StatusCode, body)
	}
	if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "https://app.example" {
		t.Errorf("Access-Control-Allow-Origin: got %q, want https://app.example", got)
	}
	allowed := strings.ToLower(strings.Join(resp.Header.Values("Access-Control-Allow-Headers"), ","))
	for _, h := range []string{"mcp-session-id", "mcp-protocol-version", "last-event-id", "authorization", "content-type", "mcp-method", "mcp-name", "mcp-param-region"} {
		if !strings.Contains(allowed, h) {
			t.Errorf("Access-Control-Allow-Headers %q lacks %s", allowed, h)
		}
	}
	if got := resp.Header.Get("Access-Control-Allow-Methods"); !strings.Contains(got, "POST") {
		t.Errorf("Access-Control-Allow-Methods: got %q, want POST allowed", got)
	}

	resp, body = g.do("POST", postHeader("", "Origin", "https://app.example"), initializeBody(1))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize from the allowed origin: got %d %s, want 200", resp.StatusCode, body)
	}
	exposed := strings.ToLower(strings.Join(resp.Header.Values("Access-Control-Expose-Headers"), ","))
	if !strings.Contains(exposed, "mcp-session-id") {
		t.Errorf("Access-Control-Expose-Headers: got %q, want Mcp-Session-Id exposed", exposed)
	}

	preflight.Set("Origin", "https://evil.example")
	resp, _ = g.do("OPTIONS", preflight, "")
	if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "" {
		t.Errorf("preflight from a foreign origin: Access-Control-Allow-Origin %q, want none", got)
	}
}

// TestFailedInitializeEndsSession: an initialize the core refuses leaves
// no session (and no core) behind, and the id it was given is unknown.
func TestFailedInitializeEndsSession(t *testing.T) {
	g := newTestGateway(t, func(o *Options) { o.KeepAlive = time.Minute })
	resp, body := g.do("POST", postHeader(""), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":7}}`)
	if m := parseMessage(t, body); m.Error == nil {
		t.Fatalf("initialize with a numeric protocolVersion: got %d %s, want a JSON-RPC error", resp.StatusCode, body)
	}
	waitFor(t, "the refused session's core to end", func() bool { return g.h.Sessions() == 0 && len(g.cores()) == 0 })
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		if resp, body := g.do("POST", postHeader(sid), listTools); resp.StatusCode != http.StatusNotFound {
			t.Errorf("the refused session's id: got %d %s, want 404", resp.StatusCode, body)
		}
	}
}
