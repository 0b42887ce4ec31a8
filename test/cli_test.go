package test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// cleanEnv is the test's environment without any BORIS_* variable, plus
// extra, so a setting in the developer's shell cannot leak into a test.
func cleanEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BORIS_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// runBoris runs borisBin to completion with stdin from /dev/null and
// returns its stdout, stderr and exit code. A process still running after
// 20 s is killed and fails the test.
func runBoris(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, borisBin, args...)
	cmd.Env = cleanEnv(env...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("boris %v: still running after 20 s", args)
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("boris %v: %v", args, err)
	}
	return out.String(), errOut.String(), code
}

func TestCLIHelp(t *testing.T) {
	stdout, stderr, code := runBoris(t, nil, "--help")
	if code != 0 {
		t.Fatalf("--help: got exit %d, want 0 (stderr %q)", code, stderr)
	}
	settings := []struct{ flag, env, def string }{
		{"--workdir", "BORIS_WORKDIR", "."},
		{"--allow-dir", "BORIS_ALLOW_DIRS", "none"},
		{"--deny-dir", "BORIS_DENY_DIRS", "none"},
		{"--timeout", "BORIS_TIMEOUT", "120"},
		{"--max-file-size", "BORIS_MAX_FILE_SIZE", "10MB"},
		{"--disable-tools", "BORIS_DISABLE_TOOLS", "none"},
		{"--anthropic-compat", "BORIS_ANTHROPIC_COMPAT", "false"},
		{"--background-task-limit", "BORIS_BACKGROUND_TASK_LIMIT", "10"},
		{"--background-task-timeout", "BORIS_BACKGROUND_TASK_TIMEOUT", "0"},
		{"--log-level", "BORIS_LOG_LEVEL", "info"},
		{"--log-format", "BORIS_LOG_FORMAT", "text"},
	}
	nextFlag := regexp.MustCompile(`(?m)^[ \t]*--[a-z]`)
	for _, s := range settings {
		t.Run(s.flag, func(t *testing.T) {
			start := regexp.MustCompile(`(?m)^[ \t]*` + regexp.QuoteMeta(s.flag) + `(?:[ =\t]|$)`).FindStringIndex(stdout)
			if start == nil {
				t.Fatalf("--help: got %q, want a line starting with %s", stdout, s.flag)
			}
			block := stdout[start[1]:]
			if next := nextFlag.FindStringIndex(block); next != nil {
				block = block[:next[0]]
			}
			if !strings.Contains(block, s.env) {
				t.Errorf("%s: got entry %q, want env %s", s.flag, block, s.env)
			}
			def := regexp.MustCompile(`default[: ]+` + regexp.QuoteMeta(s.def) + `(?:[\s,;)]|$)`)
			if !def.MatchString(block) {
				t.Errorf("%s: got entry %q, want default %s", s.flag, block, s.def)
			}
		})
	}
}

func TestCLIVersion(t *testing.T) {
	stdout, stderr, code := runBoris(t, nil, "--version")
	if code != 0 {
		t.Fatalf("--version: got exit %d, want 0 (stderr %q)", code, stderr)
	}
	if !regexp.MustCompile(`^boris \S+\n$`).MatchString(stdout) {
		t.Errorf("--version: got %q, want \"boris <version>\\n\"", stdout)
	}
}

// TestCLIBadValues checks every bad setting exits 2 with exactly one stderr
// line naming it, and nothing on stdout.
func TestCLIBadValues(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		args []string
		want []string // substrings of the stderr line
	}{
		{"timeout not a number", nil, []string{"--timeout", "abc"}, []string{"timeout"}},
		{"timeout zero", nil, []string{"--timeout", "0"}, []string{"timeout"}},
		{"timeout over the ceiling", nil, []string{"--timeout", "601"}, []string{"timeout"}},
		{"timeout env", []string{"BORIS_TIMEOUT=abc"}, nil, []string{"BORIS_TIMEOUT"}},
		{"size unit", nil, []string{"--max-file-size", "10XB"}, []string{"max-file-size"}},
		{"size env", []string{"BORIS_MAX_FILE_SIZE=lots"}, nil, []string{"BORIS_MAX_FILE_SIZE"}},
		{"log level", nil, []string{"--log-level", "loud"}, []string{"log-level", "debug"}},
		{"log format", nil, []string{"--log-format", "xml"}, []string{"log-format", "json"}},
		{"unknown tool", nil, []string{"--disable-tools", "nosuch"}, []string{"disable-tools", "nosuch", "bash", "view", "str_replace", "create_file"}},
		{"unknown tool env", []string{"BORIS_DISABLE_TOOLS=view,nosuch"}, nil, []string{"nosuch", "bash"}},
		{"missing workdir", nil, []string{"--workdir", "/nonexistent/boris-e2e"}, []string{"workdir"}},
		{"missing allow dir", nil, []string{"--allow-dir", "/nonexistent/boris-e2e"}, []string{"allow-dir"}},
		{"bad deny pattern", nil, []string{"--deny-dir", "[bad"}, []string{"deny-dir", "[bad"}},
		{"negative task limit", nil, []string{"--background-task-limit", "-1"}, []string{"background-task-limit"}},
		{"unknown flag", nil, []string{"--no-such-flag"}, []string{"no-such-flag"}},
		{"stray argument", nil, []string{"stray"}, []string{"stray"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runBoris(t, tt.env, tt.args...)
			if code != 2 {
				t.Errorf("got exit %d, want 2 (stderr %q)", code, stderr)
			}
			if stdout != "" {
				first, _, _ := strings.Cut(stdout, "\n")
				t.Errorf("got %d bytes on stdout, first line %q, want none (stdout is for MCP only)", len(stdout), first)
			}
			line, ok := strings.CutSuffix(stderr, "\n")
			if !ok || line == "" || strings.Contains(line, "\n") {
				t.Fatalf("got stderr %q, want exactly one line", stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(line, w) {
					t.Errorf("got %q, want it to name %q", line, w)
				}
			}
		})
	}
}

// toolsOf lists a session's tools in the order the server sends them.
func toolsOf(t *testing.T, c *core) []*mcp.Tool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var tools []*mcp.Tool
	params := &mcp.ListToolsParams{}
	for {
		res, err := c.session.ListTools(ctx, params)
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		tools = append(tools, res.Tools...)
		if res.NextCursor == "" {
			return tools
		}
		params.Cursor = res.NextCursor
	}
}

// toolNames returns the names of toolsOf.
func toolNames(t *testing.T, c *core) []string {
	t.Helper()
	var names []string
	for _, tool := range toolsOf(t, c) {
		names = append(names, tool.Name)
	}
	return names
}

// TestConfigPrecedence proves flag > env > default through the tools'
// behaviour, not just the parser.
func TestConfigPrecedence(t *testing.T) {
	big := strings.Repeat("z", 2048)
	t.Run("env limits size", func(t *testing.T) {
		dir := realTempDir(t)
		c := startCoreWith(t, coreOptions{args: []string{"--workdir", dir}, env: []string{"BORIS_MAX_FILE_SIZE=1KB"}})
		c.fails("FILE_TOO_LARGE", "create_file", map[string]any{"path": "big.txt", "content": big})
	})
	t.Run("flag beats env size", func(t *testing.T) {
		dir := realTempDir(t)
		c := startCoreWith(t, coreOptions{args: []string{"--workdir", dir, "--max-file-size", "4KB"}, env: []string{"BORIS_MAX_FILE_SIZE=1KB"}})
		c.ok("create_file", map[string]any{"path": "big.txt", "content": big})
		if got := readFile(t, filepath.Join(dir, "big.txt")); got != big {
			t.Errorf("got %d bytes, want %d", len(got), len(big))
		}
	})
	t.Run("default size", func(t *testing.T) {
		dir := realTempDir(t)
		c := startCoreWith(t, coreOptions{args: []string{"--workdir", dir}})
		c.ok("create_file", map[string]any{"path": "big.txt", "content": big})
	})
	t.Run("env workdir", func(t *testing.T) {
		dir := realTempDir(t)
		writeFile(t, filepath.Join(dir, "here.txt"), "from env workdir\n")
		c := startCoreWith(t, coreOptions{env: []string{"BORIS_WORKDIR=" + dir}})
		if got, want := c.ok("view", map[string]any{"path": "here.txt"}), "     1\tfrom env workdir\n"; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	tools := []struct {
		name       string
		env, args  []string
		with, wout []string
	}{
		{"env disables", []string{"BORIS_DISABLE_TOOLS=bash"}, nil, []string{"view", "str_replace", "create_file"}, []string{"bash"}},
		{"flag replaces env list", []string{"BORIS_DISABLE_TOOLS=bash"}, []string{"--disable-tools", "view"}, []string{"bash", "str_replace", "create_file"}, []string{"view"}},
		{"comma-separated env", []string{"BORIS_DISABLE_TOOLS=view,create_file"}, nil, []string{"bash", "str_replace"}, []string{"view", "create_file"}},
		{"repeated flag", nil, []string{"--disable-tools", "view", "--disable-tools", "bash"}, []string{"str_replace", "create_file"}, []string{"view", "bash"}},
	}
	for _, tt := range tools {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"--workdir", realTempDir(t)}, tt.args...)
			names := toolNames(t, startCoreWith(t, coreOptions{args: args, env: tt.env}))
			for _, w := range tt.with {
				if !slices.Contains(names, w) {
					t.Errorf("got tools %q, want %s", names, w)
				}
			}
			for _, n := range tt.wout {
				if slices.Contains(names, n) {
					t.Errorf("got tools %q, want no %s", names, n)
				}
			}
		})
	}
	t.Run("disabled tool call is a protocol error", func(t *testing.T) {
		c := startCoreWith(t, coreOptions{args: []string{"--workdir", realTempDir(t), "--disable-tools", "bash"}})
		if _, err := callTool(c.session, "bash", map[string]any{"command": "echo hi"}); err == nil {
			t.Errorf("call of disabled bash: got no error, want a JSON-RPC error")
		}
	})
}

// inputSchema is the part of a tool's input schema the tests inspect.
type inputSchema struct {
	Type       string `json:"type"`
	Properties map[string]struct {
		Description string `json:"description"`
	} `json:"properties"`
	Required []string `json:"required"`
}

// schemaOf decodes a tool's input schema as sent over the wire.
func schemaOf(t *testing.T, tool *mcp.Tool) inputSchema {
	t.Helper()
	b, err := json.Marshal(tool.InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	var s inputSchema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("schema of %s: %v in %s", tool.Name, err, b)
	}
	return s
}

func TestToolsList(t *testing.T) {
	dir := realTempDir(t)
	first := toolsOf(t, startCore(t, "--workdir", dir))
	second := toolsOf(t, startCore(t, "--workdir", dir))
	var names, again []string
	for _, tool := range first {
		names = append(names, tool.Name)
	}
	for _, tool := range second {
		again = append(again, tool.Name)
	}
	t.Run("deterministic", func(t *testing.T) {
		if !slices.Equal(names, again) {
			t.Errorf("second start: got %q, want %q", again, names)
		}
		if !slices.IsSorted(names) {
			t.Errorf("got %q, want names sorted", names)
		}
		for _, want := range []string{"bash", "create_file", "str_replace", "view"} {
			if !slices.Contains(names, want) {
				t.Errorf("got %q, want %s", names, want)
			}
		}
	})
	required := map[string][]string{
		"bash":        {"command"},
		"view":        {"path"},
		"str_replace": {"old_str", "path"},
		"create_file": {"content", "path"},
	}
	for _, tool := range first {
		t.Run(tool.Name, func(t *testing.T) {
			s := schemaOf(t, tool)
			if s.Type != "object" || len(s.Properties) == 0 {
				t.Errorf("got schema type %q with %d properties, want an object with properties", s.Type, len(s.Properties))
			}
			for name, p := range s.Properties {
				if strings.TrimSpace(p.Description) == "" {
					t.Errorf("property %s: got no description, want one", name)
				}
			}
			if tool.Description == "" {
				t.Errorf("got no tool description, want one")
			}
			if want, ok := required[tool.Name]; ok {
				got := slices.Sorted(slices.Values(s.Required))
				if !slices.Equal(got, want) {
					t.Errorf("required: got %q, want %q", got, want)
				}
			}
			readOnly := tool.Annotations != nil && tool.Annotations.ReadOnlyHint
			if want := tool.Name == "view"; readOnly != want && required[tool.Name] != nil {
				t.Errorf("readOnlyHint: got %v, want %v", readOnly, want)
			}
		})
	}
}

func TestServerInstructions(t *testing.T) {
	dir := realTempDir(t)
	c := startCore(t, "--workdir", dir, "--allow-dir", dir)
	got := c.session.InitializeResult().Instructions
	if !strings.Contains(got, dir) {
		t.Errorf("instructions: got %q, want the working directory %s", got, dir)
	}
}

func TestProtocolUnknownTool(t *testing.T) {
	c := startCore(t, "--workdir", realTempDir(t))
	res, err := callTool(c.session, "no_such_tool", map[string]any{"path": "x"})
	if err == nil {
		t.Fatalf("got result isError=%v %q, want a JSON-RPC error", res.IsError, text(res))
	}
	// The session survives the protocol error.
	if got := c.ok("bash", map[string]any{"command": "echo alive"}); !strings.Contains(got, "alive") {
		t.Errorf("after the error: got %q, want alive", got)
	}
}

// rawLines reads newline-delimited stdout of a raw boris process on a
// goroutine; lines is closed at EOF.
func rawLines(r io.Reader) <-chan string {
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines
}

// TestStdoutPurity talks raw JSON-RPC to boris over pipes and checks that
// every byte on stdout is a JSON-RPC message: shell output, debug logs and a
// malformed input line must not put anything else there, and closing stdin
// ends the process with status 0.
func TestStdoutPurity(t *testing.T) {
	dir := realTempDir(t)
	cmd := exec.Command(borisBin, "--workdir", dir, "--log-level", "debug")
	cmd.Env = cleanEnv()
	stderr := &syncWriter{b: &strings.Builder{}}
	cmd.Stderr = stderr
	stdin, stdout := startPiped(t, cmd)
	t.Cleanup(func() { _ = cmd.Process.Kill() }) // no-op once it has exited
	s := &rawSession{t: t, stdin: stdin, lines: rawLines(stdout)}

	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if init := s.await(1); init["result"] == nil {
		t.Fatalf("initialize: got %v, want a result", init)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash","arguments":{"command":"echo hi; echo err >&2"}}}`)
	res, _ := json.Marshal(s.await(2))
	for _, want := range []string{`stdout:\nhi\n`, `stderr:\nerr\n`, `exit_code: 0`} {
		if !strings.Contains(string(res), want) {
			t.Errorf("tools/call: got %s, want it to contain %s", res, want)
		}
	}
	s.send(`{not json`)
	if err := stdin.Close(); err != nil {
		t.Fatal(err)
	}
	s.drain()
	code := waitExit(t, cmd)

	for i, l := range s.seen {
		var msg map[string]any
		if err := json.Unmarshal([]byte(l), &msg); err != nil || msg["jsonrpc"] != "2.0" {
			t.Errorf("stdout line %d: got %q, want a JSON-RPC 2.0 object", i+1, l)
		}
	}
	if code != 0 {
		t.Errorf("after a malformed line and stdin EOF: got exit %d, want 0 (stderr %q)", code, stderr.String())
	}
}

// waitExit waits (at most 20 s, then kills) for cmd, whose stdout has been
// read to EOF, and returns its exit code.
func waitExit(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		if err != nil {
			t.Fatalf("wait: %v", err)
		}
		return 0
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("boris still running 20 s after stdin closed")
		return -1
	}
}

// rawSession is a boris process spoken to in raw JSON-RPC lines.
type rawSession struct {
	t     *testing.T
	stdin io.WriteCloser
	lines <-chan string
	seen  []string // every stdout line so far
}

// send writes one raw line to boris's stdin.
func (s *rawSession) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.stdin, line+"\n"); err != nil {
		s.t.Fatalf("write %q: %v", line, err)
	}
}

// await reads stdout lines until the response with the given id arrives
// (or 20 s pass) and returns it decoded.
func (s *rawSession) await(id int) map[string]any {
	s.t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				s.t.Fatalf("stdout closed before the response to id %d; lines %q", id, s.seen)
			}
			s.seen = append(s.seen, l)
			var msg map[string]any
			if json.Unmarshal([]byte(l), &msg) == nil && msg["id"] == float64(id) {
				return msg
			}
		case <-timeout:
			s.t.Fatalf("no response to id %d after 20 s; lines %q", id, s.seen)
		}
	}
}

// drain reads the remaining stdout lines until EOF (at most 20 s).
func (s *rawSession) drain() {
	s.t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				return
			}
			s.seen = append(s.seen, l)
		case <-timeout:
			s.t.Fatalf("stdout still open 20 s after stdin closed; lines %q", s.seen)
		}
	}
}
