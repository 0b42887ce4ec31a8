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

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCompatVersionSchemas: --anthropic-compat picks the editor tool's name,
// commands and parameters by version; the bare flag and
// BORIS_ANTHROPIC_COMPAT=true keep str_replace_editor without undo_edit.
func TestCompatVersionSchemas(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		env      []string
		tool     string
		commands []string
		maxChars bool
	}{
		{"bare flag", []string{"--anthropic-compat"}, nil, "str_replace_editor", []string{"view", "create", "str_replace", "insert"}, false},
		{"env true", nil, []string{"BORIS_ANTHROPIC_COMPAT=true"}, "str_replace_editor", []string{"view", "create", "str_replace", "insert"}, false},
		{"20250124", []string{"--anthropic-compat=20250124"}, nil, "str_replace_editor", []string{"view", "create", "str_replace", "insert", "undo_edit"}, false},
		{"20250728", []string{"--anthropic-compat=20250728"}, nil, "str_replace_based_edit_tool", []string{"view", "create", "str_replace", "insert"}, true},
		{"env 20250728", nil, []string{"BORIS_ANTHROPIC_COMPAT=20250728"}, "str_replace_based_edit_tool", []string{"view", "create", "str_replace", "insert"}, true},
		{"tool type spelling", []string{"--anthropic-compat=text_editor_20250124"}, nil, "str_replace_editor", []string{"view", "create", "str_replace", "insert", "undo_edit"}, false},
		{"flag beats env", []string{"--anthropic-compat=20250124"}, []string{"BORIS_ANTHROPIC_COMPAT=20250728"}, "str_replace_editor", []string{"view", "create", "str_replace", "insert", "undo_edit"}, false},
		{"read-only 20250124", []string{"--anthropic-compat=20250124", "--read-only"}, nil, "str_replace_editor", []string{"view"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startCoreWith(t, coreOptions{args: append([]string{"--workdir", realTempDir(t)}, tc.args...), env: tc.env})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res, err := c.session.ListTools(ctx, &mcp.ListToolsParams{})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			var editor *mcp.Tool
			for _, tool := range res.Tools {
				names = append(names, tool.Name)
				if tool.Name == tc.tool {
					editor = tool
				}
			}
			if editor == nil {
				t.Fatalf("tools %v: want %s", names, tc.tool)
			}
			for _, other := range []string{"str_replace_editor", "str_replace_based_edit_tool", "view", "str_replace", "create_file"} {
				if other != tc.tool && slices.Contains(names, other) {
					t.Errorf("tools %v: %s is listed beside %s", names, other, tc.tool)
				}
			}
			var schema struct {
				Properties map[string]struct {
					Enum []string `json:"enum"`
				} `json:"properties"`
			}
			raw, _ := json.Marshal(editor.InputSchema)
			if err := json.Unmarshal(raw, &schema); err != nil {
				t.Fatal(err)
			}
			if got := schema.Properties["command"].Enum; !slices.Equal(got, tc.commands) {
				t.Errorf("command enum %v, want %v", got, tc.commands)
			}
			if _, ok := schema.Properties["max_characters"]; ok != tc.maxChars {
				t.Errorf("max_characters in the schema: %v, want %v", ok, tc.maxChars)
			}
		})
	}
}

// TestCompatVersionFlagErrors: an unknown version, or a version given as a
// separate argument, stops boris with status 2 and one line saying what to
// write.
func TestCompatVersionFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"unknown version", nil, []string{"--anthropic-compat=20241022"}, `invalid value "20241022" for --anthropic-compat: want true, false, 20250124 or 20250728`},
		{"unknown version in env", []string{"BORIS_ANTHROPIC_COMPAT=latest"}, nil, `invalid value "latest" for BORIS_ANTHROPIC_COMPAT: want true, false, 20250124 or 20250728`},
		{"version without =", nil, []string{"--anthropic-compat", "20250728"}, `write --anthropic-compat=20250728 (with =)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runBoris(t, tc.env, tc.args...)
			if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Errorf("exit %d, stderr %q; want 2 and one line containing %q", code, stderr, tc.want)
			}
		})
	}
}

// editorCase is one call of the editor tool and what it must answer: an
// error code ("" for success) and a substring of the text.
type editorCase struct {
	name string
	args map[string]any
	code string
	want string
}

// TestCompatVersionCommands runs each version's commands and documented
// error cases through the binary. Each case runs on a fresh tree holding
// f.txt ("a\nb\na\n"), dir/ and a denied secret/.
func TestCompatVersionCommands(t *testing.T) {
	common := []editorCase{
		{"view", map[string]any{"command": "view", "path": "f.txt"}, "", "     1\ta\n     2\tb"},
		{"view range", map[string]any{"command": "view", "path": "f.txt", "view_range": []int{2, -1}}, "", "     2\tb"},
		{"view directory", map[string]any{"command": "view", "path": "dir"}, "", "inner.txt"},
		{"str_replace", map[string]any{"command": "str_replace", "path": "f.txt", "old_str": "b", "new_str": "B"}, "", "B"},
		{"str_replace several matches", map[string]any{"command": "str_replace", "path": "f.txt", "old_str": "a", "new_str": "y"}, "AMBIGUOUS_MATCH", "1, 3"},
		{"insert at the beginning", map[string]any{"command": "insert", "path": "f.txt", "insert_line": 0, "insert_text": "top"}, "", "Inserted"},
		{"insert after the last line", map[string]any{"command": "insert", "path": "f.txt", "insert_line": 3, "new_str": "end"}, "", "Inserted"},
		{"insert past the end", map[string]any{"command": "insert", "path": "f.txt", "insert_line": 9, "new_str": "x"}, "INVALID_INPUT", "has 3 lines"},
		{"insert without insert_line", map[string]any{"command": "insert", "path": "f.txt", "new_str": "x"}, "INVALID_INPUT", "insert_line"},
		{"create without file_text", map[string]any{"command": "create", "path": "new.txt"}, "INVALID_INPUT", "file_text"},
		{"create", map[string]any{"command": "create", "path": "sub/new.txt", "file_text": "hi\n"}, "", ""},
		{"denied path", map[string]any{"command": "view", "path": "secret/missing.txt"}, "ACCESS_DENIED", ""},
		{"parameter of another command", map[string]any{"command": "view", "path": "f.txt", "old_str": "a"}, "INVALID_INPUT", "old_str does not apply"},
	}
	documented := []editorCase{
		{"view missing path", map[string]any{"command": "view", "path": "nope.txt"}, "PATH_NOT_FOUND", "The path nope.txt does not exist. Please provide a valid path."},
		{"str_replace missing path", map[string]any{"command": "str_replace", "path": "nope.txt", "old_str": "a"}, "PATH_NOT_FOUND", "does not exist"},
		{"create existing file", map[string]any{"command": "create", "path": "f.txt", "file_text": "x"}, "INVALID_INPUT", "File already exists at: f.txt. Cannot overwrite files using command `create`."},
		{"str_replace no match", map[string]any{"command": "str_replace", "path": "f.txt", "old_str": "zzz", "new_str": "y"}, "NOT_FOUND_IN_FILE", "[NOT_FOUND_IN_FILE] Error: No match found for replacement. Please check your text and try again.\n"},
		{"str_replace several matches, documented", map[string]any{"command": "str_replace", "path": "f.txt", "old_str": "a", "new_str": "y"}, "AMBIGUOUS_MATCH", "[AMBIGUOUS_MATCH] Error: Found 2 matches for replacement text. Please provide more context to make a unique match. old_str occurs at lines 1, 3 of"},
		{"str_replace on a directory", map[string]any{"command": "str_replace", "path": "dir", "old_str": "a"}, "IS_DIRECTORY", "only the `view` command can be used on directories"},
		{"view_range on a directory", map[string]any{"command": "view", "path": "dir", "view_range": []int{1, 2}}, "INVALID_INPUT", "The `view_range` parameter is not allowed when `path` points to a directory."},
	}
	for _, tc := range []struct {
		flag  string
		tool  string
		cases []editorCase
	}{
		{"--anthropic-compat", "str_replace_editor", append(slices.Clone(common),
			editorCase{"str_replace no match", map[string]any{"command": "str_replace", "path": "f.txt", "old_str": "zzz", "new_str": "y"}, "NOT_FOUND_IN_FILE", "old_str was not found"},
			editorCase{"create overwrites (the bare flag's first meaning)", map[string]any{"command": "create", "path": "f.txt", "file_text": "x"}, "", ""},
			editorCase{"undo_edit is not a command", map[string]any{"command": "undo_edit", "path": "f.txt"}, "INVALID_INPUT", `unknown command "undo_edit"`},
			editorCase{"max_characters is not a parameter", map[string]any{"command": "view", "path": "f.txt", "max_characters": 3}, "INVALID_INPUT", "max_characters belongs to text_editor_20250728"},
		)},
		{"--anthropic-compat=20250124", "str_replace_editor", append(slices.Concat(common, documented),
			editorCase{"undo_edit without history", map[string]any{"command": "undo_edit", "path": "f.txt"}, "INVALID_INPUT", "No edit history found for f.txt."},
			editorCase{"undo_edit of a missing path", map[string]any{"command": "undo_edit", "path": "nope.txt"}, "PATH_NOT_FOUND", "does not exist"},
			editorCase{"undo_edit takes only path", map[string]any{"command": "undo_edit", "path": "f.txt", "new_str": "x"}, "INVALID_INPUT", "new_str does not apply"},
			editorCase{"max_characters is not a parameter", map[string]any{"command": "view", "path": "f.txt", "max_characters": 3}, "INVALID_INPUT", "max_characters belongs to text_editor_20250728"},
		)},
		{"--anthropic-compat=20250728", "str_replace_based_edit_tool", append(slices.Concat(common, documented),
			editorCase{"undo_edit is not a command", map[string]any{"command": "undo_edit", "path": "f.txt"}, "INVALID_INPUT", "Unrecognized command undo_edit. The allowed commands for the str_replace_based_edit_tool tool are: view, create, str_replace, insert"},
			editorCase{"max_characters", map[string]any{"command": "view", "path": "f.txt", "max_characters": 9}, "", "response clipped: 9 of"},
			editorCase{"max_characters larger than the file", map[string]any{"command": "view", "path": "f.txt", "max_characters": 1000}, "", "     3\ta"},
			editorCase{"max_characters zero", map[string]any{"command": "view", "path": "f.txt", "max_characters": 0}, "INVALID_INPUT", "max_characters must be 1 or more"},
		)},
	} {
		t.Run(tc.flag, func(t *testing.T) {
			for _, ec := range tc.cases {
				t.Run(ec.name, func(t *testing.T) {
					dir := realTempDir(t)
					writeFile(t, filepath.Join(dir, "f.txt"), "a\nb\na\n")
					writeFile(t, filepath.Join(dir, "dir", "inner.txt"), "inner\n")
					writeFile(t, filepath.Join(dir, "secret", "key"), "k")
					c, _ := startCheckpointCore(t, dir, tc.flag, "--deny-dir", filepath.Join(dir, "secret"))
					res := c.call(tc.tool, ec.args)
					got := text(res)
					switch {
					case ec.code == "" && res.IsError:
						t.Fatalf("got error %q, want success", got)
					case ec.code != "" && (!res.IsError || !strings.HasPrefix(got, "["+ec.code+"] ")):
						t.Fatalf("got isError=%v %q, want an error starting with [%s]", res.IsError, got, ec.code)
					case !strings.Contains(got, ec.want):
						t.Errorf("got %q, want it to contain %q", got, ec.want)
					}
					if ec.code != "" {
						if got := readFile(t, filepath.Join(dir, "f.txt")); got != "a\nb\na\n" {
							t.Errorf("a refused call changed f.txt to %q", got)
						}
					}
				})
			}
		})
	}
}

// TestCompatUndoEdit: text_editor_20250124's undo_edit reverts the last
// edit to a file, one more on each call, through Boris's checkpoints: a
// created file goes away, an edit made outside Boris is never silently
// overwritten, and each undo shows in history.
func TestCompatUndoEdit(t *testing.T) {
	dir := realTempDir(t)
	writeFile(t, filepath.Join(dir, "other.txt"), "other\n")
	c, _ := startCheckpointCore(t, dir, "--anthropic-compat=20250124")
	f := filepath.Join(dir, "f.txt")
	ed := func(args map[string]any) string { return c.ok("str_replace_editor", args) }
	undo := func() string { return ed(map[string]any{"command": "undo_edit", "path": "f.txt"}) }

	ed(map[string]any{"command": "create", "path": "f.txt", "file_text": "one\ntwo\n"})
	ed(map[string]any{"command": "str_replace", "path": "f.txt", "old_str": "two", "new_str": "TWO"})
	ed(map[string]any{"command": "create", "path": "other2.txt", "file_text": "x"}) // another file: not f.txt's edit
	ed(map[string]any{"command": "insert", "path": "f.txt", "insert_line": 0, "insert_text": "zero"})
	if got := readFile(t, f); got != "zero\none\nTWO\n" {
		t.Fatalf("after the edits: %q", got)
	}

	if got := undo(); !strings.Contains(got, "Last edit to f.txt undone successfully") {
		t.Errorf("undo_edit: got %q", got)
	}
	if got := readFile(t, f); got != "one\nTWO\n" {
		t.Errorf("after one undo_edit: %q, want the insert reverted", got)
	}
	undo()
	if got := readFile(t, f); got != "one\ntwo\n" {
		t.Errorf("after two: %q, want the str_replace reverted", got)
	}
	undo()
	if _, err := os.Stat(f); !os.IsNotExist(err) {
		t.Errorf("after three: f.txt %v, want it gone (its creation reverted)", err)
	}
	if readFile(t, filepath.Join(dir, "other2.txt")) != "x" {
		t.Error("undo_edit of f.txt touched other2.txt")
	}
	if got := c.fails("PATH_NOT_FOUND", "str_replace_editor", map[string]any{"command": "undo_edit", "path": "f.txt"}); !strings.Contains(got, "does not exist") {
		t.Errorf("undo_edit of a removed file: %q", got)
	}
	// Every undo is a checkpoint: the history tool shows them.
	if got := c.ok("history", map[string]any{"path": "f.txt"}); strings.Count(got, ": undo cp_") != 3 {
		t.Errorf("history of f.txt: %q, want three undos", got)
	}

	// A change made outside Boris after the agent's last edit is not
	// silently overwritten.
	ed(map[string]any{"command": "create", "path": "g.txt", "file_text": "agent\n"})
	// history waits for the create's checkpoint: the outside write must come after it.
	c.ok("history", map[string]any{"limit": 1})
	writeFile(t, filepath.Join(dir, "g.txt"), "someone else\n")
	if got := c.fails("CONFLICT", "str_replace_editor", map[string]any{"command": "undo_edit", "path": "g.txt"}); !strings.Contains(got, "outside Boris") {
		t.Errorf("undo_edit over an outside change: %q", got)
	}
	if got := readFile(t, filepath.Join(dir, "g.txt")); got != "someone else\n" {
		t.Errorf("the refused undo_edit changed g.txt to %q", got)
	}
}

// TestCompatUndoEditRefusals: undo_edit writes, so --read-only refuses it;
// without checkpoints it says why it cannot work.
func TestCompatUndoEditRefusals(t *testing.T) {
	dir := realTempDir(t)
	writeFile(t, filepath.Join(dir, "f.txt"), "a\n")
	for _, tc := range []struct {
		name string
		args []string
		code string
		want string
	}{
		{"read-only", []string{"--read-only"}, "ACCESS_DENIED", "read-only"},
		{"checkpoints off", []string{"--checkpoints", "off"}, "INVALID_INPUT", "checkpoints, which are off"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := startCheckpointCore(t, dir, append([]string{"--anthropic-compat=20250124"}, tc.args...)...)
			if got := c.fails(tc.code, "str_replace_editor", map[string]any{"command": "undo_edit", "path": "f.txt"}); !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want it to contain %q", got, tc.want)
			}
		})
	}
}
