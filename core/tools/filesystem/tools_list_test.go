package filesystem

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mjkoo/boris/core/toolkit/tooltest"
)

// listed is a small tree to list: a file, a directory with a file in it,
// a denied file and a link to the file.
var listed = map[string]string{"b.txt": "12345", "sub/inner.go": "package sub\n", "sub/deep/x.go": "", ".env": "K=v\n", "node/skip.js": ""}

// linkB links "link" to b.txt and "out" to a file outside the allowed
// directory.
func linkB(t *testing.T, dir string) {
	if err := os.Symlink("b.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/hostname", filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
}

// TestListTools: list_directory, list_directory_with_sizes,
// directory_tree, search_files and list_allowed_directories answer as
// server-filesystem does, showing nothing the policy refuses.
func TestListTools(t *testing.T) {
	runScenarios(t, []scenario{
		{name: "list_directory", files: listed, setup: linkB, steps: []tooltest.Step{
			{Tool: "list_directory", Args: map[string]any{"path": "."}, Want: "[FILE] b.txt\n[FILE] link\n[DIR] node\n[FILE] out\n[DIR] sub"},
			{Tool: "list_directory", Args: map[string]any{"path": "sub"}, Want: "[DIR] deep\n[FILE] inner.go"},
			{Tool: "list_directory", Args: map[string]any{"path": "b.txt"}, IsError: true, Want: "[INVALID_INPUT] $DIR/b.txt is not a directory"},
			{Tool: "list_directory", Args: map[string]any{"path": "/etc"}, IsError: true, Want: "[ACCESS_DENIED]"},
		}},
		{name: "list_directory_with_sizes", files: listed, setup: linkB, steps: []tooltest.Step{
			{Tool: "list_directory_with_sizes", Args: map[string]any{"path": "."}, Want: "[FILE] b.txt                                 5 B\n[FILE] link                                  5 B\n[DIR] node                           \n[FILE] out                                   0 B\n[DIR] sub                            \n\nTotal: 3 files, 2 directories\nCombined size: 10 B"},
			{Tool: "list_directory_with_sizes", Args: map[string]any{"path": ".", "sortBy": "size"}, Want: "[FILE] b.txt                                 5 B\n[FILE] link                                  5 B\n[FILE] out                                   0 B\n"},
			{Tool: "list_directory_with_sizes", Args: map[string]any{"path": ".", "sortBy": "date"}, IsError: true, Want: `[INVALID_INPUT] sortBy "date": want "name" or "size"`},
			{Tool: "list_directory_with_sizes", Args: map[string]any{"path": "b.txt"}, IsError: true, Want: "[INVALID_INPUT] $DIR/b.txt is not a directory"},
			{Tool: "list_directory_with_sizes", Args: map[string]any{"path": "../"}, IsError: true, Want: "[ACCESS_DENIED]"},
		}},
		{name: "directory_tree", files: listed, steps: []tooltest.Step{
			{Tool: "directory_tree", Args: map[string]any{"path": "sub"}, Want: `[
  {
    "name": "deep",
    "type": "directory",
    "children": [
      {
        "name": "x.go",
        "type": "file"
      }
    ]
  },
  {
    "name": "inner.go",
    "type": "file"
  }
]`},
			{Tool: "directory_tree", Args: map[string]any{"path": "sub", "excludePatterns": []string{"deep"}}, Want: `[
  {
    "name": "inner.go",
    "type": "file"
  }
]`},
			{Tool: "directory_tree", Args: map[string]any{"path": "node", "excludePatterns": []string{"*.js"}}, Want: "[]"},
			{Tool: "directory_tree", Args: map[string]any{"path": "b.txt"}, IsError: true, Want: "[INVALID_INPUT] $DIR/b.txt is not a directory"},
			{Tool: "directory_tree", Args: map[string]any{"path": "/"}, IsError: true, Want: "[ACCESS_DENIED]"},
		}},
		{name: "search_files", files: listed, setup: linkB, steps: []tooltest.Step{
			{Tool: "search_files", Args: map[string]any{"path": ".", "pattern": "**/*.go"}, Want: "$DIR/sub/deep/x.go\n$DIR/sub/inner.go"},
			{Tool: "search_files", Args: map[string]any{"path": ".", "pattern": "**/*.go", "excludePatterns": []string{"sub/deep"}}, Want: "$DIR/sub/inner.go", Not: "x.go"},
			{Tool: "search_files", Args: map[string]any{"path": ".", "pattern": "**/.env"}, Want: "No matches found"},
			{Tool: "search_files", Args: map[string]any{"path": ".", "pattern": "out"}, Want: "No matches found"},
			{Tool: "search_files", Args: map[string]any{"path": ".", "pattern": "*"}, Want: "$DIR/link\n"},
			{Tool: "search_files", Args: map[string]any{"path": "b.txt", "pattern": "*"}, IsError: true, Want: "[INVALID_INPUT] $DIR/b.txt is not a directory"},
			{Tool: "search_files", Args: map[string]any{"path": "/etc", "pattern": "*"}, IsError: true, Want: "[ACCESS_DENIED]"},
		}},
		{name: "list_allowed_directories", steps: []tooltest.Step{
			{Tool: "list_allowed_directories", Args: map[string]any{}, Want: "Allowed directories:\n$DIR"},
		}},
	})
}
