package test

import (
	"context"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// gwCallTool runs a tool through a gateway session and fails the test on a
// protocol error or a tool error.
func gwCallTool(t *testing.T, s *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s %v: protocol error: %v", name, args, err)
	}
	if res.IsError {
		t.Fatalf("call %s %v: got error %q, want success", name, args, text(res))
	}
	return text(res)
}

// gwToolNames lists a session's tool names.
func gwToolNames(t *testing.T, s *mcp.ClientSession) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// TestGatewayDefaultClient: go-sdk's client with default options tries
// the 2026-07-28 server/discover handshake first, gets the core's answer
// through the gateway, and speaks 2026-07-28: no session, one core for
// the principal.
func TestGatewayDefaultClient(t *testing.T) {
	g := startGateway(t)
	s := g.connect(nil, &mcp.ClientSessionOptions{})
	if got := s.InitializeResult().ProtocolVersion; got != "2026-07-28" {
		t.Errorf("negotiated protocol version: got %q, want 2026-07-28", got)
	}
	if got := s.InitializeResult().ServerInfo; got == nil || got.Name != "boris" {
		t.Errorf("server info: got %+v, want the core's (boris)", got)
	}
	if n, p := g.sessions(), g.principalCores(); n != 0 || p != 1 {
		t.Errorf("after one connect: %d sessions and %d principal cores, want 0 and 1", n, p)
	}
	if got := gwCallTool(t, s, "bash", map[string]any{"command": "echo through the gateway"}); got != "stdout:\nthrough the gateway\nexit_code: 0" {
		t.Errorf("bash: got %q", got)
	}
}

// TestGatewayTools calls every tool the core lists through go-sdk's
// Streamable HTTP client, gateway and core, and checks each result and its
// effect on disk. Tools added later (grep, glob, task_output, task_stop)
// are exercised when tools/list has them.
func TestGatewayTools(t *testing.T) {
	g := startGateway(t)
	s := g.connect(nil, nil)
	dir := g.dir
	tools := gwToolNames(t, s)
	for _, want := range []string{"bash", "view", "str_replace", "create_file"} {
		if !slices.Contains(tools, want) {
			t.Fatalf("tools/list: got %v, want %s among them", tools, want)
		}
	}
	path := filepath.Join(dir, "src", "main.txt")
	t.Run("create_file", func(t *testing.T) {
		gwCallTool(t, s, "create_file", map[string]any{"path": path, "content": "alpha\nbeta needle\n"})
		if got := readFile(t, path); got != "alpha\nbeta needle\n" {
			t.Errorf("file after create_file: got %q", got)
		}
	})
	t.Run("str_replace", func(t *testing.T) {
		gwCallTool(t, s, "str_replace", map[string]any{"path": path, "old_str": "alpha", "new_str": "gamma"})
		if got := readFile(t, path); got != "gamma\nbeta needle\n" {
			t.Errorf("file after str_replace: got %q", got)
		}
	})
	t.Run("view", func(t *testing.T) {
		if got := gwCallTool(t, s, "view", map[string]any{"path": path}); got != "     1\tgamma\n     2\tbeta needle\n" {
			t.Errorf("view: got %q", got)
		}
	})
	t.Run("bash", func(t *testing.T) {
		if got := gwCallTool(t, s, "bash", map[string]any{"command": "cd src && pwd && cat main.txt"}); got != "stdout:\n"+filepath.Join(dir, "src")+"\ngamma\nbeta needle\nexit_code: 0" {
			t.Errorf("bash: got %q", got)
		}
		// The session's core keeps its shell state between requests.
		if got := gwCallTool(t, s, "bash", map[string]any{"command": "pwd"}); got != "stdout:\n"+filepath.Join(dir, "src")+"\nexit_code: 0" {
			t.Errorf("bash after cd: got %q, want the directory kept", got)
		}
	})
	t.Run("tool error", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "view", Arguments: map[string]any{"path": filepath.Join(dir, "missing")}})
		if err != nil || !res.IsError || !strings.HasPrefix(text(res), "[") {
			t.Errorf("view of a missing file: got %v %+v, want a tool error with a code", err, res)
		}
	})
	if slices.Contains(tools, "grep") {
		t.Run("grep", func(t *testing.T) {
			if got := gwCallTool(t, s, "grep", map[string]any{"pattern": "needle", "path": dir}); !strings.Contains(got, path) {
				t.Errorf("grep: got %q, want %s listed", got, path)
			}
		})
	}
	if slices.Contains(tools, "glob") {
		t.Run("glob", func(t *testing.T) {
			if got := gwCallTool(t, s, "glob", map[string]any{"pattern": "**/*.txt", "path": dir}); !strings.Contains(got, path) {
				t.Errorf("glob: got %q, want %s listed", got, path)
			}
		})
	}
	if slices.Contains(tools, "task_output") && slices.Contains(tools, "task_stop") {
		t.Run("background task", func(t *testing.T) {
			marker := gwSleepMarker()
			started := gwCallTool(t, s, "bash", map[string]any{"command": "echo started; sleep " + marker, "run_in_background": true})
			id, ok := strings.CutPrefix(strings.SplitN(started, "\n", 2)[0], "task_id: ")
			if !ok {
				t.Fatalf("bash run_in_background: got %q, want a task_id line", started)
			}
			waitFor(t, "the task's command", func() bool { return len(processesWith("sleep "+marker)) > 0 })
			waitFor(t, "the task's output", func() bool {
				return strings.Contains(gwCallTool(t, s, "task_output", map[string]any{"task_id": id, "block": false}), "started")
			})
			if got := gwCallTool(t, s, "task_stop", map[string]any{"task_id": id}); !strings.Contains(got, "status: killed") {
				t.Errorf("task_stop: got %q, want status: killed", got)
			}
			waitNoProcesses(t, "sleep "+marker)
		})
	}
}

// TestGatewaySessionsIsolated: each session has a core of its own, so one
// session's shell state is invisible to another.
func TestGatewaySessionsIsolated(t *testing.T) {
	g := startGateway(t)
	a, b := g.connect(nil, nil), g.connect(nil, nil)
	gwCallTool(t, a, "bash", map[string]any{"command": "mkdir -p sub && cd sub"})
	if got := gwCallTool(t, b, "bash", map[string]any{"command": "pwd"}); got != "stdout:\n"+g.dir+"\nexit_code: 0" {
		t.Errorf("other session's pwd: got %q, want %s", got, g.dir)
	}
	if n := len(g.cores()); n != 2 {
		t.Errorf("cores for two sessions: got %d, want 2", n)
	}
}

// TestGatewayProgress: progress notifications of a long bash call arrive,
// carrying the call's token, while it runs, before its result.
func TestGatewayProgress(t *testing.T) {
	g := startGateway(t)
	var mu sync.Mutex
	var got []*mcp.ProgressNotificationParams
	s := g.connect(&mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, req.Params)
		},
	}, nil)
	params := &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "for i in $(seq 1 20); do echo line $i; sleep 0.1; done"}}
	params.SetProgressToken("gw-progress-1")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, params)
	mu.Lock()
	before := slices.Clone(got)
	mu.Unlock()
	if err != nil || res.IsError {
		t.Fatalf("call: got %v %+v, want success", err, res)
	}
	if !strings.HasSuffix(text(res), "line 20\nexit_code: 0") {
		t.Errorf("result: got %q, want the whole output", text(res))
	}
	if len(before) == 0 {
		t.Fatal("got no progress notification before the result of a 2 s command, want at least one")
	}
	for i, p := range before {
		if p.ProgressToken != "gw-progress-1" {
			t.Errorf("notification %d: token %v, want gw-progress-1", i, p.ProgressToken)
		}
		if !strings.HasPrefix(p.Message, "line ") {
			t.Errorf("notification %d: message %q, want the latest output line", i, p.Message)
		}
	}
}

// TestGatewayCancellation: cancelling a call's context makes the client
// send notifications/cancelled through the gateway; the core kills the
// command and the session keeps working.
func TestGatewayCancellation(t *testing.T) {
	g := startGateway(t)
	s := g.connect(nil, nil)
	marker := gwSleepMarker()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "sleep " + marker}})
		done <- err
	}()
	waitFor(t, "the command to start", func() bool { return len(processesWith("sleep "+marker)) > 0 })
	cancel()
	if err := <-done; err == nil {
		t.Error("cancelled call: got nil error, want a cancellation error")
	}
	waitNoProcesses(t, "sleep "+marker)
	if got := gwCallTool(t, s, "bash", map[string]any{"command": "echo alive"}); got != "stdout:\nalive\nexit_code: 0" {
		t.Errorf("after cancel: got %q", got)
	}
}

// TestGatewayHostileInput sends requests no client should; each gets its
// documented status, and the gateway keeps serving new sessions and the
// session the hostile requests named.
func TestGatewayHostileInput(t *testing.T) {
	g := startGateway(t, "--max-body", "1MB")
	sid := g.initialize()
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	huge := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash","arguments":{"command":"` + strings.Repeat("x", 2<<20) + `"}}}`
	tests := []struct {
		name   string
		method string
		header http.Header
		body   string
		want   int
	}{
		{"malformed JSON", "POST", gwHeader(sid), `{"jsonrpc":"2.0","id":2,"method":`, 400},
		{"not an object", "POST", gwHeader(sid), `"tools/list"`, 400},
		{"null", "POST", gwHeader(sid), `null`, 400},
		{"deeply nested", "POST", gwHeader(sid), `{"jsonrpc":"2.0","id":2,"method":"x","params":` + strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000) + "}", 400},
		{"batch", "POST", gwHeader(sid), "[" + list + "," + list + "]", 400},
		{"empty batch", "POST", gwHeader(sid), "[]", 400},
		{"batch initialize", "POST", gwHeader(""), "[" + gwInitialize + "]", 400},
		{"huge body", "POST", gwHeader(sid), huge, 413},
		{"huge initialize", "POST", gwHeader(""), huge, 413},
		{"Content-Type text/plain", "POST", gwHeader(sid, "Content-Type", "text/plain"), list, 415},
		{"Content-Type form", "POST", gwHeader("", "Content-Type", "application/x-www-form-urlencoded"), gwInitialize, 415},
		{"Content-Type multipart", "POST", gwHeader(sid, "Content-Type", "multipart/form-data; boundary=x"), list, 415},
		{"Accept text/html", "POST", gwHeader(sid, "Accept", "text/html"), list, 406},
		{"bogus session id", "POST", gwHeader("00000000000000000000000000000000"), list, 404},
		{"path-like session id", "POST", gwHeader("../../etc/passwd"), list, 404},
		{"long session id", "POST", gwHeader(strings.Repeat("f", 4096)), list, 404},
		{"session id with a suffix", "POST", gwHeader(sid + "0"), list, 404},
		{"session id in upper case", "POST", gwHeader(strings.ToUpper(sid)), list, 404},
		{"bogus session id on GET", "GET", http.Header{"Accept": {"text/event-stream"}, "Mcp-Session-Id": {"nope"}}, "", 404},
		{"bogus session id on DELETE", "DELETE", http.Header{"Mcp-Session-Id": {"nope"}}, "", 404},
		{"forged Origin", "POST", gwHeader(sid, "Origin", "https://evil.example"), list, 403},
		{"forged Origin on initialize", "POST", gwHeader("", "Origin", "http://attacker.test:8080"), gwInitialize, 403},
		{"forged Origin on DELETE", "DELETE", http.Header{"Mcp-Session-Id": {sid}, "Origin": {"https://evil.example"}}, "", 403},
		{"forged Host", "POST", gwHeader(sid, "Host", "evil.example"), list, 403},
		{"forged Host on initialize", "POST", gwHeader("", "Host", "rebind.attacker.test:8080"), gwInitialize, 403},
		{"forged Host on DELETE", "DELETE", http.Header{"Mcp-Session-Id": {sid}, "Host": {"evil.example"}}, "", 403},
		{"unsupported protocol version", "POST", gwHeader(sid, "MCP-Protocol-Version", "2099-01-01"), list, 400},
		{"TRACE", "TRACE", gwHeader(sid), "", 405},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := g.do(tt.method, tt.header, tt.body)
			if resp.StatusCode != tt.want {
				t.Fatalf("got %d %.200s, want %d", resp.StatusCode, body, tt.want)
			}
			if tt.want != 405 && !strings.Contains(string(body), `"error"`) {
				t.Errorf("body: got %.200s, want a JSON-RPC error", body)
			}
			if _, err := g.tryInitialize(); err != nil {
				t.Errorf("a normal initialize after it: %v", err)
			}
		})
	}
	// The session the hostile requests named is unharmed (forged DELETEs
	// included).
	if resp, body := g.do("POST", gwHeader(sid), list); resp.StatusCode != http.StatusOK {
		t.Errorf("the named session afterwards: got %d %.200s, want 200", resp.StatusCode, body)
	}
}
