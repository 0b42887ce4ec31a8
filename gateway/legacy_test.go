package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// legacyStream is an open 2024-11-05 SSE stream of a test gateway.
type legacyStream struct {
	endpoint string // the absolute URL the endpoint event names
	sid      string
	events   <-chan sseItem
	close    func()
}

// openLegacy opens an SSE stream with token and reads its endpoint event.
func (g *testGateway) openLegacy(token string) *legacyStream {
	g.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, g.srv.URL+"/sse", nil)
	if err != nil {
		g.t.Fatal(err)
	}
	req.Header = header("Accept", "text/event-stream", "Authorization", "Bearer "+token)
	resp, err := g.srv.Client().Do(req)
	if err != nil {
		g.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		cancel()
		g.t.Fatalf("GET /sse: got %d, want 200", resp.StatusCode)
	}
	st := &legacyStream{events: readSSE(resp.Body), close: func() { cancel(); resp.Body.Close() }}
	g.t.Cleanup(st.close)
	var first sseItem
	for first = nextItem(g.t, st.events); first.comment != ""; first = nextItem(g.t, st.events) {
	}
	if !strings.HasPrefix(first.data, "sse?sessionId=") {
		g.t.Fatalf("first event: got data %q, want the endpoint sse?sessionId=ID", first.data)
	}
	base, _ := url.Parse(g.srv.URL + "/sse")
	ref, err := base.Parse(first.data)
	if err != nil {
		g.t.Fatal(err)
	}
	st.endpoint, st.sid = ref.String(), ref.Query().Get("sessionId")
	return st
}

// postLegacy POSTs body to a legacy endpoint with token, returning the
// status and body.
func (g *testGateway) postLegacy(endpoint, token, body string) (int, string) {
	g.t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		g.t.Fatal(err)
	}
	req.Header = header("Content-Type", "application/json", "Authorization", "Bearer "+token)
	resp, err := g.client().Do(req)
	if err != nil {
		g.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestLegacySSESession drives a 2024-11-05 session as an SSE-only client
// does: the endpoint event, initialize and a tool call POSTed, their
// answers and the call's progress on the stream, and the session and its
// core gone once the stream closes.
func TestLegacySSESession(t *testing.T) {
	g, _ := newAuthGateway(t, nil, "--token", "alice="+authAliceToken)
	st := g.openLegacy(authAliceToken)
	core := g.coreOf(st.sid)
	post := func(body string) {
		t.Helper()
		if code, b := g.postLegacy(st.endpoint, authAliceToken, body); code != http.StatusAccepted {
			t.Fatalf("POST %s: got %d %s, want 202", body, code, b)
		}
	}
	post(strings.Replace(initializeBody(1), "2025-06-18", "2024-11-05", 1))
	init := nextEvent(t, st.events)
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(init.Result, &res); err != nil || res.ProtocolVersion != "2024-11-05" {
		t.Fatalf("initialize on the stream: got %+v, want protocolVersion 2024-11-05", init)
	}
	post(initializedBody)
	post(callBody(2, "bash", map[string]any{"command": "echo one; sleep 1.5; echo two"}, "tok"))
	var progress int
	for {
		m := nextEvent(t, st.events)
		if m.Method == "notifications/progress" {
			progress++
			continue
		}
		if text := toolText(t, m); !strings.Contains(text, "one\ntwo") {
			t.Fatalf("bash on the stream: got %q, want one and two", text)
		}
		break
	}
	if progress == 0 {
		t.Error("no progress notification on the stream before the bash result")
	}
	st.close()
	waitFor(t, "the session to end once its stream closed", func() bool { return g.h.Sessions() == 0 && coreExited(core) })
	if code, _ := g.postLegacy(st.endpoint, authAliceToken, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); code != http.StatusNotFound {
		t.Errorf("POST after the stream closed: got %d, want 404", code)
	}
	wantNoCore(t, g)
}

// TestLegacySSEOwnership: a hostile principal that learns another's
// session id cannot post into it, nor reach it through /mcp; a Streamable
// HTTP session cannot be driven through the SSE endpoint; nothing of the
// victim's session is disturbed.
func TestLegacySSEOwnership(t *testing.T) {
	g, _ := newAuthGateway(t, nil, "--token", "alice="+authAliceToken, "--token", "bob="+authBobToken)
	victim := g.openLegacy(authAliceToken)
	streamable := g.initializeAs(authAliceToken)
	list := `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`
	tests := []struct {
		name, endpoint, token string
	}{
		{"another principal posts into the session", victim.endpoint, authBobToken},
		{"the session's id, another spelling of the parameter", strings.Replace(victim.endpoint, "sessionId", "sessionid", 1), authAliceToken},
		{"a Streamable HTTP session's id at the SSE endpoint", g.srv.URL + "/sse?sessionId=" + streamable, authAliceToken},
		{"an unknown id", g.srv.URL + "/sse?sessionId=" + strings.Repeat("ab", 16), authAliceToken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := g.postLegacy(tt.endpoint, tt.token, list)
			if code != http.StatusNotFound && code != http.StatusBadRequest {
				t.Fatalf("got %d %s, want 404 (or 400 for no id)", code, body)
			}
		})
	}
	for _, token := range []string{authBobToken, authAliceToken} {
		resp, body := g.do(http.MethodPost, authHeader(token, victim.sid), list)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("POST /mcp naming the SSE session with %s's token: got %d %s, want 404", token[:4], resp.StatusCode, body)
		}
	}
	select {
	case it := <-victim.events:
		if it.comment == "" {
			t.Errorf("the victim's stream carried %q: someone else's message reached it", it.data)
		}
	default:
	}
	if code, body := g.postLegacy(victim.endpoint, authAliceToken, list); code != http.StatusAccepted {
		t.Fatalf("the owner's POST: got %d %s, want 202", code, body)
	}
	// Not initialized: the core answers with an error, but it answers the
	// owner, on the owner's stream.
	if m := nextEvent(t, victim.events); m.ID != float64(7) {
		t.Errorf("the owner's tools/list: got %+v, want the answer to id 7", m)
	}
}

// TestLegacySSEUnauthenticated: without a token the SSE endpoint answers
// 401 and starts no core.
func TestLegacySSEUnauthenticated(t *testing.T) {
	g, _ := newAuthGateway(t, nil, "--token", "alice="+authAliceToken)
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		req, _ := http.NewRequest(method, g.srv.URL+"/sse", strings.NewReader(`{}`))
		req.Header = header("Accept", "text/event-stream", "Content-Type", "application/json")
		resp, err := g.client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s /sse without a token: got %d (WWW-Authenticate %q), want 401 with a challenge", method, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
	}
	wantNoCore(t, g)
}

// TestSession20241105: a Streamable HTTP client of 2024-11-05 gets its
// revision from initialize and may then name it in MCP-Protocol-Version.
func TestSession20241105(t *testing.T) {
	g := newTestGateway(t)
	resp, body := g.do(http.MethodPost, postHeader(""), strings.Replace(initializeBody(1), "2025-06-18", "2024-11-05", 1))
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"protocolVersion":"2024-11-05"`) {
		t.Fatalf("initialize at 2024-11-05: got %d %s, want 200 and the revision", resp.StatusCode, body)
	}
	h := postHeader(sid, "MCP-Protocol-Version", "2024-11-05")
	if resp, body := g.do(http.MethodPost, h, initializedBody); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: got %d %s, want 202", resp.StatusCode, body)
	}
	final, _ := responseOf(t, g.send(http.MethodPost, h, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
	if final.Error != nil || !strings.Contains(string(final.Result), `"bash"`) {
		t.Fatalf("tools/list with MCP-Protocol-Version 2024-11-05: got %+v, want the tools", final)
	}
}

// TestSSEPathFlag: --sse-path takes an absolute path the gateway does not
// serve already, or off.
func TestSSEPathFlag(t *testing.T) {
	tests := []struct {
		value string
		ok    bool
	}{
		{"/sse", true}, {"/legacy/sse", true}, {"off", true},
		{"sse", false}, {"/", false}, {"/sse/", false}, {"/a//b", false}, {"/mcp", false},
		{"/healthz", false}, {"/dashboard/sse", false}, {"/.well-known/x", false}, {"/s e", false}, {"/s{x}", false},
	}
	for _, tt := range tests {
		_, err := ParseConfig([]string{"--sse-path", tt.value}, nil, io.Discard)
		if (err == nil) != tt.ok {
			t.Errorf("--sse-path %q: got error %v, want ok=%v", tt.value, err, tt.ok)
		}
	}
}

// TestLegacySSEUnreadBounded: a client that opens a stream, sends calls
// and stops reading cannot make the gateway hold their answers without
// bound: once it has read nothing for --write-timeout it is cut off, and
// its session and core end with the stream.
func TestLegacySSEUnreadBounded(t *testing.T) {
	g := newTestGateway(t, func(o *Options) {
		o.SSEPath, o.WriteTimeout, o.MaxBuffered = "/sse", time.Second, 4<<20
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, g.srv.URL+"/sse", nil)
	resp, err := g.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	var endpoint string
	for endpoint == "" {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the endpoint event: %v", err)
		}
		if rest, ok := strings.CutPrefix(line, "data: "); ok {
			endpoint = g.srv.URL + "/" + strings.TrimSpace(rest)
		}
	}
	sid := endpoint[strings.LastIndex(endpoint, "=")+1:]
	core := g.coreOf(sid)
	post := func(body string) int {
		code, _ := g.postLegacy(endpoint, "", body)
		return code
	}
	post(initializeBody(1))
	post(initializedBody)
	// About 1 MiB a view, far more than the socket buffers hold once the
	// client reads nothing more.
	line := strings.Repeat("x", 1900) + "\n"
	if err := os.WriteFile(filepath.Join(g.dir, "big.txt"), []byte(strings.Repeat(line, 520)), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range 24 {
		if code := post(callBody(10+i, "view", map[string]any{"path": "big.txt", "view_range": []int{1, 520}}, "")); code != http.StatusAccepted {
			break // the session already ended: what the test waits for
		}
	}
	waitFor(t, "the session of a client that stopped reading to end", func() bool { return g.h.Sessions() == 0 && coreExited(core) })
	if n := g.h.cores.lim.Total.InUse(); n != 0 {
		t.Errorf("the gateway still holds %d bytes of the ended session's messages, want 0", n)
	}
}
