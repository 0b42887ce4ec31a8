package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// textResult returns a result of one text block.
func textResult(s string, isErr bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}, IsError: isErr}
}

// TestGenerateTree checks that the counts generateTree returns are what a
// walk of the tree finds, including a last, partial directory.
func TestGenerateTree(t *testing.T) {
	root := filepath.Join(t.TempDir(), "tree")
	got, err := generateTree(root, 250)
	if err != nil {
		t.Fatal(err)
	}
	var walked treeStats
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case path == root:
		case d.IsDir():
			walked.Dirs++
		default:
			walked.Files++
			if ok, _ := filepath.Match("*_test.go", d.Name()); ok {
				walked.Matches++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Leaves p00/q0/r0, r1 and r2 (50 files) under p00 and q0.
	want := treeStats{Files: 250, Dirs: 5, Matches: 25}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("generateTree stats (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, walked); diff != "" {
		t.Errorf("walked tree (-want +got):\n%s", diff)
	}
}

// TestCountTree checks the counts of directory_tree results and the
// rejection of malformed ones.
func TestCountTree(t *testing.T) {
	good := `[{"name": "a", "type": "directory", "children": [
		{"name": "x_test.go", "type": "file"}, {"name": "y.go", "type": "file"},
		{"name": "b", "type": "directory", "children": []}]},
		{"name": "z.go", "type": "file"}]`
	got, err := countTree(good)
	if want := (treeStats{Files: 3, Dirs: 2, Matches: 1}); err != nil || got != want {
		t.Errorf("countTree(good): got %+v, %v; want %+v, nil", got, err, want)
	}
	for name, text := range map[string]string{
		"not JSON":     "a\nb",
		"unknown type": `[{"name": "s", "type": "symlink"}]`,
	} {
		if _, err := countTree(text); err == nil {
			t.Errorf("countTree(%s): got nil, want an error", name)
		}
	}
}

// TestCheckTree checks that a tree listing other counts, or an isError
// result, fails.
func TestCheckTree(t *testing.T) {
	text := `[{"name": "d", "type": "directory", "children": [{"name": "f_test.go", "type": "file"}]}]`
	if err := checkTree(textResult(text, false), nil, treeStats{Files: 1, Dirs: 1, Matches: 1}); err != nil {
		t.Errorf("matching tree: got %v, want nil", err)
	}
	if err := checkTree(textResult(text, false), nil, treeStats{Files: 2, Dirs: 1, Matches: 1}); err == nil {
		t.Error("tree missing a file: got nil, want an error")
	}
	if err := checkTree(textResult(text, true), nil, treeStats{Files: 1, Dirs: 1, Matches: 1}); err == nil {
		t.Error("isError result: got nil, want an error")
	}
}

// TestCheckSearch checks counts, paths and the peer's no-match text.
func TestCheckSearch(t *testing.T) {
	tests := []struct {
		name, text string
		want       int
		ok         bool
	}{
		{"two matches", "/t/a/x_test.go\n/t/b/y_test.go", 2, true},
		{"one short", "/t/a/x_test.go", 2, false},
		{"not a test file", "/t/a/x.go\n/t/b/y_test.go", 2, false},
		{"outside the tree", "/u/a/x_test.go", 1, false},
		{"no matches", "No matches found", 0, true},
		{"no matches, some wanted", "No matches found", 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkSearch(textResult(tt.text, false), nil, "/t", tt.want)
			if (err == nil) != tt.ok {
				t.Errorf("checkSearch: got %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

// TestCheckEdit checks that only a fenced diff removing the old line and
// adding the new one passes.
func TestCheckEdit(t *testing.T) {
	ef := editFile{OldLine: "\told()", NewLine: "\tnew()"}
	good := "```diff\nIndex: f\n===\n--- f\toriginal\n+++ f\tmodified\n@@ -1,3 +1,3 @@\n a\n-\told()\n+\tnew()\n b\n```\n\n"
	if err := checkEdit(textResult(good, false), nil, ef); err != nil {
		t.Errorf("good diff: got %v, want nil", err)
	}
	for name, res := range map[string]*mcp.CallToolResult{
		"isError":     textResult(good, true),
		"empty":       textResult("", false),
		"no new line": textResult(strings.Replace(good, "+\tnew()", "+\tother()", 1), false),
		"unfenced":    textResult(strings.TrimPrefix(good, "```diff"), false),
	} {
		if err := checkEdit(res, nil, ef); err == nil {
			t.Errorf("%s: got nil, want an error", name)
		}
	}
}

// TestWriteEditFile checks that the edit's old line is in the file once,
// at its middle, and the new one is not.
func TestWriteEditFile(t *testing.T) {
	ef, err := writeEditFile(filepath.Join(t.TempDir(), "edit.go"), 40)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(ef.Path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 40 || lines[19] != ef.OldLine || strings.Count(string(data), ef.OldLine) != 1 {
		t.Errorf("edit file: %d lines, line 20 %q; want 40 lines, line 20 the old line %q once", len(lines), lines[19], ef.OldLine)
	}
	if strings.Contains(string(data), ef.NewLine) || string(data) != string(ef.Data) {
		t.Errorf("edit file holds the new line or differs from Data")
	}
}
