package test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The stateless tests drive boris-gateway with go-sdk's client speaking MCP
// 2026-07-28 (no initialize, no Mcp-Session-Id: docs/reference/gateway.md#stateless-requests-2026-07-28), pinned and in
// its default negotiation, beside a 2025-11-25 session client on the same
// endpoint. Every request of the one (anonymous, --auth none) principal goes
// to one core kept for it, so the shell's working directory, background
// tasks and checkpoints persist from one request to the next.

// stateless is the revision without sessions.
const stateless = "2026-07-28"

// statelessConnect connects go-sdk's Streamable HTTP client through the
// gateway asking for protocol ("" for the client's default negotiation,
// which tries server/discover first) and requires the stateless era: a
// 2026-07-28 connection and no session id. log, when not nil, records
// progress notifications.
func statelessConnect(t *testing.T, g *gatewayProc, protocol string, log *progressLog) *mcp.ClientSession {
	t.Helper()
	s := connectAs(t, g, protocol, log)
	if got := s.InitializeResult().ProtocolVersion; got != stateless {
		t.Fatalf("go-sdk client asking for %q: negotiated %q, want %s (the stateless path)", protocol, got, stateless)
	}
	if id := s.ID(); id != "" {
		t.Fatalf("go-sdk client on %s: got session id %q, want none", stateless, id)
	}
	return s
}

// sessionConnect connects go-sdk's client pinned to 2025-11-25: the
// initialize handshake and a session of its own.
func sessionConnect(t *testing.T, g *gatewayProc, log *progressLog) *mcp.ClientSession {
	t.Helper()
	s := connectAs(t, g, "2025-11-25", log)
	if got := s.InitializeResult().ProtocolVersion; got != "2025-11-25" {
		t.Fatalf("go-sdk client pinned to 2025-11-25: negotiated %q", got)
	}
	if s.ID() == "" {
		t.Fatal("go-sdk client on 2025-11-25: no session id, want one")
	}
	return s
}

// connectAs is gatewayProc.connect for any test or subtest: it reports to
// t, not to the test that started the gateway.
func connectAs(t *testing.T, g *gatewayProc, protocol string, log *progressLog) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{}
	if log != nil {
		opts.ProgressNotificationHandler = func(_ context.Context, req *mcp.ProgressNotificationClientRequest) { log.record(req) }
	}
	return connectGatewayClient(t, g, mcp.NewClient(&mcp.Implementation{Name: "boris-e2e-stateless", Version: "1"}, opts), protocol)
}

// connectGatewayClient connects client to the gateway g, asking for protocol,
// and closes the session at the end of t.
func connectGatewayClient(t *testing.T, g *gatewayProc, client *mcp.Client, protocol string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: g.url}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatalf("connect through the gateway asking for %q: %v\ngateway log:\n%s", protocol, err, g.stderr)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// suiteTools are the tools toolSuite calls: the default toolset. A tool
// the core lists beyond these and boardTools fails the suite until it gets
// a call here.
var suiteTools = []string{"bash", "view", "create_file", "str_replace", "grep", "glob", "diagnostics", "task_output", "task_stop", "history", "diff", "undo"}

// checkpointTools are the tools of suiteTools a core lists only when it
// records checkpoints (git on PATH).
var checkpointTools = []string{"history", "diff", "undo"}

// boardTools are the work-tracking tools (docs/reference/core.md#work-tracking), which the suite does
// not call: they write the board in --tasks-db, by default under the real
// $HOME of a gateway started without isolation, as startGateway's is. The
// board's own tests cover them; the suite logs that it left them out.
var boardTools = []string{"create_task", "list_tasks", "get_task", "update_task", "delete_task", "add_blocker", "remove_blocker", "get_blockers"}

// toolSuite calls every tool of the default toolset with valid arguments
// through s, working in dir (a directory of its own under the cores'
// --workdir, so two suites can share a core's tree), and checks each
// result and its effect on disk; then progress on a long bash, a cancelled
// call, a background task read in later requests and a cd kept between
// calls. log records s's progress notifications.
func toolSuite(t *testing.T, s *mcp.ClientSession, log *progressLog, dir string) {
	listed := gwToolNames(t, s)
	for _, name := range listed {
		switch {
		case slices.Contains(boardTools, name):
			t.Logf("not calling %s: work tracking writes the board under $HOME (see boardTools)", name)
		case !slices.Contains(suiteTools, name):
			t.Errorf("tools/list has %s, which this suite does not call: give it a call in toolSuite", name)
		}
	}
	for _, name := range suiteTools {
		if !slices.Contains(listed, name) && !slices.Contains(checkpointTools, name) {
			t.Errorf("tools/list: got %v, want %s among them", listed, name)
		}
	}
	path := filepath.Join(dir, "notes.txt")
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
	t.Run("grep", func(t *testing.T) {
		if got := gwCallTool(t, s, "grep", map[string]any{"pattern": "needle", "path": dir}); !strings.Contains(got, path) {
			t.Errorf("grep: got %q, want %s listed", got, path)
		}
	})
	t.Run("glob", func(t *testing.T) {
		if got := gwCallTool(t, s, "glob", map[string]any{"pattern": "**/*.txt", "path": dir}); !strings.Contains(got, path) {
			t.Errorf("glob: got %q, want %s listed", got, path)
		}
	})
	t.Run("diagnostics", func(t *testing.T) {
		// The suite edits only text files: no language server has started.
		if got := gwCallTool(t, s, "diagnostics", map[string]any{}); !strings.Contains(got, "No language server runs yet") {
			t.Errorf("diagnostics: got %q, want that no language server runs yet", got)
		}
	})
	t.Run("history diff undo", func(t *testing.T) {
		for _, name := range checkpointTools {
			if !slices.Contains(listed, name) {
				t.Skipf("tools/list has no %s: checkpoints are off (no git on PATH?)", name)
			}
		}
		// Another suite may change its own directory in the same tree at
		// the same time: every checkpoint tool is asked about dir only.
		h := gwCallTool(t, s, "history", map[string]any{"path": dir, "limit": 1})
		id, _, _ := strings.Cut(h, " ")
		if !strings.HasPrefix(id, "cp_") {
			t.Fatalf("history of %s: got %q, want a line starting with a cp_ id", dir, h)
		}
		if d := gwCallTool(t, s, "diff", map[string]any{"checkpoint": id, "path": dir}); !strings.Contains(d, "-alpha") || !strings.Contains(d, "+gamma") {
			t.Errorf("diff %s: got %q, want the str_replace's change (-alpha +gamma)", id, d)
		}
		gwCallTool(t, s, "undo", map[string]any{"checkpoint": id, "path": dir})
		if got := readFile(t, path); got != "alpha\nbeta needle\n" {
			t.Errorf("file after undo of %s: got %q, want it as before the str_replace", id, got)
		}
	})
	t.Run("bash cd kept", func(t *testing.T) {
		sub := filepath.Join(dir, "sub")
		if got := gwCallTool(t, s, "bash", map[string]any{"command": "mkdir -p " + sub + " && cd " + sub + " && pwd"}); got != "stdout:\n"+sub+"\nexit_code: 0" {
			t.Errorf("bash cd: got %q", got)
		}
		if got := gwCallTool(t, s, "bash", map[string]any{"command": "pwd"}); got != "stdout:\n"+sub+"\nexit_code: 0" {
			t.Errorf("bash pwd in the next request: got %q, want %s (the cd kept)", got, sub)
		}
	})
	t.Run("bash progress", func(t *testing.T) {
		token := "progress-" + filepath.Base(dir)
		params := &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "for i in $(seq 1 20); do echo line $i; sleep 0.1; done"}}
		params.SetProgressToken(token)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		res, err := s.CallTool(ctx, params)
		var before []*mcp.ProgressNotificationParams
		for _, p := range log.all() {
			if p.ProgressToken == token {
				before = append(before, p)
			}
		}
		if err != nil || res.IsError {
			t.Fatalf("bash: got %v %+v, want success", err, res)
		}
		if !strings.HasSuffix(text(res), "line 20\nexit_code: 0") {
			t.Errorf("bash: got %q, want the whole output", text(res))
		}
		if len(before) == 0 {
			t.Errorf("got no progress notification with token %s before the result of a 2 s command, want at least one", token)
		}
		for i, p := range before {
			if !strings.HasPrefix(p.Message, "line ") {
				t.Errorf("progress %d: message %q, want the latest output line", i, p.Message)
			}
		}
	})
	t.Run("cancel", func(t *testing.T) {
		marker := gwSleepMarker()
		t.Cleanup(func() { killAll(processesWith("sleep " + marker)) })
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "sleep " + marker}})
			done <- err
		}()
		waitFor(t, "sleep "+marker+" to start", func() bool {
			select {
			case err := <-done:
				t.Fatalf("call of sleep %s: ended before it was cancelled: %v", marker, err)
			default:
			}
			return len(processesWith("sleep "+marker)) > 0
		})
		cancel()
		select {
		case err := <-done:
			if err == nil {
				t.Error("cancelled call: got nil error, want a cancellation error")
			}
		case <-time.After(20 * time.Second):
			t.Fatal("cancelled call: still waiting 20 s after its context was cancelled")
		}
		waitNoProcesses(t, "sleep "+marker)
		if got := gwCallTool(t, s, "bash", map[string]any{"command": "echo alive"}); got != "stdout:\nalive\nexit_code: 0" {
			t.Errorf("call after the cancelled one: got %q", got)
		}
	})
	t.Run("background task", func(t *testing.T) {
		marker := gwSleepMarker()
		t.Cleanup(func() { killAll(processesWith("sleep " + marker)) })
		id := startBackground(t, s, "echo started; sleep "+marker)
		waitFor(t, "the task's command", func() bool { return len(processesWith("sleep "+marker)) > 0 })
		waitFor(t, "the task's output in a later request", func() bool {
			return strings.Contains(gwCallTool(t, s, "task_output", map[string]any{"task_id": id, "block": false}), "stdout:\nstarted")
		})
		if got := gwCallTool(t, s, "task_stop", map[string]any{"task_id": id}); !strings.Contains(got, "status: killed") {
			t.Errorf("task_stop: got %q, want status: killed", got)
		}
		waitNoProcesses(t, "sleep "+marker)
	})
}

var backgroundIDRe = regexp.MustCompile(`^task_id: (task_[0-9a-f]+)\n`)

// startBackground runs command with run_in_background through s and
// returns its task id.
func startBackground(t *testing.T, s *mcp.ClientSession, command string) string {
	t.Helper()
	got := gwCallTool(t, s, "bash", map[string]any{"command": command, "run_in_background": true})
	m := backgroundIDRe.FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("bash run_in_background: got %q, want a task_id line", got)
	}
	return m[1]
}

// suiteDir makes a directory of its own for one client's suite under the
// cores' --workdir.
func suiteDir(t *testing.T, g *gatewayProc, name string) string {
	t.Helper()
	dir := filepath.Join(g.dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestStatelessGoClient runs the tool suite with go-sdk's client pinned to
// 2026-07-28, then in its default negotiation, while a 2025-11-25 session
// client runs the same suite against the same gateway at the same time.
// Both 2026 clients are the one anonymous principal and share its core, so
// they run one after the other; the session has a core of its own.
func TestStatelessGoClient(t *testing.T) {
	g := startGateway(t)
	t.Run("clients", func(t *testing.T) {
		t.Run(stateless, func(t *testing.T) {
			t.Parallel()
			for _, c := range []struct{ name, protocol string }{{"pinned", stateless}, {"default negotiation", ""}} {
				t.Run(c.name, func(t *testing.T) {
					log := &progressLog{}
					s := statelessConnect(t, g, c.protocol, log)
					toolSuite(t, s, log, suiteDir(t, g, strings.ReplaceAll(c.name, " ", "-")))
				})
			}
		})
		t.Run("2025-11-25 session", func(t *testing.T) {
			t.Parallel()
			log := &progressLog{}
			s := sessionConnect(t, g, log)
			toolSuite(t, s, log, suiteDir(t, g, "session"))
		})
	})
}

// TestStatelessClientsShareCore: two 2026 clients of one principal share
// its core (a cd by one is the other's working directory, a background
// task started by one is read by the other), while a 2025 session has a
// core of its own; two raw 2026 requests of the principal with the same
// JSON-RPC id at the same time each get their own answer.
func TestStatelessClientsShareCore(t *testing.T) {
	g := startGateway(t)
	a := statelessConnect(t, g, stateless, nil)
	b := statelessConnect(t, g, "", nil)
	legacy := sessionConnect(t, g, nil)
	shared := suiteDir(t, g, "shared")
	if got := gwCallTool(t, a, "bash", map[string]any{"command": "cd " + shared + " && pwd"}); got != "stdout:\n"+shared+"\nexit_code: 0" {
		t.Fatalf("cd by the first 2026 client: got %q", got)
	}
	if got := gwCallTool(t, b, "bash", map[string]any{"command": "pwd"}); got != "stdout:\n"+shared+"\nexit_code: 0" {
		t.Errorf("pwd of the second 2026 client: got %q, want %s (one core per principal)", got, shared)
	}
	if got := gwCallTool(t, legacy, "bash", map[string]any{"command": "pwd"}); got != "stdout:\n"+g.dir+"\nexit_code: 0" {
		t.Errorf("pwd of the 2025 session: got %q, want %s (a core of its own)", got, g.dir)
	}
	if pids := g.cores(); len(pids) != 2 {
		t.Errorf("cores for one principal's 2026 clients and one session: got %v, want 2", pids)
	}
	if n := g.sessions(); n != 1 {
		t.Errorf("/healthz sessions with two 2026 clients and one 2025 session: got %d, want 1 (2026 requests open no session)", n)
	}

	marker := gwSleepMarker()
	t.Cleanup(func() { killAll(processesWith("sleep " + marker)) })
	id := startBackground(t, a, "echo from the first client; sleep "+marker)
	waitFor(t, "the task's output, read by the second 2026 client", func() bool {
		return strings.Contains(gwCallTool(t, b, "task_output", map[string]any{"task_id": id, "block": false}), "from the first client")
	})
	if res, err := legacy.CallTool(context.Background(), &mcp.CallToolParams{Name: "task_output", Arguments: map[string]any{"task_id": id, "block": false}}); err != nil || !res.IsError {
		t.Errorf("task_output of the principal's task from the 2025 session: got %v %+v, want a tool error (another core's task)", err, res)
	}
	if got := gwCallTool(t, b, "task_stop", map[string]any{"task_id": id}); !strings.Contains(got, "status: killed") {
		t.Errorf("task_stop by the second client: got %q, want status: killed", got)
	}
	waitNoProcesses(t, "sleep "+marker)

	t.Run("same ids at once", func(t *testing.T) { sameIDsAtOnce(t, g, shared) })
}

// sameIDsAtOnce sends two raw 2026 tools/call requests with the same
// JSON-RPC id, each of whose commands waits until the other has started:
// they must be in flight together, and each must get its own result with
// the id it sent.
func sameIDsAtOnce(t *testing.T, g *gatewayProc, dir string) {
	var wg sync.WaitGroup
	got := make([]map[string]any, 2)
	errs := make([]error, 2)
	for i, name := range []string{"one", "two"} {
		other := []string{"two", "one"}[i]
		// The bash timeout ends a request that waits in vain (the gateway
		// serialized them), so the test fails instead of hanging.
		command := "touch " + name + ".started; while [ ! -e " + other + ".started ]; do sleep 0.05; done; echo from " + name
		body := statelessToolCall(7, "bash", map[string]any{"command": "cd " + dir + " && " + command, "timeout": 15000}, "")
		wg.Go(func() {
			req, _ := http.NewRequest("POST", g.url, strings.NewReader(body))
			req.Header = statelessHeader("tools/call", "bash")
			resp, err := gwClient.Do(req)
			if err != nil {
				errs[i] = err
				return
			}
			got[i] = lastMessage(t, resp)
		})
	}
	wg.Wait()
	for i, name := range []string{"one", "two"} {
		if errs[i] != nil {
			t.Errorf("request %s: %v", name, errs[i])
			continue
		}
		if id, _ := got[i]["id"].(float64); id != 7 {
			t.Errorf("request %s: answered with id %v, want 7 (the id it sent)", name, got[i]["id"])
		}
		if out := toJSON(got[i]["result"]); !strings.Contains(out, `from `+name+`\n`) || !strings.Contains(out, "exit_code: 0") {
			t.Errorf("request %s: got %s, want its own output (from %s) and exit_code 0: both were in flight together", name, toJSON(got[i]), name)
		}
	}
}

// statelessHeader is what a 2026-07-28 client sends with a POST: no
// session, the protocol version, the method and (for tools/call,
// resources/read, prompts/get) the name.
func statelessHeader(method, name string) http.Header {
	h := gwHeader("", "MCP-Protocol-Version", stateless, "Mcp-Method", method)
	if name != "" {
		h.Set("Mcp-Name", name)
	}
	return h
}

// statelessToolCall encodes a 2026-07-28 tools/call: its _meta carries the
// protocol version, client info and capabilities, and a progress token
// when token is not empty.
func statelessToolCall(id int, name string, args map[string]any, token string) string {
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    stateless,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}
	if token != "" {
		meta["progressToken"] = token
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args, "_meta": meta}})
	return string(b)
}

// TestStatelessCancelByClosingStream: on 2026-07-28 closing a request's
// response stream is its cancellation (no notifications/cancelled): the
// command dies, and the principal's core keeps serving.
func TestStatelessCancelByClosingStream(t *testing.T) {
	g := startGateway(t)
	for _, c := range []struct{ name, accept string }{{"event stream", "application/json, text/event-stream"}, {"json", "application/json"}} {
		t.Run(c.name, func(t *testing.T) {
			marker := gwSleepMarker()
			t.Cleanup(func() { killAll(processesWith("sleep " + marker)) })
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				req, _ := http.NewRequestWithContext(ctx, "POST", g.url, strings.NewReader(statelessToolCall(31, "bash", map[string]any{"command": "sleep " + marker}, "close-"+marker)))
				req.Header = statelessHeader("tools/call", "bash")
				req.Header.Set("Accept", c.accept)
				resp, err := gwClient.Do(req)
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				done <- err
			}()
			waitFor(t, "sleep "+marker+" to start", func() bool { return len(processesWith("sleep "+marker)) > 0 })
			cancel() // closes the connection, and with it the response stream
			if err := <-done; err == nil {
				t.Fatal("request read to its end after its context was cancelled; want the connection dropped")
			}
			waitNoProcesses(t, "sleep "+marker)
			m := g.statelessPost(32, "bash", map[string]any{"command": "echo alive"})
			if out := toJSON(m["result"]); !strings.Contains(out, `stdout:\nalive\nexit_code: 0`) {
				t.Errorf("call after the closed one: got %s", toJSON(m))
			}
		})
	}
}
