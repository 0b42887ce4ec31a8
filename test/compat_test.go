package test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCompatToolList checks that --anthropic-compat swaps the three file
// tools for str_replace_editor with a command enum.
func TestCompatToolList(t *testing.T) {
	c := startCore(t, "--workdir", realTempDir(t), "--anthropic-compat")
	res, err := c.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Name == "str_replace_editor" {
			raw, _ := json.Marshal(tool.InputSchema)
			if !strings.Contains(string(raw), `"enum":["view","create","str_replace","insert"]`) {
				t.Errorf("str_replace_editor schema lacks the command enum: %s", raw)
			}
		}
	}
	for _, gone := range []string{"view", "str_replace", "create_file"} {
		if slices.Contains(names, gone) {
			t.Errorf("tools %v: want no %s in compat mode", names, gone)
		}
	}
	if !slices.Contains(names, "str_replace_editor") || !slices.Contains(names, "bash") {
		t.Errorf("tools %v: want str_replace_editor and bash", names)
	}
}

// TestCompatSameEffects runs the same edits through the split tools on one
// core and through str_replace_editor on another, and compares the files
// and the results byte for byte.
func TestCompatSameEffects(t *testing.T) {
	splitDir, compatDir := realTempDir(t), realTempDir(t)
	split := startCore(t, "--workdir", splitDir)
	compat := startCore(t, "--workdir", compatDir, "--anthropic-compat")
	fixture := "first\r\nsecond\r\nthird\r\nsecond\r\n"
	steps := []struct {
		name          string
		splitTool     string
		splitArgs     map[string]any
		compatArgs    map[string]any
		wantErrPrefix string
	}{
		{"create", "create_file", map[string]any{"path": "d/f.txt", "content": fixture},
			map[string]any{"command": "create", "path": "d/f.txt", "file_text": fixture}, ""},
		{"view", "view", map[string]any{"path": "d/f.txt"},
			map[string]any{"command": "view", "path": "d/f.txt"}, ""},
		{"view range", "view", map[string]any{"path": "d/f.txt", "view_range": []int{2, 3}},
			map[string]any{"command": "view", "path": "d/f.txt", "view_range": []int{2, 3}}, ""},
		{"ambiguous", "str_replace", map[string]any{"path": "d/f.txt", "old_str": "second", "new_str": "2nd"},
			map[string]any{"command": "str_replace", "path": "d/f.txt", "old_str": "second", "new_str": "2nd"}, "[AMBIGUOUS_MATCH]"},
		{"replace all", "str_replace", map[string]any{"path": "d/f.txt", "old_str": "second", "new_str": "2nd", "replace_all": true},
			map[string]any{"command": "str_replace", "path": "d/f.txt", "old_str": "second", "new_str": "2nd", "replace_all": true}, ""},
		{"replace one", "str_replace", map[string]any{"path": "d/f.txt", "old_str": "first\nthird", "new_str": "1st"},
			map[string]any{"command": "str_replace", "path": "d/f.txt", "old_str": "first\nthird", "new_str": "1st"}, "[NOT_FOUND_IN_FILE]"},
		{"delete", "str_replace", map[string]any{"path": "d/f.txt", "old_str": "third\r\n"},
			map[string]any{"command": "str_replace", "path": "d/f.txt", "old_str": "third\r\n"}, ""},
		{"directory", "view", map[string]any{"path": "."},
			map[string]any{"command": "view", "path": "."}, ""},
		{"missing", "view", map[string]any{"path": "nope"},
			map[string]any{"command": "view", "path": "nope"}, "[PATH_NOT_FOUND]"},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			a := split.call(s.splitTool, s.splitArgs)
			b := compat.call("str_replace_editor", s.compatArgs)
			at := strings.ReplaceAll(text(a), splitDir, "$DIR")
			bt := strings.ReplaceAll(text(b), compatDir, "$DIR")
			if at != bt || a.IsError != b.IsError {
				t.Errorf("split %s: %v %q\ncompat:   %v %q", s.splitTool, a.IsError, at, b.IsError, bt)
			}
			if s.wantErrPrefix != "" && !strings.HasPrefix(bt, s.wantErrPrefix) {
				t.Errorf("got %q, want %s", bt, s.wantErrPrefix)
			}
			if x, y := readFile(t, filepath.Join(splitDir, "d/f.txt")), readFile(t, filepath.Join(compatDir, "d/f.txt")); x != y {
				t.Errorf("files differ: split %q, compat %q", x, y)
			}
		})
	}
}

func TestCompatInsert(t *testing.T) {
	dir := realTempDir(t)
	c := startCore(t, "--workdir", dir, "--anthropic-compat")
	path := filepath.Join(dir, "f.txt")
	writeFile(t, path, "a\r\nb")
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"command": "insert", "path": "f.txt", "insert_line": 0, "new_str": "top"}, "top\r\na\r\nb"},
		{map[string]any{"command": "insert", "path": "f.txt", "insert_line": 2, "insert_text": "mid1\nmid2\n"}, "top\r\na\r\nmid1\r\nmid2\r\nb"},
		{map[string]any{"command": "insert", "path": "f.txt", "insert_line": 5, "insert_text": "end"}, "top\r\na\r\nmid1\r\nmid2\r\nb\r\nend"},
	}
	for _, s := range steps {
		got := c.ok("str_replace_editor", s.args)
		if !strings.HasPrefix(got, "Inserted ") {
			t.Errorf("got %q, want Inserted ...", got)
		}
		if got := readFile(t, path); got != s.want {
			t.Errorf("after %v: got %q, want %q", s.args, got, s.want)
		}
	}
	assertMode(t, path, 0o640)

	errs := []struct {
		code string
		args map[string]any
		want string
	}{
		{"INVALID_INPUT", map[string]any{"command": "insert", "path": "f.txt", "insert_line": 99, "new_str": "x"}, "has 6 lines"},
		{"INVALID_INPUT", map[string]any{"command": "insert", "path": "f.txt", "new_str": "x"}, "insert_line"},
		{"INVALID_INPUT", map[string]any{"command": "insert", "path": "f.txt", "insert_line": 1}, "new_str or insert_text"},
		{"INVALID_INPUT", map[string]any{"command": "insert", "path": "f.txt", "insert_line": 1, "new_str": "a", "insert_text": "b"}, "different"},
		{"INVALID_INPUT", map[string]any{"command": "insert", "path": "f.txt", "insert_line": -1, "new_str": "x"}, "0 or more"},
		{"INVALID_INPUT", map[string]any{"command": "undo_edit", "path": "f.txt"}, "command"},
		{"INVALID_INPUT", map[string]any{"command": "create", "path": "g.txt"}, "file_text"},
		{"INVALID_INPUT", map[string]any{"command": "str_replace", "path": "f.txt", "new_str": "x"}, "old_str"},
		{"INVALID_INPUT", map[string]any{"command": "view", "path": "f.txt", "file_text": "x"}, "file_text does not apply"},
		{"PATH_NOT_FOUND", map[string]any{"command": "insert", "path": "nope.txt", "insert_line": 0, "new_str": "x"}, "nope.txt"},
	}
	for _, e := range errs {
		if got := c.fails(e.code, "str_replace_editor", e.args); !strings.Contains(got, e.want) {
			t.Errorf("%v: got %q, want it to mention %q", e.args, got, e.want)
		}
	}
	if got := readFile(t, path); got != "top\r\na\r\nmid1\r\nmid2\r\nb\r\nend" {
		t.Errorf("refused calls changed the file: %q", got)
	}
}

// TestCompatGrep checks that Claude Code's grep spellings give the same
// results as grep's own parameters.
func TestCompatGrep(t *testing.T) {
	mk := func() string {
		dir := realTempDir(t)
		writeFile(t, filepath.Join(dir, "a.go"), "package a\n\nfunc Hello() {}\nfunc hello2() {}\n")
		writeFile(t, filepath.Join(dir, "b.txt"), "HELLO there\n")
		// grep lists files newest first: the same order in both trees,
		// whatever the clock's granularity.
		for i, name := range []string{"a.go", "b.txt"} {
			at := time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC)
			if err := os.Chtimes(filepath.Join(dir, name), at, at); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	splitDir, compatDir := mk(), mk()
	split := startCore(t, "--workdir", splitDir)
	compat := startCore(t, "--workdir", compatDir, "--anthropic-compat")
	cases := []struct {
		name        string
		own, claude map[string]any
	}{
		{"glob and -i", map[string]any{"pattern": "hello", "include": "*.go", "case_insensitive": true, "output_mode": "content"},
			map[string]any{"pattern": "hello", "glob": "*.go", "-i": true, "output_mode": "content"}},
		{"context and -n", map[string]any{"pattern": "Hello", "output_mode": "content", "context_before": 1, "context_after": 1, "line_numbers": false},
			map[string]any{"pattern": "Hello", "output_mode": "content", "-B": 1, "-A": 1, "-n": false}},
		{"-C", map[string]any{"pattern": "hello2", "output_mode": "content", "context": 2},
			map[string]any{"pattern": "hello2", "output_mode": "content", "-C": 2}},
		{"count", map[string]any{"pattern": "(?i)hello", "output_mode": "count"},
			map[string]any{"pattern": "(?i)hello", "output_mode": "count"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := strings.ReplaceAll(split.ok("grep", c.own), splitDir, "$DIR")
			b := strings.ReplaceAll(compat.ok("grep", c.claude), compatDir, "$DIR")
			if a != b {
				t.Errorf("own spelling:\n%s\nClaude Code spelling:\n%s", a, b)
			}
			if !strings.Contains(a, "$DIR/") {
				t.Errorf("got %q, want matches", a)
			}
		})
	}
	// Each mode refuses the other's spelling rather than ignoring it.
	compat.fails("INVALID_INPUT", "grep", map[string]any{"pattern": "x", "case_insensitive": true})
	split.fails("INVALID_INPUT", "grep", map[string]any{"pattern": "x", "-i": true})
}

// TestReadOnly checks --read-only in both schema modes: no writing tool is
// offered, and str_replace_editor refuses every command but view.
func TestReadOnly(t *testing.T) {
	dir := realTempDir(t)
	writeFile(t, filepath.Join(dir, "f.txt"), "keep\n")
	split := startCore(t, "--workdir", dir, "--read-only")
	res, err := split.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name == "str_replace" || tool.Name == "create_file" {
			t.Errorf("--read-only lists %s", tool.Name)
		}
	}
	split.ok("view", map[string]any{"path": "f.txt"})

	compat := startCore(t, "--workdir", dir, "--read-only", "--anthropic-compat")
	res, err = compat.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name == "str_replace_editor" && (tool.Annotations == nil || !tool.Annotations.ReadOnlyHint) {
			t.Errorf("read-only str_replace_editor: annotations %+v, want readOnlyHint", tool.Annotations)
		}
	}
	compat.ok("str_replace_editor", map[string]any{"command": "view", "path": "f.txt"})
	for _, args := range []map[string]any{
		{"command": "create", "path": "g.txt", "file_text": "x"},
		{"command": "str_replace", "path": "f.txt", "old_str": "keep", "new_str": "lose"},
		{"command": "insert", "path": "f.txt", "insert_line": 0, "new_str": "x"},
	} {
		compat.fails("ACCESS_DENIED", "str_replace_editor", args)
	}
	if got := readFile(t, filepath.Join(dir, "f.txt")); got != "keep\n" {
		t.Errorf("read-only core changed the file: %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "g.txt")); !os.IsNotExist(err) {
		t.Errorf("read-only core created a file: %v", err)
	}
}
