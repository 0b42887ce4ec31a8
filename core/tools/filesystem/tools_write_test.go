package filesystem

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mjkoo/boris/core/toolkit/tooltest"
)

// edits is edit_file's edits argument.
func edits(pairs ...string) []map[string]any {
	var out []map[string]any
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, map[string]any{"oldText": pairs[i], "newText": pairs[i+1]})
	}
	return out
}

// TestWriteTools: write_file, edit_file, create_directory and move_file
// change what they say and answer as server-filesystem does; a refused
// change is an error with its code that leaves every file as it was.
func TestWriteTools(t *testing.T) {
	runScenarios(t, []scenario{
		{name: "write_file", maxSize: 16, files: map[string]string{"old.txt": "old", "sub/f": "", "file": "", ".env": "K=v\n"}, steps: []tooltest.Step{
			{Tool: "write_file", Args: map[string]any{"path": "new.txt", "content": "new"}, Want: "Successfully wrote to new.txt"},
			{Tool: "write_file", Args: map[string]any{"path": "$DIR/old.txt", "content": "replaced"}, Want: "Successfully wrote to $DIR/old.txt"},
			{Tool: "write_file", Args: map[string]any{"path": "no/such/dir/f.txt", "content": "x"}, IsError: true, Want: "[PATH_NOT_FOUND] Parent directory does not exist: $DIR/no/such/dir (create_directory makes it)"},
			{Tool: "write_file", Args: map[string]any{"path": "file/f.txt", "content": "x"}, IsError: true, Want: "[IO_ERROR] $DIR/file/f.txt: not a directory"},
			{Tool: "write_file", Args: map[string]any{"path": "sub", "content": "x"}, IsError: true, Want: "[IS_DIRECTORY] $DIR/sub is a directory; write_file writes files"},
			{Tool: "write_file", Args: map[string]any{"path": "big.txt", "content": "0123456789abcdefg"}, IsError: true, Want: "[FILE_TOO_LARGE] content is 17 bytes, over the 16 limit"},
			{Tool: "write_file", Args: map[string]any{"path": ".env", "content": "K=w\n"}, IsError: true, Want: "[ACCESS_DENIED]"},
			{Tool: "write_file", Args: map[string]any{"path": "../escape.txt", "content": "x"}, IsError: true, Want: "[ACCESS_DENIED]"},
		}, after: map[string]string{"new.txt": "new", "old.txt": "replaced", "no/such/dir/f.txt": tooltest.Absent, "big.txt": tooltest.Absent, ".env": "K=v\n", "../escape.txt": tooltest.Absent}},
		{name: "edit_file", files: map[string]string{"a.txt": "one\ntwo\nthree\n", "crlf.txt": "x\r\ny\r\n"}, steps: []tooltest.Step{
			{Tool: "edit_file", Args: map[string]any{"path": "a.txt", "edits": edits("two", "2"), "dryRun": true}, Want: "```diff\n"},
			{Tool: "edit_file", Args: map[string]any{"path": "a.txt", "edits": edits("two", "2"), "dryRun": true}, Want: "-two\n+2\n"},
			{Tool: "edit_file", Args: map[string]any{"path": "crlf.txt", "edits": edits("y", "z")}, Want: "-y\n+z\n"},
			{Tool: "edit_file", Args: map[string]any{"path": "a.txt", "edits": edits("one", "1", "three", "3")}, Want: "+1\n"},
			{Tool: "edit_file", Args: map[string]any{"path": "a.txt", "edits": edits("four", "4")}, IsError: true, Want: "[NOT_FOUND_IN_FILE] Could not find exact match for edit:\nfour"},
			{Tool: "edit_file", Args: map[string]any{"path": "a.txt", "edits": edits("four", "4")}, IsError: true, Not: "changed since"},
			{Tool: "edit_file", Args: map[string]any{"path": "nope.txt", "edits": edits("a", "b")}, IsError: true, Want: "[PATH_NOT_FOUND]"},
		}, after: map[string]string{"a.txt": "1\ntwo\n3\n", "crlf.txt": "x\r\nz\r\n"}},
		{name: "edit_file after a change made outside", files: abc, steps: []tooltest.Step{
			{Tool: "read_text_file", Args: map[string]any{"path": "a.txt"}, Want: "two"},
			{Tool: tooltest.Outside, Args: map[string]any{"path": "a.txt", "content": "one\nTWO\nthree\nfour\n"}},
			{Tool: "edit_file", Args: map[string]any{"path": "a.txt", "edits": edits("two", "2")}, IsError: true,
				Want: "\nThe text changed since you last read it (checkpoints are off, so Boris cannot say by what)."},
		}, after: map[string]string{"a.txt": "one\nTWO\nthree\nfour\n"}},
		{name: "create_directory and move_file", files: map[string]string{"a.txt": "A", "b.txt": "B", ".env": "K=v\n"}, steps: []tooltest.Step{
			{Tool: "create_directory", Args: map[string]any{"path": "x/y/z"}, Want: "Successfully created directory x/y/z"},
			{Tool: "create_directory", Args: map[string]any{"path": "x/y/z"}, Want: "Successfully created directory x/y/z"},
			{Tool: "create_directory", Args: map[string]any{"path": "/tmp/boris-fs-escape"}, IsError: true, Want: "[ACCESS_DENIED]"},
			{Tool: "move_file", Args: map[string]any{"source": "a.txt", "destination": "x/y/z/a.txt"}, Want: "Successfully moved a.txt to x/y/z/a.txt"},
			{Tool: "move_file", Args: map[string]any{"source": "b.txt", "destination": "x/y/z/a.txt"}, IsError: true, Want: "[INVALID_INPUT] Destination already exists: $DIR/x/y/z/a.txt"},
			{Tool: "move_file", Args: map[string]any{"source": "gone.txt", "destination": "c.txt"}, IsError: true, Want: "[PATH_NOT_FOUND]"},
			{Tool: "move_file", Args: map[string]any{"source": "b.txt", "destination": "../b.txt"}, IsError: true, Want: "[ACCESS_DENIED]"},
			{Tool: "move_file", Args: map[string]any{"source": ".env", "destination": "env.txt"}, IsError: true, Want: "[ACCESS_DENIED]"},
			{Tool: "move_file", Args: map[string]any{"source": "b.txt", "destination": ".env"}, IsError: true, Want: "[ACCESS_DENIED]"},
		}, after: map[string]string{"a.txt": tooltest.Absent, "x/y/z/a.txt": "A", "b.txt": "B", "env.txt": tooltest.Absent, ".env": "K=v\n", "../b.txt": tooltest.Absent}},
	})
}

// TestWorkspaceWrites: with a workspaceId paths resolve inside the
// workspace, write_file makes missing parents, each write that changes
// something is committed and says so (an empty directory kept by a
// .gitkeep), and nothing reaches outside the workspace; an unknown
// workspace, and a moved repository, are refused.
func TestWorkspaceWrites(t *testing.T) {
	const ws = "workspaces/demo/"
	runScenarios(t, []scenario{
		{name: "in a workspace", workspace: true, files: map[string]string{"top.txt": "top\n"}, steps: []tooltest.Step{
			{Tool: "write_file", Args: map[string]any{"workspaceId": "demo", "path": "notes/n.txt", "content": "n1\n"}, Want: "Successfully wrote to notes/n.txt\nCommitted "},
			{Tool: "edit_file", Args: map[string]any{"workspaceId": "demo", "path": "notes/n.txt", "edits": edits("n1", "n2")}, Want: "\nCommitted "},
			{Tool: "move_file", Args: map[string]any{"workspaceId": "demo", "source": "notes/n.txt", "destination": "n.txt"}, Want: "Successfully moved notes/n.txt to n.txt\nCommitted "},
			{Tool: "write_file", Args: map[string]any{"workspaceId": "demo", "path": "n.txt", "content": "n2\n"}, Want: "Successfully wrote to n.txt", Not: "Committed"},
			{Tool: "create_directory", Args: map[string]any{"workspaceId": "demo", "path": "empty"}, Want: "Successfully created directory empty\nCommitted "},
			{Tool: "read_text_file", Args: map[string]any{"workspaceId": "demo", "path": "n.txt"}, Want: "n2\n"},
			{Tool: "list_allowed_directories", Args: map[string]any{"workspaceId": "demo"}, Want: "Allowed directories:\n$DIR/workspaces/demo"},
			{Tool: "write_file", Args: map[string]any{"workspaceId": "demo", "path": "../../top.txt", "content": "x"}, IsError: true, Want: "[ACCESS_DENIED] ../../top.txt is outside workspace demo"},
			{Tool: "write_file", Args: map[string]any{"workspaceId": "demo", "path": "$DIR/top.txt", "content": "x"}, IsError: true, Want: "[ACCESS_DENIED]"},
			{Tool: "write_file", Args: map[string]any{"workspaceId": "nope", "path": "x.txt", "content": "x"}, IsError: true, Want: "[WORKSPACE_NOT_FOUND]"},
			{Tool: "list_allowed_directories", Args: map[string]any{"workspaceId": "nope"}, IsError: true, Want: "[WORKSPACE_NOT_FOUND]"},
		}, after: map[string]string{ws + "n.txt": "n2\n", ws + "notes/n.txt": tooltest.Absent, ws + "empty/.gitkeep": "", "top.txt": "top\n", "x.txt": tooltest.Absent}},
		{name: "a repository is not moved in", workspace: true, files: map[string]string{"repo/.git/HEAD": "ref: refs/heads/main\n", "repo/f": "f"}, steps: []tooltest.Step{
			{Tool: "move_file", Args: map[string]any{"source": "repo", "destination": "workspaces/evil"}, IsError: true,
				Want: "[ACCESS_DENIED] $DIR/repo holds a git repository (.git): it cannot be moved under the workspaces root"},
		}, after: map[string]string{"repo/f": "f", "workspaces/evil/f": tooltest.Absent}},
		{name: "workspaces off", files: abc, steps: []tooltest.Step{
			{Tool: "write_file", Args: map[string]any{"workspaceId": "demo", "path": "a.txt", "content": "x"}, IsError: true,
				Want: `[INVALID_INPUT] workspaceId "demo": workspaces are not enabled (start boris with --workspaces-root)`},
		}, after: abc},
	})
}

// TestWriteFileKeepsMode: overwriting an executable leaves it executable.
func TestWriteFileKeepsMode(t *testing.T) {
	d := tooltest.New(t)
	path := filepath.Join(d.Dir(), "run.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	res := tooltest.Call(t, tooltest.Connect(t, Tools(d, Options{MaxFileSize: 1 << 20})), "write_file", map[string]any{"path": "run.sh", "content": "#!/bin/sh\necho hi\n"})
	if res.IsError {
		t.Fatalf("write_file run.sh: %q", tooltest.Text(res))
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("run.sh after the overwrite: %v, %v; want mode 0755", fi, err)
	}
}
