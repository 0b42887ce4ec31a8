package gateway

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mjkoo/boris/gateway/wire"
)

// meta2026 is the _meta every 2026-07-28 request carries.
func meta2026() map[string]any {
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    wire.StatelessVersion,
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "gateway-test", "version": "1"},
	}
}

// body2026 encodes a 2026-07-28 request; params get the _meta triple
// (merged into a _meta they already have).
func body2026(id any, method string, params map[string]any) string {
	if params == nil {
		params = map[string]any{}
	}
	meta, _ := params["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	for k, v := range meta2026() {
		meta[k] = v
	}
	params["_meta"] = meta
	msg := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
	if id != nil {
		msg["id"] = id
	}
	b, err := json.Marshal(msg)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// header2026 is what a 2026-07-28 client sends with a request for method
// (and name, if not ""), plus kv.
func header2026(method, name string, kv ...string) http.Header {
	h := postHeader("", "MCP-Protocol-Version", wire.StatelessVersion, "Mcp-Method", method)
	if name != "" {
		h.Set("Mcp-Name", name)
	}
	for k, v := range header(kv...) {
		h[k] = v
	}
	return h
}

// call2026 is a tools/call of tool with args, its headers and body.
func call2026(id any, tool string, args map[string]any, kv ...string) (http.Header, string) {
	return header2026("tools/call", tool, kv...), body2026(id, "tools/call", map[string]any{"name": tool, "arguments": args})
}

// without returns h minus the named headers.
func without(h http.Header, names ...string) http.Header {
	h = h.Clone()
	for _, n := range names {
		h.Del(n)
	}
	return h
}

// b64 is a header value in the =?base64?...?= form.
func b64(s string) string { return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=" }

// unsupportedVersion wants -32022 listing the supported versions.
func unsupportedVersion(t *testing.T, _ *http.Response, body []byte) {
	t.Helper()
	var m struct {
		Error struct {
			Code int64 `json:"code"`
			Data struct {
				Supported []string `json:"supported"`
				Requested string   `json:"requested"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &m); err != nil || m.Error.Code != wire.CodeUnsupportedVersion ||
		!strings.Contains(strings.Join(m.Error.Data.Supported, ","), wire.StatelessVersion) || m.Error.Data.Requested == "" {
		t.Errorf("got %s, want -32022 with data.supported including %s and data.requested", body, wire.StatelessVersion)
	}
}

// TestStatelessStatusCodes checks each rule of the 2026-07-28 HTTP
// surface (docs/reference/gateway.md#stateless-requests-2026-07-28) against the real handler and a real core.
func TestStatelessStatusCodes(t *testing.T) {
	g := newTestGateway(t, func(o *Options) { o.MaxBody, o.KeepAlive = maxBody, time.Minute })
	if err := os.WriteFile(filepath.Join(g.dir, "notes.txt"), []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	listBody := body2026(2, "tools/list", nil)
	view := map[string]any{"path": "notes.txt"}
	callH, callB := call2026(3, "view", view)
	noMeta := `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{}}`
	meta2025 := strings.Replace(listBody, wire.StatelessVersion, "2025-11-25", 1)
	tests := []struct {
		name   string
		method string
		header http.Header
		body   string
		want   int
		checks []check
	}{
		{"server/discover", "POST", header2026("server/discover", ""), body2026(1, "server/discover", nil), 200, []check{result(false)}},
		{"tools/list", "POST", header2026("tools/list", ""), listBody, 200, []check{result(false)}},
		{"tools/call", "POST", callH, callB, 200, []check{result(false)}},
		{"tools/call, Mcp-Name in base64", "POST", header2026("tools/call", b64("view")), callB, 200, []check{result(false)}},
		{"SSE only", "POST", header2026("tools/list", "", "Accept", "text/event-stream"), listBody, 200, []check{result(true)}},
		{"notification", "POST", header2026("notifications/cancelled", ""), body2026(nil, "notifications/cancelled", map[string]any{"requestId": 1}), 202, []check{empty}},
		{"response", "POST", header2026("", ""), `{"jsonrpc":"2.0","id":"s1","result":{}}`, 400, []check{anyRPCError}},
		{"unsupported version", "POST", header2026("tools/list", "", "MCP-Protocol-Version", "2027-01-01"), listBody, 400, []check{unsupportedVersion}},
		{"unsupported version, no _meta", "POST", header2026("tools/list", "", "MCP-Protocol-Version", "2099-12-31"), noMeta, 400, []check{unsupportedVersion}},
		{"MCP-Protocol-Version missing", "POST", without(header2026("tools/list", ""), "MCP-Protocol-Version"), listBody, 400, []check{rpcError(wire.CodeHeaderMismatch)}},
		{"MCP-Protocol-Version against _meta 2025-11-25", "POST", header2026("tools/list", ""), meta2025, 400, []check{rpcError(wire.CodeHeaderMismatch)}},
		{"_meta without a protocol version", "POST", header2026("tools/list", ""), noMeta, 400, []check{rpcError(jsonrpc.CodeInvalidParams)}},
		{"no params", "POST", header2026("tools/list", ""), `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`, 400, []check{rpcError(jsonrpc.CodeInvalidParams)}},
		{"initialize", "POST", header2026("initialize", ""), body2026(11, "initialize", map[string]any{"protocolVersion": wire.StatelessVersion, "capabilities": map[string]any{}}),
			404, []check{rpcError(jsonrpc.CodeMethodNotFound)}},
		{"Mcp-Method missing", "POST", without(header2026("tools/list", ""), "Mcp-Method"), listBody, 400, []check{rpcError(wire.CodeHeaderMismatch)}},
		{"Mcp-Method mismatch", "POST", header2026("prompts/list", ""), listBody, 400, []check{rpcError(wire.CodeHeaderMismatch)}},
		{"Mcp-Method in another case", "POST", header2026("Tools/List", ""), listBody, 400, []check{rpcError(wire.CodeHeaderMismatch)}},
		{"Mcp-Name missing", "POST", without(callH, "Mcp-Name"), callB, 400, []check{rpcError(wire.CodeHeaderMismatch)}},
		{"Mcp-Name mismatch", "POST", header2026("tools/call", "bash"), callB, 400, []check{rpcError(wire.CodeHeaderMismatch)}},
		{"Mcp-Name in base64, mismatch", "POST", header2026("tools/call", b64("bash")), callB, 400, []check{rpcError(wire.CodeHeaderMismatch)}},
		{"Mcp-Name bad base64", "POST", header2026("tools/call", "=?base64?!!!?="), callB, 400, []check{rpcError(wire.CodeHeaderMismatch)}},
		{"Mcp-Name not plain ASCII", "POST", header2026("tools/call", "vi\xc3\xa9w"), callB, 400, []check{rpcError(wire.CodeHeaderMismatch)}},
		{"resources/read Mcp-Name mismatch", "POST", header2026("resources/read", "file:///etc/passwd"),
			body2026(5, "resources/read", map[string]any{"uri": "file:///tmp/x"}), 400, []check{rpcError(wire.CodeHeaderMismatch)}},
		{"prompts/get Mcp-Name missing", "POST", header2026("prompts/get", ""), body2026(6, "prompts/get", map[string]any{"name": "p"}), 400, []check{rpcError(wire.CodeHeaderMismatch)}},
		{"unknown method", "POST", header2026("no/such", ""), body2026(7, "no/such", nil), 404, []check{rpcError(jsonrpc.CodeMethodNotFound)}},
		{"ping, gone in 2026-07-28", "POST", header2026("ping", ""), body2026(8, "ping", nil), 404, []check{rpcError(jsonrpc.CodeMethodNotFound)}},
		{"initialize-era method logging/setLevel", "POST", header2026("logging/setLevel", ""), body2026(9, "logging/setLevel", map[string]any{"level": "info"}), 404, []check{rpcError(jsonrpc.CodeMethodNotFound)}},
		{"subscriptions/listen without notifications", "POST", header2026("subscriptions/listen", ""), body2026(10, "subscriptions/listen", nil), 400, []check{rpcError(jsonrpc.CodeInvalidParams)}},
		{"foreign Origin", "POST", header2026("tools/list", "", "Origin", "http://evil.example"), listBody, 403, []check{anyRPCError}},
		{"non-loopback Host", "POST", header2026("tools/list", "", "Host", "evil.example"), listBody, 403, []check{anyRPCError}},
		{"Accept neither JSON nor SSE", "POST", header2026("tools/list", "", "Accept", "text/html"), listBody, 406, []check{anyRPCError}},
		{"body over max", "POST", header2026("tools/list", ""), padded(listBody, maxBody+1), 413, []check{anyRPCError}},
		{"batch", "POST", header2026("tools/list", ""), "[" + listBody + "]", 400, []check{anyRPCError}},
		// A request naming a session follows the session revisions, and
		// 2026-07-28 is none of them.
		{"with an Mcp-Session-Id", "POST", header2026("tools/list", "", "Mcp-Session-Id", strings.Repeat("cd", 16)), listBody, 400, []check{anyRPCError}},
		{"GET", "GET", header("Accept", "text/event-stream", "MCP-Protocol-Version", wire.StatelessVersion), "", 405, []check{anyRPCError, headerIs("Allow", "POST")}},
		{"DELETE", "DELETE", header("MCP-Protocol-Version", wire.StatelessVersion), "", 405, []check{anyRPCError, headerIs("Allow", "POST")}},
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
	// One principal, one core: the anonymous principal's requests all
	// went to the same core, and it is no session.
	if n, p := g.h.table.Count(), g.h.table.CountPrincipals(); n != 1 || p != 1 {
		t.Errorf("after the table: %d cores, %d of them principals', want 1 and 1", n, p)
	}
}

// TestStatelessCoreKeepsState: a principal's requests share one core, so
// a cd, a background task and the same JSON-RPC id used by two clients at
// once all behave as on one session; another principal has a core of its
// own, and neither core answers as a session.
func TestStatelessCoreKeepsState(t *testing.T) {
	g := newTestGateway(t, func(o *Options) {
		o.Principal = func(r *http.Request) Principal {
			who := r.Header.Get("X-Test-Principal")
			return Principal{Subject: who, Key: "static:" + who, SubjectKey: "static:" + who}
		}
	})
	sub := filepath.Join(g.dir, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	bash := func(who string, id any, command string) string {
		t.Helper()
		h, b := call2026(id, "bash", map[string]any{"command": command}, "X-Test-Principal", who)
		resp := g.send("POST", h, b)
		m, _ := responseOf(t, resp)
		if resp.StatusCode != 200 || m.Error != nil {
			t.Fatalf("%s: bash %q: got %d %+v", who, command, resp.StatusCode, m.Error)
		}
		if got, want := fmt.Sprint(m.ID), fmt.Sprint(id); got != want {
			t.Fatalf("%s: response id %s, want the request's %s", who, got, want)
		}
		return toolText(t, m)
	}
	bash("alice", 1, "cd sub")
	if got := bash("alice", 1, "pwd"); !strings.Contains(got, sub) {
		t.Errorf("alice's second request: pwd %q, want %s (the first request's cd)", got, sub)
	}
	if got := bash("bob", 1, "pwd"); strings.Contains(got, sub) {
		t.Errorf("bob's request: pwd %q, want bob's own core, not in alice's %s", got, sub)
	}
	started := bash("alice", "bg", "echo from-the-background")
	h, b := call2026(7, "bash", map[string]any{"command": "sleep 0.2; echo bg-done", "run_in_background": true}, "X-Test-Principal", "alice")
	resp := g.send("POST", h, b)
	m, _ := responseOf(t, resp)
	task := toolText(t, m)
	_, task, _ = strings.Cut(task, "task_id: ")
	task, _, _ = strings.Cut(task, "\n")
	h, b = call2026(8, "task_output", map[string]any{"task_id": task, "block": true}, "X-Test-Principal", "alice")
	resp = g.send("POST", h, b)
	m, _ = responseOf(t, resp)
	if got := toolText(t, m); !strings.Contains(got, "bg-done") {
		t.Errorf("task_output of %q in a later request: %q, want bg-done (started: %q)", task, got, started)
	}

	// Ten requests of one principal at once, all with id 1: each gets its
	// own answer.
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Go(func() {
			word := fmt.Sprintf("word-%d", i)
			if got := bash("alice", 1, "sleep 0.1; echo "+word); !strings.Contains(got, word) {
				t.Errorf("concurrent request %d: got %q, want %s", i, got, word)
			}
		})
	}
	wg.Wait()
	if n, p := g.h.table.Count(), g.h.table.CountPrincipals(); n != 2 || p != 2 {
		t.Errorf("%d cores, %d of them principals', want 2 and 2", n, p)
	}
	// A principal's core is no session: its id does not open it.
	for _, c := range g.h.table.Cores() {
		resp, body := g.do("POST", postHeader(c.ID, "X-Test-Principal", "alice"), listTools)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("a principal core's id as Mcp-Session-Id: got %d %s, want 404", resp.StatusCode, body)
		}
	}
}

// TestStatelessProgressAndCancel: progress reaches the request's stream
// with the client's own token, and closing the stream cancels the call:
// its command is killed.
func TestStatelessProgressAndCancel(t *testing.T) {
	g := newTestGateway(t)
	h := header2026("tools/call", "bash")
	b := body2026("p1", "tools/call", map[string]any{"name": "bash", "arguments": map[string]any{"command": "echo one; sleep 1.2; echo two"},
		"_meta": map[string]any{"progressToken": "my-token"}})
	final, before := responseOf(t, g.send("POST", h, b))
	if final.Error != nil || len(before) == 0 {
		t.Fatalf("got %+v after %d notifications, want a result after progress", final, len(before))
	}
	for _, n := range before {
		if p := progressOf(t, n); p.ProgressToken != "my-token" {
			t.Errorf("progress token %v, want the client's my-token", p.ProgressToken)
		}
	}

	marker := sleepMarker()
	resp := g.send("POST", header2026("tools/call", "bash"), body2026(9, "tools/call", map[string]any{"name": "bash", "arguments": map[string]any{"command": "sleep " + marker}}))
	waitFor(t, "the sleep to start", func() bool { return len(processesWith(marker)) > 0 })
	resp.Body.Close()
	waitFor(t, "the cancelled call's sleep to be killed", func() bool { return len(processesWith(marker)) == 0 })
	// The id is free again once the core has answered the cancelled call.
	h, b = call2026(9, "bash", map[string]any{"command": "echo after"})
	if m, _ := responseOf(t, g.send("POST", h, b)); !strings.Contains(toolText(t, m), "after") {
		t.Errorf("a call after the cancelled one: got %+v", m)
	}
}

// extensionTool writes an extension tool into dir/tools/name: its script
// prints the arguments it got.
func extensionTool(t *testing.T, dir, name, schema string) {
	t.Helper()
	tool := filepath.Join(dir, "tools", name)
	if err := os.MkdirAll(tool, 0o755); err != nil {
		t.Fatal(err)
	}
	meta := fmt.Sprintf(`{"name": %q, "description": "test tool", "inputSchema": %s}`, name, schema)
	if err := os.WriteFile(filepath.Join(tool, "tool.meta.json"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho \"args: $MCP_TOOL_ARGS_JSON\"\n"
	if err := os.WriteFile(filepath.Join(tool, "tool.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestStatelessParamHeaders: arguments a tool's schema mirrors into
// Mcp-Param-* headers (x-mcp-header) must come with those headers, equal
// to the body's values.
func TestStatelessParamHeaders(t *testing.T) {
	ext := t.TempDir()
	extensionTool(t, ext, "query", `{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"limit":{"type":"integer","x-mcp-header":"Limit"},
		"dry":{"type":"boolean","x-mcp-header":"Dry"},
		"where":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}},
		"text":{"type":"string"}}}`)
	g := newTestGateway(t, func(o *Options) { o.CoreArgs = append(o.CoreArgs, "--extensions", ext) })
	args := map[string]any{"region": "us-west1", "limit": 42, "dry": true, "where": map[string]any{"zone": "b"}, "text": "x"}
	all := []string{"Mcp-Param-Region", "us-west1", "Mcp-Param-Limit", "42", "Mcp-Param-Dry", "true", "Mcp-Param-Zone", "b"}
	tests := []struct {
		name string
		args map[string]any
		kv   []string
		want int
	}{
		{"every header", args, all, 200},
		{"integer as 42.0, region in base64", args, append(all, "Mcp-Param-Limit", "42.0", "Mcp-Param-Region", b64("us-west1")), 200},
		{"region missing", args, append(all, "Mcp-Param-Region", ""), 400},
		{"region mismatch", args, append(all, "Mcp-Param-Region", "eu-west1"), 400},
		{"limit mismatch", args, append(all, "Mcp-Param-Limit", "43"), 400},
		{"dry as True", args, append(all, "Mcp-Param-Dry", "True"), 400},
		{"nested zone mismatch", args, append(all, "Mcp-Param-Zone", "c"), 400},
		{"only text: no header expected", map[string]any{"text": "x"}, nil, 200},
		{"null region: no header expected", map[string]any{"region": nil}, nil, 200},
		{"header for an absent argument", map[string]any{"text": "x"}, []string{"Mcp-Param-Region", "us-west1"}, 400},
		{"unknown Mcp-Param header is ignored", map[string]any{"text": "x"}, []string{"Mcp-Param-Other", "1"}, 200},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, b := call2026(i, "query", tt.args)
			for k := 0; k+1 < len(tt.kv); k += 2 {
				if tt.kv[k+1] == "" {
					h.Del(tt.kv[k])
				} else {
					h.Set(tt.kv[k], tt.kv[k+1])
				}
			}
			resp, body := g.do("POST", h, b)
			if resp.StatusCode != tt.want {
				t.Fatalf("got %d %s, want %d", resp.StatusCode, body, tt.want)
			}
			if tt.want == 400 {
				rpcError(wire.CodeHeaderMismatch)(t, resp, body)
			}
		})
	}
}

// TestStatelessListen: two clients' subscriptions/listen streams each get
// a tools list change under their own listen id, after an
// acknowledgement of what they asked for that the core offers.
func TestStatelessListen(t *testing.T) {
	ext := t.TempDir()
	extensionTool(t, ext, "first", `{"type":"object"}`)
	g := newTestGateway(t, func(o *Options) { o.CoreArgs = append(o.CoreArgs, "--extensions", ext) })
	open := func(id any) <-chan sseItem {
		t.Helper()
		resp := g.send("POST", header2026("subscriptions/listen", ""), body2026(id, "subscriptions/listen",
			map[string]any{"notifications": map[string]any{"toolsListChanged": true, "resourceSubscriptions": []string{"file:///nowhere"}}}))
		t.Cleanup(func() { resp.Body.Close() })
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("listen: got %d %s, want an event stream", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		ch := readSSE(resp.Body)
		ack := nextEvent(t, ch)
		var p struct {
			Meta          map[string]any `json:"_meta"`
			Notifications map[string]any `json:"notifications"`
		}
		_ = json.Unmarshal(ack.Params, &p)
		if ack.Method != "notifications/subscriptions/acknowledged" || fmt.Sprint(p.Meta["io.modelcontextprotocol/subscriptionId"]) != fmt.Sprint(id) ||
			p.Notifications["toolsListChanged"] != true || p.Notifications["resourceSubscriptions"] != nil {
			t.Fatalf("first event: %s %s, want an acknowledgement of toolsListChanged (the core has no resources to watch) for listen %v", ack.Method, ack.Params, id)
		}
		return ch
	}
	a, b := open("listen-a"), open(1)
	extensionTool(t, ext, "second", `{"type":"object"}`)
	for id, ch := range map[string]<-chan sseItem{"listen-a": a, "1": b} {
		n := nextEvent(t, ch)
		var p struct {
			Meta map[string]any `json:"_meta"`
		}
		_ = json.Unmarshal(n.Params, &p)
		if n.Method != "notifications/tools/list_changed" || fmt.Sprint(p.Meta["io.modelcontextprotocol/subscriptionId"]) != id {
			t.Errorf("listen %s: got %s %s, want tools/list_changed under its id", id, n.Method, n.Params)
		}
	}
	// The second tool is listed.
	resp, body := g.do("POST", header2026("tools/list", ""), body2026(3, "tools/list", nil))
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"second"`) {
		t.Errorf("tools/list after the change: %d %s", resp.StatusCode, body)
	}
}

// TestStatelessLimits: a principal's core counts against its subject's
// quota like a session, is ended by the idle timeout like one, and the
// next request starts a fresh one.
func TestStatelessLimits(t *testing.T) {
	g := newTestGateway(t, func(o *Options) {
		o.MaxSessions, o.MaxPerSubject, o.IdleTimeout = 4, 1, 300*time.Millisecond
		o.Principal = func(*http.Request) Principal {
			return Principal{Subject: "alice", Key: "static:alice", SubjectKey: "static:alice"}
		}
	})
	sid := g.initialize()
	h, b := call2026(1, "bash", map[string]any{"command": "true"})
	if resp, body := g.do("POST", h, b); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a 2026 request while the subject holds its one session: got %d %s, want 429", resp.StatusCode, body)
	}
	g.do("DELETE", header("Mcp-Session-Id", sid), "")
	if err := os.Mkdir(filepath.Join(g.dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	h, b = call2026(2, "bash", map[string]any{"command": "cd sub"})
	if resp, body := g.do("POST", h, b); resp.StatusCode != 200 {
		t.Fatalf("after the session ended: got %d %s, want 200", resp.StatusCode, body)
	}
	// (Not counted here: under load the idle timeout may already have
	// ended it.)
	if cores := g.cores(); len(cores) > 1 {
		t.Fatalf("cores %v, want at most the principal's one", cores)
	}
	waitFor(t, "the idle principal core to end", func() bool { return len(g.cores()) == 0 && g.h.table.CountPrincipals() == 0 })
	h, b = call2026(3, "bash", map[string]any{"command": "pwd"})
	resp, body := g.do("POST", h, b)
	if resp.StatusCode != 200 || strings.Contains(string(body), "/sub") {
		t.Errorf("after idle expiry: got %d %s, want a fresh core (not in sub)", resp.StatusCode, body)
	}
}

// TestStatelessSlowStartNotIdle: a principal core whose start takes
// longer than the idle timeout serves the request it was started for; it
// is not ended as idle before the request reaches it.
func TestStatelessSlowStartNotIdle(t *testing.T) {
	g := newTestGateway(t, func(o *Options) {
		o.IdleTimeout = 2 * time.Millisecond // far shorter than any core's start
		o.Principal = func(*http.Request) Principal {
			return Principal{Subject: "alice", Key: "static:alice", SubjectKey: "static:alice"}
		}
	})
	for i := range 3 {
		h, b := call2026(i+1, "bash", map[string]any{"command": "echo served"})
		if resp, body := g.do("POST", h, b); resp.StatusCode != 200 || !strings.Contains(string(body), "served") {
			t.Fatalf("request %d: got %d %s, want 200 and its result", i+1, resp.StatusCode, body)
		}
	}
}

// fakeCore is a core that, asked anything after the gateway's own listen,
// sends its client a request (which a 2026-07-28 client cannot be sent),
// then answers the call with whatever came back to it.
const fakeCore = `#!/bin/sh
read -r listen
read -r call
id=$(printf '%s' "$call" | sed -n 's/^{"jsonrpc":"2.0","id":"\([^"]*\)".*/\1/p')
echo '{"jsonrpc":"2.0","id":"core-1","method":"elicitation/create","params":{"message":"who are you?"}}'
read -r answer
printf '{"jsonrpc":"2.0","id":"%s","result":{"answer":%s}}\n' "$id" "$answer"
read -r rest
`

// TestStatelessCoreRequestRefused: a request a principal's core sends
// toward its client is answered by the gateway at once with -32601, so the
// core never waits for a client that cannot answer, and the client's call
// still gets its result.
func TestStatelessCoreRequestRefused(t *testing.T) {
	core := filepath.Join(t.TempDir(), "fake-core")
	if err := os.WriteFile(core, []byte(fakeCore), 0o755); err != nil {
		t.Fatal(err)
	}
	g := newTestGateway(t, func(o *Options) { o.Core, o.KeepAlive = core, time.Minute })
	resp, body := g.do("POST", header2026("resources/list", ""), body2026("my-id", "resources/list", nil))
	var m struct {
		ID     string `json:"id"`
		Result struct {
			Answer struct {
				ID    string `json:"id"`
				Error struct {
					Code    int64  `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			} `json:"answer"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &m); err != nil || resp.StatusCode != 200 {
		t.Fatalf("got %d %s, want the fake core's result", resp.StatusCode, body)
	}
	a := m.Result.Answer
	if m.ID != "my-id" || a.ID != "core-1" || a.Error.Code != jsonrpc.CodeMethodNotFound || !strings.Contains(a.Error.Message, "elicitation/create") {
		t.Errorf("got %s, want the client's id and, as the core's answer, -32601 for its elicitation/create", body)
	}
}

// TestStatelessLogsReachTheirRequest: a principal's core serves two
// requests of the principal at once, each an extension tool that logs
// (notifications/message) while the other runs; every log reaches the
// request it is about, none the other, and the gateway's tag is not shown.
func TestStatelessLogsReachTheirRequest(t *testing.T) {
	ext := t.TempDir()
	tool := filepath.Join(ext, "tools", "chatty")
	if err := os.MkdirAll(tool, 0o755); err != nil {
		t.Fatal(err)
	}
	meta := `{"name": "chatty", "description": "logs its who argument", "inputSchema": {"type":"object","properties":{"who":{"type":"string"}}}}`
	// Each logs, then waits for the other's first log (a file it leaves)
	// before it logs again: both are in flight while either logs.
	script := `#!/usr/bin/env bash
set -euo pipefail
source "${MCP_SDK:?}/tool-sdk.sh"
who="$(mcp_args_get .who)"
other="$(mcp_args_get .other)"
mcp_log_info chatty "$who 1"
touch "mark-$who" # in the core's working directory
for _ in $(seq 200); do [ -e "mark-$other" ] && break; sleep 0.05; done
sleep 0.3
mcp_log_info chatty "$who 2"
mcp_emit_text "done $who"
`
	if err := os.WriteFile(filepath.Join(tool, "tool.meta.json"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tool, "tool.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	g := newTestGateway(t, func(o *Options) { o.CoreArgs = append(o.CoreArgs, "--extensions", ext) })
	call := func(id, who, other string) (rpcMessage, []rpcMessage) {
		h := header2026("tools/call", "chatty")
		b := body2026(id, "tools/call", map[string]any{"name": "chatty", "arguments": map[string]any{"who": who, "other": other},
			"_meta": map[string]any{"io.modelcontextprotocol/logLevel": "info",
				// A client cannot choose the gateway's tag: it is replaced.
				"io.github.mjkoo.boris/related-request": "gw-1"}})
		return responseOf(t, g.send("POST", h, b))
	}
	type result struct {
		final  rpcMessage
		before []rpcMessage
	}
	results := map[string]result{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, who := range []string{"alpha", "beta"} {
		other := map[string]string{"alpha": "beta", "beta": "alpha"}[who]
		wg.Go(func() {
			final, before := call("req-"+who, who, other)
			mu.Lock()
			defer mu.Unlock()
			results[who] = result{final, before}
		})
	}
	wg.Wait()
	for who, r := range results {
		if !strings.Contains(toolText(t, r.final), "done "+who) {
			t.Errorf("%s: got %+v, want its result", who, r.final)
		}
		var got []string
		for _, m := range r.before {
			if m.Method != "notifications/message" {
				continue
			}
			var p struct {
				Data string         `json:"data"`
				Meta map[string]any `json:"_meta"`
			}
			if err := json.Unmarshal(m.Params, &p); err != nil {
				t.Fatalf("%s: log %s: %v", who, m.Params, err)
			}
			if len(p.Meta) != 0 {
				t.Errorf("%s: log %s carries _meta %v, want the gateway's tag taken out", who, m.Params, p.Meta)
			}
			got = append(got, p.Data)
		}
		if want := []string{who + " 1", who + " 2"}; strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: got logs %q, want %q (its own, in order)", who, got, want)
		}
	}
}
