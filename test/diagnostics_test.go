package test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/internal/testbin"
)

// diagLanguage is one language's project and the edits the diagnostics
// tests make to it with the real server.
type diagLanguage struct {
	name  string
	files map[string]string
	file  string // the file edited
	// brk breaks the build; want is the line its result must show.
	brk     [2]string
	want    *regexp.Regexp
	harmful string // what a message of the break says, for "fixed"
}

var diagLanguages = []diagLanguage{{
	name: "go",
	files: map[string]string{
		"go.mod":  "module example.com/m\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n",
	},
	file: "main.go", brk: [2]string{`fmt.Println("hello")`, `fmt.Println(greeting)`},
	want:    regexp.MustCompile(`(?m)^  new   error 6:14 undefined: greeting \(compiler\)$`),
	harmful: "undefined: greeting",
}, {
	name: "python",
	files: map[string]string{
		"main.py": "def greet(name: str) -> str:\n    return \"hello \" + name\n\n\nprint(greet(\"x\"))\n",
	},
	file: "main.py", brk: [2]string{`print(greet("x"))`, `print(greet(missing_name))`},
	want:    regexp.MustCompile(`(?m)^  new   error 5:13 "missing_name" is not defined \(Pyright\)$`),
	harmful: `"missing_name" is not defined`,
}, {
	name: "typescript",
	files: map[string]string{
		"main.ts": "export function greet(name: string): string {\n  return \"hello \" + name;\n}\n\nconsole.log(greet(\"x\"));\n",
	},
	file: "main.ts", brk: [2]string{`greet("x")`, `greet(42)`},
	want:    regexp.MustCompile(`(?m)^  new   error 5:19 Argument of type 'number' is not assignable to parameter of type 'string'\. \(typescript\)$`),
	harmful: "Argument of type 'number'",
}}

// TestDiagnosticsRealServers: with gopls, pyright and
// typescript-language-server, under the sandbox, an edit that breaks the
// build is reported with its line in its own result; the edit that fixes
// it says so and lists nothing new; a harmless edit adds nothing; and the
// diagnostics tool lists the problem a bash command made.
func TestDiagnosticsRealServers(t *testing.T) {
	t.Parallel()
	gopls := needGopls(t)
	commands := map[string]string{"go": "go=" + gopls}
	if pyright, ts := needNodeServers(t); pyright != "" {
		commands["python"] = "python=" + pyright + " --stdio"
		commands["typescript"] = "typescript=" + ts + " --stdio"
	}
	// One language at a time: a cold pyright or tsserver takes tens of
	// seconds on a loaded 2-core machine, and more beside another.
	for _, l := range diagLanguages {
		t.Run(l.name, func(t *testing.T) {
			dir := realTempDir(t)
			testbin.Tree(t, dir, l.files)
			// A generous bound: the first edit waits for the server to start.
			c := startCoreWith(t, coreOptions{args: []string{"--workdir", dir, "--lsp", commands[l.name], "--diagnostics-wait", "1m", "--log-level", "debug"}})
			defer func() {
				if t.Failed() {
					t.Logf("boris's log:\n%s", c.stderr.String())
				}
			}()
			steps := []struct {
				what          string
				old, new      string
				want, notWant *regexp.Regexp
			}{
				{"harmless edit", l.brk[0], l.brk[0] + " ", nil, regexp.MustCompile(`\[diagnostics\]`)},
				{"breaking edit", l.brk[0] + " ", l.brk[1], l.want, nil},
				{"fixing edit", l.brk[1], l.brk[0], regexp.MustCompile(`(?m)^\[diagnostics\] ` + regexp.QuoteMeta(l.file) + `: 1 fixed\n  fixed error \d+:\d+ ` + regexp.QuoteMeta(l.harmful)), regexp.MustCompile(`new`)},
				{"harmless edit after the fix", l.brk[0], l.brk[0] + " ", nil, regexp.MustCompile(`\[diagnostics\]`)},
			}
			for _, s := range steps {
				got := slowCall(t, c, "str_replace", map[string]any{"path": l.file, "old_str": s.old, "new_str": s.new})
				if s.want != nil && !s.want.MatchString(got) {
					t.Fatalf("%s: got %q, want it to match %s", s.what, got, s.want)
				}
				if s.notWant != nil && s.notWant.MatchString(got) {
					t.Fatalf("%s: got %q, want no match of %s", s.what, got, s.notWant)
				}
			}
			// Broken again by a command, behind the file tools' back.
			c.ok("bash", map[string]any{"command": "sed -i 's/" + sedEscape(l.brk[0]) + "/" + sedEscape(l.brk[1]) + "/' " + l.file})
			for _, path := range []string{l.file, ""} {
				got := slowCall(t, c, "diagnostics", map[string]any{"path": path})
				if !strings.Contains(got, l.harmful) || !strings.HasPrefix(got, "1 problem in 1 file:\n"+l.file+"\n  error ") {
					t.Errorf("diagnostics %q after bash broke %s: got %q, want its one problem (%s)", path, l.file, got, l.harmful)
				}
			}
		})
	}
}

// slowCall is c.ok with room for a server's cold start on a busy
// machine: --diagnostics-wait's maximum, and a margin.
func slowCall(t *testing.T, c *core, name string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("call %s %v: got %v %v, want success", name, args, err, res)
	}
	return text(res)
}

// sedEscape escapes s for a sed pattern or replacement between '/'.
func sedEscape(s string) string {
	return strings.NewReplacer(`/`, `\/`, `.`, `\.`, `(`, `(`, `"`, `"`, `&`, `\&`).Replace(s)
}

// TestDiagnosticsLateComeWithNextCall: with a bound too short for any
// server, an edit's result has no diagnostics, and they come at the
// start of a later call's result, once.
func TestDiagnosticsLateComeWithNextCall(t *testing.T) {
	t.Parallel()
	gopls := needGopls(t)
	l := diagLanguages[0]
	dir := realTempDir(t)
	testbin.Tree(t, dir, l.files)
	c := startCoreWith(t, coreOptions{args: []string{"--workdir", dir, "--lsp", "go=" + gopls, "--diagnostics-wait", "10ms"}})
	if got := c.ok("str_replace", map[string]any{"path": l.file, "old_str": l.brk[0], "new_str": l.brk[1]}); strings.Contains(got, "[diagnostics]") {
		t.Fatalf("edit with a 10ms bound and a server starting: got %q, want no diagnostics yet", got)
	}
	// A cold gopls on a busy machine takes a while: poll for longer than
	// testbin.WaitFor does.
	var late string
	for deadline := time.Now().Add(90 * time.Second); late == "" && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		res := c.call("view", map[string]any{"path": "go.mod"})
		if first, ok := res.Content[0].(*mcp.TextContent); ok && strings.HasPrefix(first.Text, "[diagnostics] late, main.go: 1 new problem\n") {
			late = first.Text
		}
	}
	if !l.want.MatchString(late) {
		t.Errorf("late diagnostics: got %q, want a line matching %s", late, l.want)
	}
	if got := c.ok("view", map[string]any{"path": "go.mod"}); strings.Contains(got, "[diagnostics]") {
		t.Errorf("the call after: got %q, want the late diagnostics said once", got)
	}
}

// fakeServer writes an executable script into dir that stands for a
// language server.
func fakeServer(t *testing.T, dir, body string) string {
	t.Helper()
	path := filepath.Join(dir, "fake-lsp.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDiagnosticsWithoutServer: a missing server and one that keeps
// crashing each cost one line, said once; the edits are made as ever,
// and no server process is left behind.
func TestDiagnosticsWithoutServer(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		lsp  func(dir string) string
		want string
	}{
		{"missing", func(dir string) string { return filepath.Join(dir, "no-such-gopls") }, "[diagnostics] no Go language server ("},
		{"crashing", func(dir string) string { return fakeServer(t, dir, "exit 7\n") }, "[diagnostics] the Go language server (" + "%s) did not start"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := realTempDir(t)
			testbin.Tree(t, dir, diagLanguages[0].files)
			server := tc.lsp(dir)
			c := startCoreWith(t, coreOptions{args: []string{"--workdir", dir, "--lsp", "go=" + server}})
			got := c.ok("str_replace", map[string]any{"path": "main.go", "old_str": "hello", "new_str": "hi"})
			want := strings.ReplaceAll(tc.want, "%s", server)
			if !strings.Contains(got, want) {
				t.Fatalf("first edit: got %q, want %q", got, want)
			}
			if tc.name == "crashing" && !strings.Contains(got, "after a restart: Go edits are no longer checked in this session") {
				t.Errorf("first edit: got %q, want it to say the server failed after a restart", got)
			}
			if got := c.ok("str_replace", map[string]any{"path": "main.go", "old_str": "hi", "new_str": "hey"}); strings.Contains(got, "[diagnostics]") {
				t.Errorf("second edit: got %q, want no diagnostics line (said once)", got)
			}
			if data, _ := os.ReadFile(filepath.Join(dir, "main.go")); !strings.Contains(string(data), `"hey"`) {
				t.Errorf("main.go: got %q, want both edits made", data)
			}
		})
	}
}

// TestDiagnosticsHungServerEndsWithSession: a server that never answers
// costs an edit no more than --diagnostics-wait, and ends with the session.
func TestDiagnosticsHungServerEndsWithSession(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	testbin.Tree(t, dir, diagLanguages[0].files)
	const marker = "sleep 3607"
	server := fakeServer(t, dir, "exec "+marker+"\n")
	c := startCoreWith(t, coreOptions{args: []string{"--workdir", dir, "--lsp", "go=" + server, "--diagnostics-wait", "200ms"}})
	if got := c.ok("str_replace", map[string]any{"path": "main.go", "old_str": "hello", "new_str": "hi"}); strings.Contains(got, "[diagnostics]") {
		t.Errorf("edit with a server that never answers: got %q, want no diagnostics", got)
	}
	testbin.WaitFor(t, "the hung server to run", func() bool { return len(processesWith(marker)) > 0 })
	if err := c.session.Close(); err != nil {
		t.Fatal(err)
	}
	testbin.WaitFor(t, "no hung server left once the session ended", func() bool { return len(processesWith(marker)) == 0 })
}

// TestDiagnosticsServerConfined: a hostile server (any --lsp command, or
// a gopls a principal could replace) runs under the commands' Landlock
// rules: it cannot read a secret outside the allowed directories.
func TestDiagnosticsServerConfined(t *testing.T) {
	t.Parallel()
	if !landlockAvailable() {
		t.Skip("this kernel offers no Landlock (landlock_create_ruleset fails): servers cannot be confined")
	}
	secretDir := realTempDir(t)
	secret := filepath.Join(secretDir, "secret.txt")
	if err := os.WriteFile(secret, []byte("TOP-SECRET-42"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := realTempDir(t)
	testbin.Tree(t, dir, diagLanguages[0].files)
	server := fakeServer(t, dir, "cat "+secret+" > leak.txt 2>&1; echo done >> leak.txt; exit 7\n")
	c := startCoreWith(t, coreOptions{args: []string{"--workdir", dir, "--allow-dir", dir, "--lsp", "go=" + server, "--sandbox", "required"}})
	c.ok("str_replace", map[string]any{"path": "main.go", "old_str": "hello", "new_str": "hi"})
	var leak []byte
	testbin.WaitFor(t, "the fake server's leak.txt", func() bool {
		leak, _ = os.ReadFile(filepath.Join(dir, "leak.txt"))
		return strings.Contains(string(leak), "done")
	})
	if strings.Contains(string(leak), "TOP-SECRET-42") || !strings.Contains(string(leak), "Permission denied") {
		t.Errorf("a server reading %s outside the allowed directory: got %q, want Permission denied", secret, leak)
	}
}

// TestDiagnosticsGatewayServerInSession: under the gateway, a session's
// language server runs in the session's namespaces and cgroup, the same
// as its bash commands, not the host's: it counts in the session's
// memory and sees only the session's processes and network.
func TestDiagnosticsGatewayServerInSession(t *testing.T) {
	t.Parallel()
	if !landlockAvailable() {
		t.Skip("this kernel offers no Landlock (landlock_create_ruleset fails): the gateway refuses a set-up with bash")
	}
	const where = "{ readlink /proc/self/ns/net /proc/self/ns/pid; cat /proc/self/cgroup; }"
	// A relative script: servers start in the working directory.
	g := startGateway(t, "--sandbox-net", "none", "--", "--diagnostics-wait", "100ms", "--lsp", "go=/bin/sh fake-lsp.sh")
	fakeServer(t, g.dir, where+" > where.txt; exit 7\n")
	s := g.connect(nil, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	call := func(name string, args map[string]any) string {
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %v", name, err, res)
		}
		return text(res)
	}
	call("create_file", map[string]any{"path": "main.go", "content": "package main\n"})
	var server []byte
	testbin.WaitFor(t, "the fake server's where.txt", func() bool {
		server, _ = os.ReadFile(filepath.Join(g.dir, "where.txt"))
		return strings.Count(string(server), "\n") >= 3
	})
	bash := call("bash", map[string]any{"command": where})
	if strings.TrimSpace(string(server)) != strings.TrimSpace(stdoutOf(bash)) {
		t.Errorf("the server's namespaces and cgroup: got %q, want the session's commands' %q", server, bash)
	}
	host, _ := os.Readlink("/proc/self/ns/net")
	if strings.Contains(string(server), host) {
		t.Errorf("the server's network namespace is the host's (%s): %q", host, server)
	}
}

// stdoutOf is the stdout a bash result shows.
func stdoutOf(s string) string {
	_, out, _ := strings.Cut(s, "stdout:\n")
	out, _, _ = strings.Cut(out, "\nexit_code:")
	return out
}
