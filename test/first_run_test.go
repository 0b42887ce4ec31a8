package test

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFirstRunSettingErrors checks the core's side of issue 10, item 8: a
// bad environment variable is named with its value and what is accepted,
// and a bad flag is named with two dashes, on one stderr line, exit 2.
func TestFirstRunSettingErrors(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"env not a number", []string{"BORIS_TIMEOUT=abc"}, nil, `invalid value "abc" for BORIS_TIMEOUT: want an integer`},
		{"env not a bool", []string{"BORIS_READ_ONLY=maybe"}, nil, `invalid value "maybe" for BORIS_READ_ONLY: want true or false`},
		{"env not a size", []string{"BORIS_MAX_FILE_SIZE=lots"}, nil, `invalid value "lots" for BORIS_MAX_FILE_SIZE: want a positive size`},
		{"bool flag", nil, []string{"--read-only=maybe"}, `invalid value "maybe" for --read-only: want true or false`},
		{"single-dash bool flag", nil, []string{"-anthropic-compat=2"}, `invalid value "2" for --anthropic-compat: want true, false, 20250124 or 20250728 (an editor version Boris does not know, or not a boolean)`},
		{"flag without its value", nil, []string{"--timeout"}, `--timeout needs a value`},
		{"env out of range", []string{"BORIS_TIMEOUT=0"}, nil, `invalid value 0 for BORIS_TIMEOUT: want seconds between 1 and 600`},
		{"flag out of range", nil, []string{"--timeout", "700"}, `invalid value 700 for --timeout: want seconds between 1 and 600`},
		{"env not a choice", []string{"BORIS_SANDBOX=maybe"}, nil, `invalid value "maybe" for BORIS_SANDBOX: want auto, required or off`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runBoris(t, tt.env, tt.args...)
			line, _ := strings.CutSuffix(stderr, "\n")
			if code != 2 || stdout != "" || strings.Contains(line, "\n") || !strings.Contains(line, tt.want) {
				t.Errorf("got exit %d, stdout %q, stderr %q; want 2, nothing, and one line containing %q", code, stdout, stderr, tt.want)
			}
		})
	}
}

// TestReadOnlyEditorEnum checks that with --read-only --anthropic-compat
// the str_replace_editor schema offers only view (issue 10, item 8), while
// a client that sends another command anyway is told the server is
// read-only.
func TestReadOnlyEditorEnum(t *testing.T) {
	enum := func(c *core) []string {
		for _, tool := range toolsOf(t, c) {
			if tool.Name != "str_replace_editor" {
				continue
			}
			b, _ := json.Marshal(tool.InputSchema)
			var s struct {
				Properties map[string]struct {
					Enum []string `json:"enum"`
				} `json:"properties"`
			}
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			return s.Properties["command"].Enum
		}
		t.Fatal("no str_replace_editor tool")
		return nil
	}
	dir := realTempDir(t)
	ro := startCore(t, "--workdir", dir, "--read-only", "--anthropic-compat")
	if diff := cmp.Diff([]string{"view"}, enum(ro)); diff != "" {
		t.Errorf("read-only command enum (-want +got):\n%s", diff)
	}
	ro.fails("ACCESS_DENIED", "str_replace_editor", map[string]any{"command": "create", "path": "x.txt", "file_text": "x"})
	rw := startCore(t, "--workdir", dir, "--anthropic-compat")
	if got := enum(rw); !slices.Equal(got, []string{"view", "create", "str_replace", "insert"}) {
		t.Errorf("command enum = %v, want view, create, str_replace, insert", got)
	}
}

// TestInstructionsDescribeRegisteredTools: the initialize instructions
// speak only of tools the server registers (issue 27: --toolset
// filesystem described bash, str_replace, history and background tasks).
func TestInstructionsDescribeRegisteredTools(t *testing.T) {
	mentions := []string{"bash", "str_replace", "history", "task_output", "run_in_background", "checkpoint"}
	for _, tt := range []struct {
		name string
		args []string
		want []string // of mentions; the rest must be absent
	}{
		{"filesystem", []string{"--toolset", "filesystem"}, nil},
		{"boris", nil, mentions},
		{"boris without bash", []string{"--disable-tools", "bash"}, []string{"str_replace", "history", "checkpoint"}},
		{"boris read-only", []string{"--read-only", "--checkpoints", "off"}, []string{"bash", "task_output", "run_in_background"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := realTempDir(t)
			c := startCoreWith(t, coreOptions{args: append([]string{"--workdir", dir}, tt.args...), env: []string{"XDG_STATE_HOME=" + realTempDir(t)}})
			got := strings.ReplaceAll(c.session.InitializeResult().Instructions, dir, "$WORKDIR") // the test's name is in dir
			names := map[string]bool{}
			for _, tool := range toolsOf(t, c) {
				names[tool.Name] = true
			}
			for _, m := range mentions {
				if want := slices.Contains(tt.want, m); strings.Contains(got, m) != want {
					t.Errorf("instructions mention %q: %v, want %v (tools: %v); instructions:\n%s", m, !want, want, slices.Sorted(maps.Keys(names)), got)
				}
			}
		})
	}
}

// TestInstructionsKeepGatewayStateOut: under boris-gateway the
// instructions do not name the gateway's state directory (its boards and
// principals' state, which it denies to every core), while a deny pattern
// the operator gave is still named.
func TestInstructionsKeepGatewayStateOut(t *testing.T) {
	state := filepath.Join(realTempDir(t), "gateway-state")
	dir := realTempDir(t)
	g := startAuthGateway(t, nil, "--token", "alice="+authAlice, "--state-dir", state, "--", "--workdir", dir, "--deny-dir", "**/.env")
	got := g.connect(authAlice).InitializeResult().Instructions
	if strings.Contains(got, state) || strings.Contains(got, "boards") {
		t.Errorf("instructions name the gateway's state directory %s:\n%s", state, got)
	}
	if !strings.Contains(got, "Always refused: **/.env, and some paths outside the working directory.") {
		t.Errorf("instructions: got\n%s\nwant the operator's **/.env and the rest said generically", got)
	}
}

// TestDenyDirBracePattern: a brace pattern given to --deny-dir or in
// BORIS_DENY_DIRS is one pattern (issue 27: it was split at its comma into
// two broken ones); both alternatives are refused, the rest is not.
func TestDenyDirBracePattern(t *testing.T) {
	for _, o := range []coreOptions{
		{args: []string{"--deny-dir", "**/{.env,secrets}"}},
		{env: []string{"BORIS_DENY_DIRS=**/{.env,secrets}"}},
	} {
		dir := realTempDir(t)
		writeFile(t, filepath.Join(dir, ".env"), "KEY=1\n")
		writeFile(t, filepath.Join(dir, "secrets", "k"), "k\n")
		writeFile(t, filepath.Join(dir, "ok.txt"), "ok\n")
		o.args = append(o.args, "--workdir", dir)
		c := startCoreWith(t, o)
		c.fails("ACCESS_DENIED", "view", map[string]any{"path": ".env"})
		c.fails("ACCESS_DENIED", "view", map[string]any{"path": "secrets/k"})
		c.ok("view", map[string]any{"path": "ok.txt"})
	}
	_, stderr, code := runBoris(t, nil, "--deny-dir", "**/{.env,secrets")
	if code != 2 || !strings.Contains(stderr, `invalid value "**/{.env,secrets" for --deny-dir: a { is never closed`) {
		t.Errorf("an unclosed brace: exit %d, stderr %q; want 2 and what is wrong with the value", code, stderr)
	}
}

// TestCountedNouns: messages with a count of one say so in the singular,
// and a schema failure names the argument, not the schema (issue 27: "1
// files restored", "Inserted 1 lines", "at lines 1, 1", "validating root:
// unexpected additional properties").
func TestCountedNouns(t *testing.T) {
	dir := realTempDir(t)
	writeFile(t, filepath.Join(dir, "f.txt"), "a a\nb\n")
	c := startCoreWith(t, coreOptions{args: []string{"--workdir", dir, "--anthropic-compat"}, env: []string{"XDG_STATE_HOME=" + realTempDir(t)}})
	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"str_replace_editor", map[string]any{"command": "view", "path": "f.txt", "view_range": []int{1}}, "got 1 number"},
		{"str_replace_editor", map[string]any{"command": "str_replace", "path": "f.txt", "old_str": "a"}, "at line 1 (2 times)"},
		{"str_replace_editor", map[string]any{"command": "view", "path": "f.txt", "bogus": 1}, `unknown argument "bogus" (known: `},
		{"str_replace_editor", map[string]any{"command": "create", "path": "one.txt", "file_text": "x"}, "(1 byte)"},
		{"str_replace_editor", map[string]any{"command": "insert", "path": "f.txt", "insert_line": 1, "insert_text": "new"}, "Inserted 1 line after line 1"},
		{"undo", map[string]any{}, "1 file restored"},
	} {
		got := text(c.call(tt.tool, tt.args))
		if !strings.Contains(got, tt.want) || strings.Contains(got, "validating") {
			t.Errorf("%s %v: got %q, want %q", tt.tool, tt.args, got, tt.want)
		}
	}
}
