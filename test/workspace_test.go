package test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
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
	c := startCore(t, "--workdir", dir, "--workspaces-root", root)

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
	g := startAuthGateway(t, []string{"BORIS_WORKSPACES_ROOT=workspaces"},
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
