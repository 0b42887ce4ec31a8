package workspaces

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjkoo/boris/core/toolkit/tooltest"
)

// TestTools: the workspace tools through a real client over real git
// repositories: workspaces are made and listed, a write committed to one
// shows in its history (all of it, or one path's), and bad arguments are
// refused with their code.
func TestTools(t *testing.T) {
	d := tooltest.New(t).WithWorkspaces(t)
	cs := tooltest.Connect(t, Tools(d.Workspaces()))
	call := func(tool string, args map[string]any) (string, bool) {
		res := tooltest.Call(t, cs, tool, args)
		return tooltest.Text(res), res.IsError
	}
	if got, isErr := call("workspace_list", nil); isErr || got != "No workspaces yet (workspace_create makes one)." {
		t.Fatalf("workspace_list before any: got isError=%v %q", isErr, got)
	}
	got, isErr := call("workspace_create", map[string]any{"name": "My Project"})
	if isErr || !strings.HasPrefix(got, "Created workspace my-project at ") {
		t.Fatalf("workspace_create: got isError=%v %q, want the slug my-project", isErr, got)
	}
	dir := strings.TrimPrefix(got, "Created workspace my-project at ")
	if fi, err := os.Stat(filepath.Join(dir, ".git")); err != nil || !fi.IsDir() {
		t.Fatalf("the workspace's repository: %v", err)
	}
	if got, _ := call("workspace_create", map[string]any{"name": "My Project"}); !strings.Contains(got, "my-project-2") {
		t.Errorf("a second workspace of the same name: got %q, want the id my-project-2", got)
	}
	if got, _ := call("workspace_list", nil); !strings.Contains(got, "my-project\t"+dir) || !strings.Contains(got, "my-project-2\t") {
		t.Errorf("workspace_list: got %q, want both workspaces", got)
	}

	// A name that climbs makes a workspace inside the root all the same.
	if got, _ := call("workspace_create", map[string]any{"name": "../../etc"}); !strings.HasPrefix(got, "Created workspace etc at "+filepath.Join(d.Dir(), "workspaces", "etc")) {
		t.Errorf("workspace_create ../../etc: got %q, want the workspace etc inside the root", got)
	}

	ws, err := d.Workspaces().Get("my-project")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	for _, name := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Workspaces().Commit(context.Background(), ws, "write_file", "write", filepath.Join(dir, name)); err != nil {
			t.Fatalf("Commit %s: %v", name, err)
		}
	}
	all, _ := call("get_commit_history", map[string]any{"workspaceId": "my-project"})
	if strings.Count(all, "\n") < 1 || !strings.Contains(all, "a.txt") || !strings.Contains(all, "b.txt") {
		t.Errorf("get_commit_history: got %q, want both writes' commits", all)
	}
	if one, _ := call("get_commit_history", map[string]any{"workspaceId": "my-project", "path": "a.txt"}); !strings.Contains(one, "a.txt") || strings.Contains(one, "b.txt") {
		t.Errorf("get_commit_history of a.txt: got %q, want only its commit", one)
	}
	if last, _ := call("get_commit_history", map[string]any{"workspaceId": "my-project", "limit": 1}); strings.Count(last, "\n") != 0 || !strings.Contains(last, "b.txt") {
		t.Errorf("get_commit_history limit 1: got %q, want the newest commit only", last)
	}
	if got, _ := call("get_commit_history", map[string]any{"workspaceId": "my-project-2"}); got != "No commits yet." && !strings.Contains(got, "workspace") {
		t.Errorf("get_commit_history of a new workspace: got %q", got)
	}

	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"workspace_create", map[string]any{"name": "  "}, "[INVALID_INPUT] name is required"},
		{"get_commit_history", map[string]any{"workspaceId": "my-project", "limit": 1001}, "[INVALID_INPUT] limit 1001"},
		{"get_commit_history", map[string]any{"workspaceId": "my-project", "limit": -1}, "[INVALID_INPUT] limit -1"},
		{"get_commit_history", map[string]any{"workspaceId": "nope"}, "nope"},
		{"get_commit_history", map[string]any{"workspaceId": "../my-project"}, "../my-project"},
		{"get_commit_history", map[string]any{"workspaceId": "my-project", "path": "../../outside"}, "["},
	} {
		if got, isErr := call(tt.tool, tt.args); !isErr || !strings.Contains(got, tt.want) {
			t.Errorf("%s %v: got isError=%v %q, want an error with %q", tt.tool, tt.args, isErr, got, tt.want)
		}
	}
}
