package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/mjkoo/boris/test/bench/benchkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// resultText returns the text of a successful call, or an error for a
// failed call or an isError result.
func resultText(res *mcp.CallToolResult, err error) (string, error) {
	if err != nil {
		return "", err
	}
	text := benchkit.ResultText(res)
	if res.IsError {
		return "", fmt.Errorf("isError result: %s", benchkit.Clip(text))
	}
	return text, nil
}

// treeEntry is one entry of directory_tree's JSON: server-filesystem gives
// directories a children array and files none.
type treeEntry struct {
	Name     string      `json:"name"`
	Type     string      `json:"type"`
	Children []treeEntry `json:"children"`
}

// countTree counts the files and directories of a directory_tree result.
func countTree(text string) (treeStats, error) {
	var entries []treeEntry
	if err := json.Unmarshal([]byte(text), &entries); err != nil {
		return treeStats{}, fmt.Errorf("directory_tree result is not a JSON array of entries: %w; got %q", err, benchkit.Clip(text))
	}
	var st treeStats
	var walk func([]treeEntry) error
	walk = func(es []treeEntry) error {
		for _, e := range es {
			switch e.Type {
			case "file":
				st.Files++
				if strings.HasSuffix(e.Name, "_test.go") {
					st.Matches++
				}
			case "directory":
				st.Dirs++
				if err := walk(e.Children); err != nil {
					return err
				}
			default:
				return fmt.Errorf("directory_tree entry %q has type %q, want file or directory", e.Name, e.Type)
			}
		}
		return nil
	}
	return st, walk(entries)
}

// checkTree checks that a directory_tree result lists exactly the files
// and directories the tree holds.
func checkTree(res *mcp.CallToolResult, err error, want treeStats) error {
	text, err := resultText(res, err)
	if err != nil {
		return err
	}
	got, err := countTree(text)
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("directory_tree lists %d files (%d test files) and %d directories, the tree holds %d (%d) and %d",
			got.Files, got.Matches, got.Dirs, want.Files, want.Matches, want.Dirs)
	}
	return nil
}

// checkSearch checks that a search_files result is one path a line, each
// a test file under tree, as many as the tree holds.
func checkSearch(res *mcp.CallToolResult, err error, tree string, want int) error {
	text, err := resultText(res, err)
	if err != nil {
		return err
	}
	paths := strings.Split(text, "\n")
	if text == "No matches found" {
		paths = nil
	}
	for _, p := range paths {
		if !strings.HasPrefix(p, tree+"/") || !strings.HasSuffix(p, "_test.go") {
			return fmt.Errorf("search_files %q found %q, not a test file under %s", searchPattern, p, tree)
		}
	}
	if len(paths) != want {
		return fmt.Errorf("search_files %q found %d paths, the tree holds %d test files", searchPattern, len(paths), want)
	}
	return nil
}

// checkEdit checks that an edit_file dry run answers with a fenced
// unified diff that removes the old line and adds the new one.
func checkEdit(res *mcp.CallToolResult, err error, ef editFile) error {
	text, err := resultText(res, err)
	if err != nil {
		return err
	}
	for _, want := range []string{"```diff\n", "\n@@ ", "\n-" + ef.OldLine + "\n", "\n+" + ef.NewLine + "\n"} {
		if !strings.Contains(text, want) {
			return fmt.Errorf("edit_file dry run lacks %q; got %q", want, benchkit.Clip(text))
		}
	}
	return nil
}

// checkUnchanged checks that no dry run wrote the file it edited.
func checkUnchanged(servers []*server) error {
	for _, s := range servers {
		data, err := os.ReadFile(s.fx.Edit.Path)
		if err != nil {
			return fmt.Errorf("%s: check the edited file: %w", s.name, err)
		}
		if !bytes.Equal(data, s.fx.Edit.Data) {
			return fmt.Errorf("%s: edit_file with dryRun changed %s", s.name, s.fx.Edit.Path)
		}
	}
	return nil
}
