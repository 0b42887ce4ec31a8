package test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// wsResult decodes a workspace tool's structuredContent.
func wsResult[T any](t *testing.T, res *mcp.CallToolResult) T {
	t.Helper()
	var out T
	b, err := json.Marshal(res.StructuredContent)
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	if err != nil || res.IsError {
		t.Fatalf("result %q (structured %s): %v", text(res), b, err)
	}
	return out
}

type wsCreated struct {
	WorkspaceID string `json:"workspaceId"`
	Path        string `json:"path"`
}

// TestWorkspaceCreateAndList: ids are slugs of the names, unique even
// when creates of one name race, each a git repository under the root;
// bad ids are refused without touching anything outside the root.
func TestWorkspaceCreateAndList(t *testing.T) {
	dir := realTempDir(t)
	root := filepath.Join(dir, "ws")
	c := startCore(t, "--workdir", dir, "--workspaces-root", root, "--toolset", "filesystem")

	for _, tc := range []struct{ name, want string }{
		{"My First Workspace", "my-first-workspace"},
		{"My First Workspace", "my-first-workspace-2"},
		{"../../etc/passwd", "etc-passwd"},
		{"  Tabs\tand/slashes\\  ", "tabs-and-slashes"},
	} {
		got := wsResult[wsCreated](t, c.call("workspace_create", map[string]any{"name": tc.name}))
		if got.WorkspaceID != tc.want || got.Path != filepath.Join(root, tc.want) {
			t.Errorf("workspace_create %q: got %+v, want id %s under %s", tc.name, got, tc.want, root)
		}
		if fi, err := os.Stat(filepath.Join(got.Path, ".git")); err != nil || !fi.IsDir() {
			t.Errorf("workspace %s has no git repository: %v", got.WorkspaceID, err)
		}
	}
	c.fails("INVALID_INPUT", "workspace_create", map[string]any{"name": "!!!"})
	c.fails("INVALID_INPUT", "workspace_create", map[string]any{"name": "  "})

	const n = 6
	ids := make(chan string, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			ids <- wsResult[wsCreated](t, c.call("workspace_create", map[string]any{"name": "Race"})).WorkspaceID
		})
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		if seen[id] {
			t.Errorf("two concurrent creates got id %s", id)
		}
		seen[id] = true
	}

	list := wsResult[struct {
		Workspaces []wsCreated `json:"workspaces"`
	}](t, c.call("workspace_list", map[string]any{}))
	if len(list.Workspaces) != 4+n {
		t.Errorf("workspace_list: got %d workspaces, want %d: %+v", len(list.Workspaces), 4+n, list.Workspaces)
	}

	for _, id := range []string{"missing", "..", "../ws/my-first-workspace", "/etc", "My-First-Workspace"} {
		c.fails("WORKSPACE_NOT_FOUND", "get_commit_history", map[string]any{"workspaceId": id})
	}
	h := wsResult[struct {
		Log []map[string]any `json:"log"`
	}](t, c.call("get_commit_history", map[string]any{"workspaceId": "my-first-workspace"}))
	if len(h.Log) != 0 {
		t.Errorf("history of a new workspace: %v, want none", h.Log)
	}
	// A path leading out of the workspace, or into its .git, is refused.
	c.fails("ACCESS_DENIED", "get_commit_history", map[string]any{"workspaceId": "my-first-workspace", "path": "../my-first-workspace-2/x"})
	c.fails("ACCESS_DENIED", "get_commit_history", map[string]any{"workspaceId": "my-first-workspace", "path": ".git/config"})
	if err := os.Symlink(dir, filepath.Join(root, "my-first-workspace", "out")); err != nil {
		t.Fatal(err)
	}
	c.fails("ACCESS_DENIED", "get_commit_history", map[string]any{"workspaceId": "my-first-workspace", "path": "out/x"})
}

// TestWorkspacesPerPrincipal: under boris-gateway with a relative
// BORIS_WORKSPACES_ROOT and --workdir-template, each principal's
// workspaces live in its own directory: two principals creating the same
// name both get the plain id, and each lists only its own.
func TestWorkspacesPerPrincipal(t *testing.T) {
	root := filepath.Join(realTempDir(t), "work")
	g := startAuthGateway(t, []string{"BORIS_WORKSPACES_ROOT=workspaces", "BORIS_TOOLSET=all"},
		"--token", "alice="+authAlice, "--token", "bob="+authBob, "--workdir-template", root+"/{sub}")
	for _, p := range []struct{ name, token string }{{"alice", authAlice}, {"bob", authBob}} {
		s := g.connect(p.token)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "workspace_create", Arguments: map[string]any{"name": "Shared Name"}})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		got := wsResult[wsCreated](t, res)
		want := filepath.Join(root, p.name, "workspaces", "shared-name")
		if got.WorkspaceID != "shared-name" || got.Path != want {
			t.Errorf("%s: workspace_create got %+v, want shared-name at %s", p.name, got, want)
		}
		ctx, cancel = context.WithTimeout(context.Background(), 30*time.Second)
		res, err = s.CallTool(ctx, &mcp.CallToolParams{Name: "workspace_list", Arguments: map[string]any{}})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if txt := text(res); strings.Count(txt, "\n") != 0 || !strings.Contains(txt, want) {
			t.Errorf("%s: workspace_list %q, want only its own workspace", p.name, txt)
		}
	}
}

// TestWorkspaceWritesAreCommitted: every write made through the
// filesystem tools with a workspaceId is committed (the hash in the
// result), just the paths it touched, and get_commit_history reads them
// back, per path too.
func TestWorkspaceWritesAreCommitted(t *testing.T) {
	dir := realTempDir(t)
	c := startCore(t, "--workdir", dir, "--workspaces-root", filepath.Join(dir, "ws"), "--toolset", "all")
	ws := wsResult[wsCreated](t, c.call("workspace_create", map[string]any{"name": "Audit Me"})).WorkspaceID
	commitOf := func(out string) string {
		t.Helper()
		_, hash, ok := strings.Cut(out, "\nCommitted ")
		if !ok || len(strings.TrimSpace(hash)) != 40 {
			t.Fatalf("result %q: want it to end with the commit hash", out)
		}
		return strings.TrimSpace(hash)
	}
	in := func(args map[string]any) map[string]any { args["workspaceId"] = ws; return args }

	h0 := commitOf(c.ok("create_directory", in(map[string]any{"path": "users"})))
	h1 := commitOf(c.ok("write_file", in(map[string]any{"path": "users/data.txt", "content": "one\n"})))
	h2 := commitOf(c.ok("edit_file", in(map[string]any{"path": "users/data.txt", "edits": []any{map[string]any{"oldText": "one", "newText": "two"}}})))
	h3 := commitOf(c.ok("create_directory", in(map[string]any{"path": "empty"})))
	h4 := commitOf(c.ok("move_file", in(map[string]any{"source": "users/data.txt", "destination": "moved.txt"})))
	// A dry run and a read commit nothing; neither does rewriting the same bytes.
	if out := c.ok("edit_file", in(map[string]any{"path": "moved.txt", "edits": []any{map[string]any{"oldText": "two", "newText": "three"}}, "dryRun": true})); strings.Contains(out, "\nCommitted ") {
		t.Errorf("dry run committed: %q", out)
	}
	if out := c.ok("write_file", in(map[string]any{"path": "moved.txt", "content": "two\n"})); strings.Contains(out, "\nCommitted ") {
		t.Errorf("an unchanged write committed: %q", out)
	}
	// Written without workspaceId (plain path): no commit.
	if out := c.ok("write_file", map[string]any{"path": filepath.Join(dir, "ws", ws, "loose.txt"), "content": "x"}); strings.Contains(out, "\nCommitted ") {
		t.Errorf("a write without workspaceId committed: %q", out)
	}

	type entry struct{ Commit, Message string }
	log := wsResult[struct{ Log []entry }](t, c.call("get_commit_history", map[string]any{"workspaceId": ws})).Log
	var got []string
	for _, e := range log {
		got = append(got, e.Commit+" "+e.Message)
	}
	want := []string{
		h4 + " mcp/fs/move_file: Move users/data.txt -> moved.txt",
		h3 + " mcp/fs/create_directory: Mkdir empty",
		h2 + " mcp/fs/edit_file: Update users/data.txt",
		h1 + " mcp/fs/write_file: Create users/data.txt",
		h0 + " mcp/fs/create_directory: Mkdir users",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("history:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	perPath := wsResult[struct{ Log []entry }](t, c.call("get_commit_history", map[string]any{"workspaceId": ws, "path": "users/data.txt", "limit": 2})).Log
	if len(perPath) != 2 || perPath[0].Commit != h4 || perPath[1].Commit != h2 {
		t.Errorf("history of users/data.txt, limit 2: %+v, want the move and the edit", perPath)
	}
	c.fails("INVALID_INPUT", "get_commit_history", map[string]any{"workspaceId": ws, "limit": 5000})
}

// TestWorkspaceWriteMakesParents: inside a workspace write_file creates
// missing parent directories and commits the file (docs/workspaces.md#workspaces); outside
// one it refuses them, as server-filesystem does.
func TestWorkspaceWriteMakesParents(t *testing.T) {
	dir := realTempDir(t)
	c := startCore(t, "--workdir", dir, "--workspaces-root", filepath.Join(dir, "ws"), "--toolset", "filesystem")
	ws := wsResult[wsCreated](t, c.call("workspace_create", map[string]any{"name": "deep"}))
	out := c.ok("write_file", map[string]any{"workspaceId": ws.WorkspaceID, "path": "a/b/c.txt", "content": "x\n"})
	if got := readFile(t, filepath.Join(ws.Path, "a", "b", "c.txt")); got != "x\n" || !strings.Contains(out, "\nCommitted ") {
		t.Errorf("write_file a/b/c.txt in a workspace: result %q, file %q; want it written and committed", out, got)
	}
	log := wsResult[struct{ Log []struct{ Message string } }](t, c.call("get_commit_history", map[string]any{"workspaceId": ws.WorkspaceID}))
	if len(log.Log) != 1 || log.Log[0].Message != "mcp/fs/write_file: Create a/b/c.txt" {
		t.Errorf("history: got %+v, want one commit creating a/b/c.txt", log.Log)
	}
	c.fails("PATH_NOT_FOUND", "write_file", map[string]any{"path": "x/y/z.txt", "content": "x"})
	if _, err := os.Stat(filepath.Join(dir, "x")); !os.IsNotExist(err) {
		t.Errorf("write_file outside a workspace made x/: %v", err)
	}
}

// TestWorkspacesNeedFilesystemTools: the workspace tools come with the
// tools that take workspaceId (--toolset filesystem or all); --toolset
// boris, whose view, create_file and str_replace take none, refuses
// --workspaces-root at start, naming the fix.
func TestWorkspacesNeedFilesystemTools(t *testing.T) {
	dir := realTempDir(t)
	for _, env := range [][]string{nil, {"BORIS_TOOLSET=boris"}} {
		_, stderr, code := runBoris(t, env, "--workdir", dir, "--workspaces-root", filepath.Join(dir, "ws"))
		if code != 2 || !strings.Contains(stderr, "--toolset filesystem or all") {
			t.Errorf("--workspaces-root with the boris toolset (env %v): exit %d, stderr %q; want 2 and the toolsets that work", env, code, stderr)
		}
	}
	for _, ts := range []string{"filesystem", "all"} {
		c := startCore(t, "--workdir", dir, "--workspaces-root", filepath.Join(dir, "ws"), "--toolset", ts)
		names := toolNames(t, c)
		for _, want := range []string{"workspace_create", "workspace_list", "get_commit_history", "write_file"} {
			if !slices.Contains(names, want) {
				t.Errorf("--toolset %s: tools %v, want %s", ts, names, want)
			}
		}
	}
}

// TestWorkspaceEscapesAndGitTampering: a workspaceId confines paths to the
// workspace (.., absolute paths elsewhere, symlinks out); the workspace's
// .git is out of every tool's reach; and git configuration planted there
// by a command (a clean filter) runs, at the next commit, no further than
// the command itself could reach.
func TestWorkspaceEscapesAndGitTampering(t *testing.T) {
	dir := realTempDir(t)
	outside := realTempDir(t)
	root := filepath.Join(dir, "ws")
	c := startCore(t, "--workdir", dir, "--allow-dir", dir, "--workspaces-root", root, "--toolset", "all")
	ws := wsResult[wsCreated](t, c.call("workspace_create", map[string]any{"name": "t"}))
	other := wsResult[wsCreated](t, c.call("workspace_create", map[string]any{"name": "other"}))
	if err := os.Symlink(outside, filepath.Join(ws.Path, "link-out")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"../other/x.txt", filepath.Join(other.Path, "x.txt"), filepath.Join(outside, "x.txt"), "link-out/x.txt", ".git/config", ".git/hooks/post-commit"} {
		c.fails("ACCESS_DENIED", "write_file", map[string]any{"workspaceId": ws.WorkspaceID, "path": p, "content": "x"})
	}
	c.fails("ACCESS_DENIED", "read_text_file", map[string]any{"workspaceId": ws.WorkspaceID, "path": ".git/config"})
	// Without a workspaceId, too: any workspace's .git is denied.
	c.fails("ACCESS_DENIED", "write_file", map[string]any{"path": filepath.Join(ws.Path, ".git", "config"), "content": "x"})
	c.fails("ACCESS_DENIED", "create_file", map[string]any{"path": filepath.Join(ws.Path, ".git", "hooks", "pre-commit"), "content": "x"})
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("files appeared outside: %v", entries)
	}

	// A command plants a clean filter that writes outside the sandbox.
	marker := filepath.Join(outside, "filter-ran")
	c.ok("bash", map[string]any{"command": "cd " + ws.Path + " && git config filter.evil.clean 'touch " + marker + "; cat' && echo '* filter=evil' > .gitattributes"})
	out := c.ok("write_file", map[string]any{"workspaceId": ws.WorkspaceID, "path": "a.txt", "content": "a\n"})
	if _, err := os.Stat(marker); err == nil && landlockABI() > 0 {
		t.Errorf("the planted filter ran outside the sandbox (wrote %s); write_file said %q", marker, out)
	}
}
