package test

//lint:file-ignore SA1019 the tests speak to the core as 2025 clients do: logging is deprecated by 2026-07-28, not gone

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// extTool writes tools/<name>/ under root: the metadata and an executable
// tool.sh with body.
func extTool(t *testing.T, root, name, meta, body string) {
	t.Helper()
	writeFile(t, filepath.Join(root, "tools", name, "tool.meta.json"), meta)
	p := filepath.Join(root, "tools", name, "tool.sh")
	writeFile(t, p, "#!/bin/bash\n"+body)
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

// extFixture is an extension directory of raw scripts (no SDK): each
// speaks the host contract directly, so these tests check the core alone.
func extFixture(t *testing.T) string {
	t.Helper()
	root := realTempDir(t)
	extTool(t, root, "plain", `{"name":"plain","description":"prints text","inputSchema":{"type":"object","properties":{"who":{"type":"string"}},"required":["who"],"additionalProperties":false}}`,
		`echo "hello $(printf '%s' "$MCP_TOOL_ARGS_JSON") in $(pwd) with tmp=${TMPDIR:-none} secret=${BORIS_TEST_SECRET:-unset}"`+"\n")
	extTool(t, root, "structured", `{"name":"structured","description":"a result object","outputSchema":{"type":"object","required":["n"],"properties":{"n":{"type":"integer"}}}}`,
		`echo '{"content":[{"type":"text","text":"n is 3"}],"structuredContent":{"n":3}}'`+"\n")
	extTool(t, root, "badout", `{"name":"badout","description":"violates its schema","outputSchema":{"type":"object","required":["n"],"properties":{"n":{"type":"integer"}}}}`,
		`echo '{"content":[{"type":"text","text":"oops"}],"structuredContent":{"n":"three"}}'`+"\n")
	extTool(t, root, "exit3", `{"name":"exit3","description":"fails"}`, "echo 'something broke' >&2\nexit 3\n")
	extTool(t, root, "failer", `{"name":"failer","description":"mcp_fail by hand"}`,
		`code=$(printf '%s' "$MCP_TOOL_ARGS_JSON" | sed 's/[^0-9-]//g')`+"\n"+
			`printf '{"code":%s,"message":"bad things"}' "$code" > "$MCP_TOOL_ERROR_FILE"; exit 1`+"\n")
	extTool(t, root, "stubborn", `{"name":"stubborn","description":"ignores SIGTERM","timeoutSecs":1}`,
		"trap 'touch \"$MCP_TOOL_ARGS_JSON\" 2>/dev/null' TERM\nsleep 300 & wait; while :; do [ -e \"$MCP_TOOL_CANCELLATION_FILE\" ] && echo seen > \"$TMPDIR/cancel-seen\"; sleep 0.05; done\n")
	extTool(t, root, "progress", `{"name":"progress","description":"reports progress and logs"}`,
		`for i in 1 2 3; do echo "{\"progress\":$i,\"total\":3,\"message\":\"step $i\"}" >> "$MCP_PROGRESS_STREAM"; `+
			`echo "{\"level\":\"warning\",\"logger\":\"progress\",\"data\":\"at $i\"}" >> "$MCP_LOG_STREAM"; sleep 0.25; done; echo done`+"\n")
	// 256 MB through tr takes seconds of CPU, which make test's race
	// compilation can starve for longer than the default 30 s: the test is
	// of the core's memory, not of its speed.
	extTool(t, root, "flood", `{"name":"flood","description":"prints a lot","timeoutSecs":180}`, "head -c $((256*1024*1024)) /dev/zero | tr '\\0' 'x'\n")
	extTool(t, root, "escape", `{"name":"escape","description":"writes outside"}`, "echo pwned > /etc/boris-extension-escape 2>&1 || echo refused\n")
	return root
}

func TestExtensionToolsRunLikeCommands(t *testing.T) {
	root := extFixture(t)
	work := realTempDir(t)
	c := startCoreWith(t, coreOptions{args: []string{"--workdir", work, "--allow-dir", work, "--extensions", root}, env: []string{"BORIS_TEST_SECRET=s3cret"}})

	got := c.ok("plain", map[string]any{"who": "me"})
	if !strings.Contains(got, `hello {"who":"me"} in `+root) || strings.Contains(got, "s3cret") || strings.Contains(got, "tmp=none") {
		t.Errorf("plain: got %q, want the arguments, the extension directory as cwd, a TMPDIR and a clean environment", got)
	}
	c.fails("INVALID_INPUT", "plain", map[string]any{})
	c.fails("INVALID_INPUT", "plain", map[string]any{"who": "me", "extra": 1})

	res := c.call("structured", map[string]any{})
	if res.IsError || text(res) != "n is 3" {
		t.Errorf("structured: got %q (error %v)", text(res), res.IsError)
	}
	if b, _ := json.Marshal(res.StructuredContent); string(b) != `{"n":3}` {
		t.Errorf("structured: structuredContent %s, want {\"n\":3}", b)
	}
	if msg := c.fails("EXEC_ERROR", "badout", map[string]any{}); !strings.Contains(msg, "outputSchema") {
		t.Errorf("badout: %q, want it to name the outputSchema", msg)
	}
	if msg := c.fails("EXEC_ERROR", "exit3", map[string]any{}); !strings.Contains(msg, "status 3") || !strings.Contains(msg, "something broke") {
		t.Errorf("exit3: %q, want the status and the stderr tail", msg)
	}
	if msg := c.fails("EXEC_ERROR", "failer", map[string]any{"code": -32001}); !strings.Contains(msg, "bad things") {
		t.Errorf("failer: %q", msg)
	}
	// -32602 from the tool is the protocol's invalid params.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: "failer", Arguments: map[string]any{"code": -32602}}); err == nil || !strings.Contains(err.Error(), "bad things") {
		t.Errorf("failer -32602: got %v, want a JSON-RPC error with the message", err)
	}
	if got := c.ok("escape", map[string]any{}); !strings.Contains(got, "refused") {
		t.Errorf("escape: got %q, want the sandbox to refuse a write to /etc", got)
	}
	if _, err := os.Stat("/etc/boris-extension-escape"); err == nil {
		os.Remove("/etc/boris-extension-escape")
		if landlockABI() > 0 {
			t.Error("an extension tool wrote to /etc: it ran unconfined")
		}
	}
}

func TestExtensionToolTimeoutAndCancellationLeaveNoProcess(t *testing.T) {
	root := extFixture(t)
	c := startCoreWith(t, coreOptions{args: []string{"--workdir", realTempDir(t), "--extensions", root}})
	start := time.Now()
	if msg := c.fails("EXEC_ERROR", "stubborn", map[string]any{}); !strings.Contains(msg, "timed out") {
		t.Errorf("stubborn: %q, want a timeout", msg)
	}
	t.Logf("stubborn ended after %v", time.Since(start))
	waitNoProcesses(t, filepath.Join(root, "tools", "stubborn"))

	// Cancelled by the client: the cancellation file appears, then the group dies.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: "stubborn", Arguments: map[string]any{}})
		done <- err
	}()
	waitFor(t, "the stubborn tool to start", func() bool { return len(processesWith(filepath.Join(root, "tools", "stubborn"))) > 0 })
	cancel()
	<-done
	waitNoProcesses(t, filepath.Join(root, "tools", "stubborn"))
}

func TestExtensionProgressAndLogs(t *testing.T) {
	root := extFixture(t)
	var mu sync.Mutex
	var progress []string
	var logs []string
	cmd := []string{"--workdir", realTempDir(t), "--extensions", root}
	client := mcp.NewClient(&mcp.Implementation{Name: "boris-e2e", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, fmt.Sprintf("%v/%v %s", req.Params.Progress, req.Params.Total, req.Params.Message))
			mu.Unlock()
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			mu.Lock()
			logs = append(logs, fmt.Sprintf("%s %s %v", req.Params.Level, req.Params.Logger, req.Params.Data))
			mu.Unlock()
		},
	})
	s := connectClient(t, client, cmd)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "warning"}); err != nil {
		t.Fatalf("logging/setLevel: %v", err)
	}
	params := &mcp.CallToolParams{Name: "progress", Arguments: map[string]any{}}
	params.SetProgressToken("tok-1")
	res, err := s.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("progress: %v %v", res, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(progress) == 0 || progress[len(progress)-1] != "3/3 step 3" {
		t.Errorf("progress notifications: %q, want them to end with 3/3 step 3", progress)
	}
	if strings.Join(logs, "|") != "warning progress at 1|warning progress at 2|warning progress at 3" {
		t.Errorf("log notifications: %q", logs)
	}
}

func TestExtensionFloodKeepsTheCoreSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: prints 256 MB")
	}
	root := extFixture(t)
	c := startCoreWith(t, coreOptions{args: []string{"--workdir", realTempDir(t), "--extensions", root}})
	got := c.ok("flood", map[string]any{})
	if len(got) > 2<<20 {
		t.Errorf("flood: a %d-byte result, want it capped", len(got))
	}
	status, err := os.ReadFile("/proc/" + strconv.Itoa(c.cmd.Process.Pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if kb, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")))
			if n > 200*1024 {
				t.Errorf("the core's peak memory after a 256 MB tool output is %d kB, want it bounded (< 200 MB)", n)
			}
			t.Logf("core peak RSS %d kB", n)
		}
	}
}

func TestExtensionConcurrentCalls(t *testing.T) {
	root := extFixture(t)
	c := startCoreWith(t, coreOptions{args: []string{"--workdir", realTempDir(t), "--extensions", root}})
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			who := fmt.Sprintf("caller-%02d", i)
			if got := c.ok("plain", map[string]any{"who": who}); !strings.Contains(got, who) {
				t.Errorf("call %d got %q", i, got)
			}
		})
	}
	wg.Wait()
}

func TestExtensionToolsFollowScopesAndFlags(t *testing.T) {
	root := extFixture(t)
	for _, tc := range []struct {
		name string
		args []string
		want bool
	}{
		{"default", nil, true},
		{"--disable-tools bash (no boris:exec)", []string{"--disable-tools", "bash"}, false},
		{"--read-only", []string{"--read-only"}, false},
		{"--toolset filesystem", []string{"--toolset", "filesystem"}, true},
		{"--disable-tools plain", []string{"--disable-tools", "plain"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startCoreWith(t, coreOptions{args: append([]string{"--workdir", realTempDir(t), "--extensions", root}, tc.args...)})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			tools, err := c.session.ListTools(ctx, &mcp.ListToolsParams{})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, tool := range tools.Tools {
				found = found || tool.Name == "plain"
			}
			if found != tc.want {
				t.Errorf("plain listed: %v, want %v", found, tc.want)
			}
		})
	}
}

// connectClient starts boris with args and connects client to it over
// the 2025-11-25 revision (logging/setLevel is a session setting there).
func connectClient(t *testing.T, client *mcp.Client, args []string) *mcp.ClientSession {
	t.Helper()
	c := startCoreWith(t, coreOptions{args: args, client: client, protocol: "2025-11-25"})
	return c.session
}

// TestExtensionToolsThroughTheGateway: an operator's BORIS_EXTENSIONS
// reaches every core the gateway starts; a principal whose token lacks
// boris:exec does not get extension tools.
func TestExtensionToolsThroughTheGateway(t *testing.T) {
	root := extFixture(t)
	g := startAuthGateway(t, []string{"BORIS_EXTENSIONS=" + root, "BORIS_GATEWAY_JWT_SECRET=" + authSecret},
		"--jwt-audience", authAudience, "--token", "alice="+authAlice, "--", "--workdir", realTempDir(t))
	s := g.connect(authAlice)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "structured", Arguments: map[string]any{}})
	if err != nil || res.IsError || text(res) != "n is 3" {
		t.Fatalf("structured through the gateway: %v, %v", res, err)
	}
	readOnly := g.connect(authHMACToken(t, "reader", "boris:read boris:write"))
	tools, err := readOnly.ListTools(ctx, &mcp.ListToolsParams{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == "structured" || tool.Name == "bash" {
			t.Errorf("a token without boris:exec sees %s", tool.Name)
		}
	}
}

// extensionFixture is testdata/extensions/name, absolute. Each of
// nonExec, relative to it, must ship without the execute bit, as most of
// mcp-bash-framework's programs do: a checkout that made them executable
// would test less.
func extensionFixture(t *testing.T, name string, nonExec ...string) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata", "extensions", name))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range nonExec {
		fi, err := os.Stat(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode()&0o111 != 0 {
			t.Fatalf("%s has mode %v: the fixture must ship it without the execute bit", p, fi.Mode())
		}
	}
	return dir
}

// TestExtensionDemoWithTheSDK drives the demo extension (tools written
// against Boris's shell SDK, in the framework's layout) end to end.
func TestExtensionDemoWithTheSDK(t *testing.T) {
	demo := extensionFixture(t, "demo")
	var mu sync.Mutex
	var progress []string
	client := mcp.NewClient(&mcp.Implementation{Name: "boris-e2e", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, fmt.Sprintf("%v/%v", req.Params.Progress, req.Params.Total))
			mu.Unlock()
		},
	})
	s := connectClient(t, client, []string{"--workdir", realTempDir(t), "--extensions", demo})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	call := func(name string, args map[string]any) (*mcp.CallToolResult, error) {
		return s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	}

	res, err := call("hello", map[string]any{})
	if err != nil || res.IsError {
		t.Fatalf("hello: %v %v", res, err)
	}
	if b, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(b), `"success":true`) {
		t.Errorf("hello: structuredContent %s, want the SDK's success envelope", b)
	}
	res, err = call("echo", map[string]any{"value": `quotes " and \ backslash, ünïcode`})
	if err != nil || res.IsError || !strings.Contains(text(res), `ünïcode`) {
		t.Errorf("echo: %v %v", text(res), err)
	}
	// Checked against the inputSchema before the tool runs.
	if res, err := call("echo", map[string]any{}); err != nil || !res.IsError || !strings.HasPrefix(text(res), "[INVALID_INPUT]") || !strings.Contains(text(res), "value") {
		t.Errorf("echo without value: %q, %v; want INVALID_INPUT naming it", text(res), err)
	}
	// The SDK's own -32602 (mcp_fail_invalid_args) is a JSON-RPC invalid-params error.
	if _, err := call("fail", map[string]any{"mode": "invalid"}); err == nil || !strings.Contains(err.Error(), "refused as invalid params") {
		t.Errorf("fail invalid: %v, want a JSON-RPC error", err)
	}
	for mode, want := range map[string]string{"fail": "failed on purpose", "error": "Nothing called demo exists", "exit": "status 3"} {
		res, err := call("fail", map[string]any{"mode": mode})
		if err != nil || !res.IsError || !strings.Contains(text(res), want) {
			t.Errorf("fail %s: %q (%v), want an error result containing %q", mode, text(res), err, want)
		}
	}
	params := &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"steps": 3, "delayMs": 150}}
	params.SetProgressToken("p")
	if res, err := s.CallTool(ctx, params); err != nil || res.IsError {
		t.Fatalf("slow: %v %v", res, err)
	}
	mu.Lock()
	if len(progress) == 0 || progress[len(progress)-1] != "3/3" {
		t.Errorf("slow's progress: %q, want it to end at 3/3", progress)
	}
	mu.Unlock()
}

// TestExtensionHotReload: a tool dropped into the directory while the
// session runs appears (notifications/tools/list_changed, then in
// tools/list) and works; a removed one goes; nothing restarts.
func TestExtensionHotReload(t *testing.T) {
	root := realTempDir(t)
	extTool(t, root, "first", `{"name":"first","description":"one"}`, "echo first\n")
	changed := make(chan struct{}, 10)
	client := mcp.NewClient(&mcp.Implementation{Name: "boris-e2e", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	s := connectClient(t, client, []string{"--workdir", realTempDir(t), "--extensions", root})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	names := func() string {
		t.Helper()
		res, err := s.ListTools(ctx, &mcp.ListToolsParams{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tool := range res.Tools {
			if tool.Name == "first" || tool.Name == "second" {
				out = append(out, tool.Name)
			}
		}
		return strings.Join(out, ",")
	}
	if got := names(); got != "first" {
		t.Fatalf("tools at start: %q", got)
	}
	awaitChange := func(what string) {
		t.Helper()
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("no notifications/tools/list_changed after %s", what)
		}
	}
	extTool(t, root, "second", `{"name":"second","description":"two"}`, "echo second\n")
	awaitChange("adding a tool")
	if got := names(); got != "first,second" {
		t.Errorf("after adding: %q", got)
	}
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "second", Arguments: map[string]any{}})
	if err != nil || res.IsError || strings.TrimSpace(text(res)) != "second" {
		t.Errorf("calling the new tool: %v %v", res, err)
	}
	if err := os.RemoveAll(filepath.Join(root, "tools", "first")); err != nil {
		t.Fatal(err)
	}
	awaitChange("removing a tool")
	if got := names(); got != "second" {
		t.Errorf("after removing: %q", got)
	}
}

// TestExtensionContentHotReload: resources and prompts added to or
// removed from the directory while the session runs are listed or gone,
// with notifications/resources/list_changed and prompts/list_changed.
func TestExtensionContentHotReload(t *testing.T) {
	root := realTempDir(t)
	writeFile(t, filepath.Join(root, "resources", "a.txt"), "a\n")
	writeFile(t, filepath.Join(root, "resources", "a.meta.json"), `{"name":"res-a","uri":"file://./resources/a.txt","mimeType":"text/plain"}`)
	writeFile(t, filepath.Join(root, "prompts", "p1.txt"), "one {{x}}\n")
	writeFile(t, filepath.Join(root, "prompts", "p1.meta.json"), `{"name":"p1","description":"first"}`)
	resChanged, promptChanged := make(chan struct{}, 10), make(chan struct{}, 10)
	client := mcp.NewClient(&mcp.Implementation{Name: "boris-e2e", Version: "1"}, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { resChanged <- struct{}{} },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { promptChanged <- struct{}{} },
	})
	s := connectClient(t, client, []string{"--workdir", realTempDir(t), "--extensions", root})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	await := func(ch chan struct{}, what string) {
		t.Helper()
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("no list_changed after %s", what)
		}
	}
	resources := func() string {
		t.Helper()
		res, err := s.ListResources(ctx, &mcp.ListResourcesParams{})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, r := range res.Resources {
			names = append(names, r.Name)
		}
		return strings.Join(names, ",")
	}
	if got := resources(); got != "res-a" {
		t.Fatalf("resources at start: %q", got)
	}
	writeFile(t, filepath.Join(root, "resources", "b.txt"), "b\n")
	writeFile(t, filepath.Join(root, "resources", "b.meta.json"), `{"name":"res-b","uri":"file://./resources/b.txt","mimeType":"text/plain"}`)
	await(resChanged, "adding a resource")
	waitFor(t, "res-b to be listed", func() bool { return resources() == "res-a,res-b" })
	if err := os.Remove(filepath.Join(root, "prompts", "p1.meta.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "prompts", "p1.txt")); err != nil {
		t.Fatal(err)
	}
	await(promptChanged, "removing a prompt")
	waitFor(t, "p1 to go", func() bool {
		res, err := s.ListPrompts(ctx, &mcp.ListPromptsParams{})
		return err == nil && len(res.Prompts) == 0
	})
}
