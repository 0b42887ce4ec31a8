package boris

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mjkoo/boris/core/toolkit/tooltest"
)

// TestStrReplace: str_replace changes exactly the text asked for and
// shows the edited region; a miss, an ambiguous match or a refused path
// is an error with its code that leaves the file as it was.
func TestStrReplace(t *testing.T) {
	runScenarios(t, []scenario{
		{name: "one occurrence", files: abc, steps: []tooltest.Step{
			{Tool: "str_replace", Args: map[string]any{"path": "a.txt", "old_str": "two", "new_str": "2"}, Want: "Edited $DIR/a.txt. The edited region now reads:\n     1\tone\n     2\t2\n     3\tthree\n"},
		}, after: map[string]string{"a.txt": "one\n2\nthree\n"}},
		{name: "new_str omitted deletes", files: abc, steps: []tooltest.Step{
			{Tool: "str_replace", Args: map[string]any{"path": "a.txt", "old_str": "two\n"}, Want: "Edited"},
		}, after: map[string]string{"a.txt": "one\nthree\n"}},
		{name: "replace_all", files: map[string]string{"a.txt": "x y x\nx\n"}, steps: []tooltest.Step{
			{Tool: "str_replace", Args: map[string]any{"path": "a.txt", "old_str": "x", "new_str": "z", "replace_all": true}, Want: "Replaced 3 occurrences in $DIR/a.txt."},
		}, after: map[string]string{"a.txt": "z y z\nz\n"}},
		{name: "crlf file edited with lf strings keeps crlf", files: map[string]string{"w.txt": "a\r\nb\r\nc\r\n"}, steps: []tooltest.Step{
			{Tool: "str_replace", Args: map[string]any{"path": "w.txt", "old_str": "a\nb", "new_str": "x\ny"}, Want: "Edited"},
		}, after: map[string]string{"w.txt": "x\r\ny\r\nc\r\n"}},
		{name: "refusals change nothing", files: map[string]string{"a.txt": "one\ntwo\none\n", "sub/f": "", ".env": "K=v\n"}, steps: []tooltest.Step{
			{Tool: "str_replace", Args: map[string]any{"path": "a.txt", "old_str": "four", "new_str": "4"}, IsError: true, Want: "[NOT_FOUND_IN_FILE] old_str was not found in $DIR/a.txt. It must match exactly"},
			{Tool: "str_replace", Args: map[string]any{"path": "a.txt", "old_str": "four", "new_str": "4"}, IsError: true, Want: "Nothing was changed."},
			{Tool: "str_replace", Args: map[string]any{"path": "a.txt", "old_str": "one", "new_str": "1"}, IsError: true, Want: "[AMBIGUOUS_MATCH] old_str occurs 2 times in $DIR/a.txt, at lines 1, 3. Add surrounding lines"},
			{Tool: "str_replace", Args: map[string]any{"path": "a.txt", "old_str": "", "new_str": "1"}, IsError: true, Want: "[INVALID_INPUT] old_str must not be empty"},
			{Tool: "str_replace", Args: map[string]any{"path": "a.txt", "old_str": "one", "new_str": "one"}, IsError: true, Want: "[INVALID_INPUT] old_str and new_str are identical"},
			{Tool: "str_replace", Args: map[string]any{"path": "sub", "old_str": "a", "new_str": "b"}, IsError: true, Want: "[IS_DIRECTORY] $DIR/sub is a directory, not a file"},
			{Tool: "str_replace", Args: map[string]any{"path": "nope.txt", "old_str": "a", "new_str": "b"}, IsError: true, Want: "[PATH_NOT_FOUND]"},
			{Tool: "str_replace", Args: map[string]any{"path": "", "old_str": "a", "new_str": "b"}, IsError: true, Want: "[INVALID_INPUT] path is required"},
			{Tool: "str_replace", Args: map[string]any{"path": ".env", "old_str": "K", "new_str": "L"}, IsError: true, Want: "[ACCESS_DENIED]"},
			{Tool: "str_replace", Args: map[string]any{"path": "/etc/hostname", "old_str": "a", "new_str": "b"}, IsError: true, Want: "[ACCESS_DENIED]"},
		}, after: map[string]string{"a.txt": "one\ntwo\none\n", ".env": "K=v\n", "nope.txt": tooltest.Absent}},
		{name: "over --max-file-size", opt: func(o *Options) { o.MaxFileSize = 4 }, files: abc, steps: []tooltest.Step{
			{Tool: "str_replace", Args: map[string]any{"path": "a.txt", "old_str": "two", "new_str": "2"}, IsError: true, Want: "[FILE_TOO_LARGE] $DIR/a.txt is 14 bytes, over the 4 limit"},
		}, after: abc},
		{name: "changed outside since viewed", files: abc, steps: []tooltest.Step{
			{Tool: "view", Args: map[string]any{"path": "a.txt"}, Want: "two"},
			{Tool: tooltest.Outside, Args: map[string]any{"path": "a.txt", "content": "one\nTWO\nthree\nfour\n"}},
			{Tool: "str_replace", Args: map[string]any{"path": "a.txt", "old_str": "two", "new_str": "2"}, IsError: true,
				Want: "The text changed since you last viewed it (checkpoints are off, so Boris cannot say by what)."},
			{Tool: "str_replace", Args: map[string]any{"path": "a.txt", "old_str": "four", "new_str": "4"},
				Want: "Note: $DIR/a.txt changed since you last viewed it (checkpoints are off, so Boris cannot say by what)."},
			{Tool: "str_replace", Args: map[string]any{"path": "a.txt", "old_str": "one", "new_str": "1"}, Want: "Edited", Not: "changed since"},
		}, after: map[string]string{"a.txt": "1\nTWO\nthree\n4\n"}},
	})
}

// TestCreateFile: create_file writes whole files, making parents, says
// whether it created or overwrote, keeps an overwritten file's mode, and
// refuses directories, oversized content and paths outside the scope
// without writing anything.
func TestCreateFile(t *testing.T) {
	runScenarios(t, []scenario{
		{name: "create and overwrite", files: map[string]string{"old.txt": "old\n"}, steps: []tooltest.Step{
			{Tool: "create_file", Args: map[string]any{"path": "new/deep/f.txt", "content": "hello"}, Want: "Created $DIR/new/deep/f.txt (5 bytes)."},
			{Tool: "create_file", Args: map[string]any{"path": "$DIR/old.txt", "content": "x"}, Want: "Overwrote $DIR/old.txt (1 byte)."},
			{Tool: "create_file", Args: map[string]any{"path": "empty.txt", "content": ""}, Want: "Created $DIR/empty.txt (0 bytes)."},
		}, after: map[string]string{"new/deep/f.txt": "hello", "old.txt": "x", "empty.txt": ""}},
		{name: "refusals write nothing", opt: func(o *Options) { o.MaxFileSize = 8 }, files: map[string]string{"sub/f": "", ".env": "K=v\n"}, steps: []tooltest.Step{
			{Tool: "create_file", Args: map[string]any{"path": "sub", "content": "x"}, IsError: true, Want: "[IS_DIRECTORY] $DIR/sub is a directory; create_file writes files"},
			{Tool: "create_file", Args: map[string]any{"path": "", "content": "x"}, IsError: true, Want: "[INVALID_INPUT] path is required"},
			{Tool: "create_file", Args: map[string]any{"path": "big.txt", "content": "123456789"}, IsError: true, Want: "[FILE_TOO_LARGE] content is 9 bytes, over the 8 limit"},
			{Tool: "create_file", Args: map[string]any{"path": ".env", "content": "K=w\n"}, IsError: true, Want: "[ACCESS_DENIED]"},
			{Tool: "create_file", Args: map[string]any{"path": "../escaped.txt", "content": "x"}, IsError: true, Want: "[ACCESS_DENIED]"},
			{Tool: "create_file", Args: map[string]any{"path": "/tmp/boris-create-file-escape", "content": "x"}, IsError: true, Want: "[ACCESS_DENIED]"},
		}, after: map[string]string{"big.txt": tooltest.Absent, ".env": "K=v\n", "../escaped.txt": tooltest.Absent, "../../../../../../tmp/boris-create-file-escape": tooltest.Absent}},
	})
}

// TestCreateFileKeepsMode: overwriting an executable leaves it executable.
func TestCreateFileKeepsMode(t *testing.T) {
	d := tooltest.New(t)
	path := filepath.Join(d.Dir(), "run.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	res := tooltest.Call(t, tooltest.Connect(t, Tools(d, defaultOptions())), "create_file", map[string]any{"path": "run.sh", "content": "#!/bin/sh\necho hi\n"})
	if res.IsError {
		t.Fatalf("overwrite run.sh: %q", tooltest.Text(res))
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("run.sh after the overwrite: %v, %v; want mode 0755", fi, err)
	}
}
