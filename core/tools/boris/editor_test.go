package boris

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit/tooltest"
)

// compat returns the option change serving the editor as version v.
func compat(v AnthropicCompat, readOnly bool) func(*Options) {
	return func(o *Options) { o.AnthropicCompat, o.ReadOnly = v, readOnly }
}

// TestEditor: each command of the Anthropic-compatible editor does what
// the split tools do; arguments of another command, or another version,
// are refused before anything is written.
func TestEditor(t *testing.T) {
	const bare = "str_replace_editor"
	runScenarios(t, []scenario{
		{name: "commands", opt: compat(CompatOn, false), files: abc, steps: []tooltest.Step{
			{Tool: bare, Args: map[string]any{"command": "view", "path": "a.txt", "view_range": []int{2, 2}}, Want: "     2\ttwo\n", Not: "one"},
			{Tool: bare, Args: map[string]any{"command": "str_replace", "path": "a.txt", "old_str": "two", "new_str": "2"}, Want: "Edited $DIR/a.txt."},
			{Tool: bare, Args: map[string]any{"command": "str_replace", "path": "a.txt", "old_str": "three\n"}, Want: "Edited"},
			{Tool: bare, Args: map[string]any{"command": "insert", "path": "a.txt", "insert_line": 0, "new_str": "zero"}, Want: "Inserted 1 line after line 0 of $DIR/a.txt. The region now reads:\n     1\tzero\n     2\tone\n"},
			{Tool: bare, Args: map[string]any{"command": "insert", "path": "a.txt", "insert_line": 3, "insert_text": "end\nmore"}, Want: "Inserted 2 lines after line 3"},
			{Tool: bare, Args: map[string]any{"command": "insert", "path": "a.txt", "insert_line": 1, "new_str": "same", "insert_text": "same"}, Want: "Inserted 1 line"},
			{Tool: bare, Args: map[string]any{"command": "create", "path": "b/new.txt", "file_text": "new\n"}, Want: "Created $DIR/b/new.txt (4 bytes)."},
			{Tool: bare, Args: map[string]any{"command": "create", "path": "b/new.txt", "file_text": "again\n"}, Want: "Overwrote"},
		}, after: map[string]string{"a.txt": "zero\nsame\none\n2\nend\nmore\n", "b/new.txt": "again\n"}},
		{name: "refusals change nothing", opt: compat(CompatOn, false), files: abc, steps: []tooltest.Step{
			{Tool: bare, Args: map[string]any{"command": "undo_edit", "path": "a.txt"}, IsError: true, Want: `[INVALID_INPUT] unknown command "undo_edit": want one of view, create, str_replace, insert`},
			{Tool: bare, Args: map[string]any{"command": "view", "path": "a.txt", "old_str": "x"}, IsError: true, Want: "[INVALID_INPUT] old_str does not apply to the view command"},
			{Tool: bare, Args: map[string]any{"command": "create", "path": "a.txt", "file_text": "x", "replace_all": true}, IsError: true, Want: "replace_all does not apply to the create command"},
			{Tool: bare, Args: map[string]any{"command": "view", "path": "a.txt", "max_characters": 3}, IsError: true, Want: "[INVALID_INPUT] max_characters belongs to text_editor_20250728 (str_replace_based_edit_tool); this server's str_replace_editor does not take it"},
			{Tool: bare, Args: map[string]any{"command": "create", "path": "c.txt"}, IsError: true, Want: "[INVALID_INPUT] create needs file_text"},
			{Tool: bare, Args: map[string]any{"command": "str_replace", "path": "a.txt", "new_str": "x"}, IsError: true, Want: "[INVALID_INPUT] str_replace needs old_str"},
			{Tool: bare, Args: map[string]any{"command": "insert", "path": "a.txt", "new_str": "x"}, IsError: true, Want: "[INVALID_INPUT] insert needs insert_line"},
			{Tool: bare, Args: map[string]any{"command": "insert", "path": "a.txt", "insert_line": 1}, IsError: true, Want: "[INVALID_INPUT] insert needs the text to insert, as new_str or insert_text"},
			{Tool: bare, Args: map[string]any{"command": "insert", "path": "a.txt", "insert_line": 1, "new_str": "x", "insert_text": "y"}, IsError: true, Want: "[INVALID_INPUT] insert got different new_str and insert_text"},
			{Tool: bare, Args: map[string]any{"command": "insert", "path": "a.txt", "insert_line": -1, "new_str": "x"}, IsError: true, Want: "[INVALID_INPUT] insert_line must be 0 or more, got -1"},
			{Tool: bare, Args: map[string]any{"command": "insert", "path": "a.txt", "insert_line": 4, "new_str": "x"}, IsError: true, Want: "[INVALID_INPUT] insert_line 4 is past the end of $DIR/a.txt, which has 3 lines"},
			{Tool: bare, Args: map[string]any{"command": "insert", "path": "/etc/hostname", "insert_line": 0, "new_str": "x"}, IsError: true, Want: "[ACCESS_DENIED]"},
			{Tool: bare, Args: map[string]any{"command": "create", "path": "c.txt", "file_text": "x", "view_range": []int{1, 1}}, IsError: true, Want: "view_range does not apply to the create command"},
		}, after: map[string]string{"a.txt": abc["a.txt"], "c.txt": tooltest.Absent}},
		{name: "read-only keeps view", opt: compat(CompatOn, true), files: abc, steps: []tooltest.Step{
			{Tool: bare, Args: map[string]any{"command": "view", "path": "a.txt"}, Want: "     1\tone"},
			{Tool: bare, Args: map[string]any{"command": "str_replace", "path": "a.txt", "old_str": "one", "new_str": "1"}, IsError: true, Want: "[ACCESS_DENIED] this server is read-only: str_replace is not allowed, only view"},
			{Tool: bare, Args: map[string]any{"command": "create", "path": "c.txt", "file_text": "x"}, IsError: true, Want: "[ACCESS_DENIED] this server is read-only"},
		}, after: map[string]string{"a.txt": abc["a.txt"], "c.txt": tooltest.Absent}},
	})
}

// TestEditorDocumented: the versioned editors answer as Anthropic's
// documentation says: create never overwrites, a missing path, a
// directory and an unknown command get its messages, and so do a miss
// and an ambiguous match.
func TestEditorDocumented(t *testing.T) {
	const v1, v2 = "str_replace_editor", "str_replace_based_edit_tool"
	files := map[string]string{"a.txt": "one\ntwo\none\n", "d/f": ""}
	runScenarios(t, []scenario{
		{name: "20250124", opt: compat(Compat20250124, false), files: files, steps: []tooltest.Step{
			{Tool: v1, Args: map[string]any{"command": "create", "path": "a.txt", "file_text": "x"}, IsError: true,
				Want: "[INVALID_INPUT] File already exists at: a.txt. Cannot overwrite files using command `create`. Use str_replace to change it."},
			{Tool: v1, Args: map[string]any{"command": "view", "path": "nope.txt"}, IsError: true, Want: "[PATH_NOT_FOUND] The path nope.txt does not exist. Please provide a valid path."},
			{Tool: v1, Args: map[string]any{"command": "str_replace", "path": "d", "old_str": "a", "new_str": "b"}, IsError: true,
				Want: "[IS_DIRECTORY] The path d is a directory and only the `view` command can be used on directories"},
			{Tool: v1, Args: map[string]any{"command": "view", "path": "d", "view_range": []int{1, 2}}, IsError: true,
				Want: "[INVALID_INPUT] The `view_range` parameter is not allowed when `path` points to a directory."},
			{Tool: v1, Args: map[string]any{"command": "view", "path": "/etc/hostname"}, IsError: true, Want: "[ACCESS_DENIED]", Not: "does not exist"},
			{Tool: v1, Args: map[string]any{"command": "str_replace", "path": "a.txt", "old_str": "three", "new_str": "3"}, IsError: true,
				Want: "[NOT_FOUND_IN_FILE] Error: No match found for replacement. Please check your text and try again."},
			{Tool: v1, Args: map[string]any{"command": "str_replace", "path": "a.txt", "old_str": "one", "new_str": "1"}, IsError: true,
				Want: "[AMBIGUOUS_MATCH] Error: Found 2 matches for replacement text. Please provide more context to make a unique match. old_str occurs at lines 1, 3 of $DIR/a.txt."},
			{Tool: v1, Args: map[string]any{"command": "undo_edit", "path": "a.txt"}, IsError: true, Want: "no checkpoints in these tests"},
			{Tool: v1, Args: map[string]any{"command": "view", "path": "d"}, Want: "$DIR/d/\n  f\n"},
			{Tool: v1, Args: map[string]any{"command": "create", "path": "new.txt", "file_text": "n"}, Want: "Created $DIR/new.txt (1 byte)."},
		}, after: map[string]string{"a.txt": files["a.txt"], "new.txt": "n"}},
		{name: "20250728", opt: compat(Compat20250728, false), files: files, steps: []tooltest.Step{
			{Tool: v2, Args: map[string]any{"command": "view", "path": "a.txt", "max_characters": 12}, Want: "     1\tone\n \n<response clipped: 12 of 33 characters shown (max_characters); use view_range to see the rest>"},
			{Tool: v2, Args: map[string]any{"command": "view", "path": "a.txt", "max_characters": 1000}, Want: "     3\tone\n", Not: "clipped"},
			{Tool: v2, Args: map[string]any{"command": "view", "path": "a.txt", "max_characters": 0}, IsError: true, Want: "[INVALID_INPUT] max_characters must be 1 or more, got 0"},
			{Tool: v2, Args: map[string]any{"command": "undo_edit", "path": "a.txt"}, IsError: true,
				Want: "[INVALID_INPUT] Unrecognized command undo_edit. The allowed commands for the str_replace_based_edit_tool tool are: view, create, str_replace, insert"},
		}, after: map[string]string{"a.txt": files["a.txt"]}},
	})
}

// TestEditorSchemas: each version is listed under its own name with its
// own commands and parameters; --read-only lists only view and says the
// tool only reads.
func TestEditorSchemas(t *testing.T) {
	for _, tt := range []struct {
		v         AnthropicCompat
		readOnly  bool
		name      string
		commands  []string
		maxChars  bool
		readOnlyH bool
	}{
		{CompatOn, false, "str_replace_editor", []string{"view", "create", "str_replace", "insert"}, false, false},
		{Compat20250124, false, "str_replace_editor", []string{"view", "create", "str_replace", "insert", "undo_edit"}, false, false},
		{Compat20250728, false, "str_replace_based_edit_tool", []string{"view", "create", "str_replace", "insert"}, true, false},
		{Compat20250728, true, "str_replace_based_edit_tool", []string{"view"}, true, true},
	} {
		t.Run(string(tt.v)+map[bool]string{true: " read-only"}[tt.readOnly], func(t *testing.T) {
			opt := defaultOptions()
			compat(tt.v, tt.readOnly)(&opt)
			res, err := tooltest.Connect(t, Tools(tooltest.New(t), opt)).ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(res.Tools, func(tl *mcp.Tool) bool { return tl.Name == tt.name })
			if i < 0 || slices.ContainsFunc(res.Tools, func(tl *mcp.Tool) bool { return tl.Name == "view" || tl.Name == "str_replace" }) {
				t.Fatalf("tools/list: want %s and no split file tools, got %d tools", tt.name, len(res.Tools))
			}
			var schema struct {
				Properties map[string]struct {
					Enum []string `json:"enum"`
				} `json:"properties"`
			}
			raw, _ := json.Marshal(res.Tools[i].InputSchema)
			if err := json.Unmarshal(raw, &schema); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.commands, schema.Properties["command"].Enum); diff != "" {
				t.Errorf("%s's commands (-want +got):\n%s", tt.name, diff)
			}
			if _, ok := schema.Properties["max_characters"]; ok != tt.maxChars {
				t.Errorf("%s takes max_characters: %v, want %v", tt.name, ok, tt.maxChars)
			}
			if got := res.Tools[i].Annotations.ReadOnlyHint; got != tt.readOnlyH {
				t.Errorf("%s's readOnlyHint: %v, want %v", tt.name, got, tt.readOnlyH)
			}
		})
	}
}

// TestAnthropicCompat: the flag takes a boolean or a version, with or
// without text_editor_, and refuses anything else saying what it wants.
func TestAnthropicCompat(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    AnthropicCompat
		str     string
		enabled bool
		err     bool
	}{
		{"true", CompatOn, "true", true, false},
		{"1", CompatOn, "true", true, false},
		{"false", CompatOff, "false", false, false},
		{"20250124", Compat20250124, "20250124", true, false},
		{"text_editor_20250728", Compat20250728, "20250728", true, false},
		{"20990101", CompatOff, "", false, true},
		{"text_editor_", CompatOff, "", false, true},
	} {
		var a AnthropicCompat
		err := a.UnmarshalText([]byte(tt.in))
		if (err != nil) != tt.err {
			t.Errorf("UnmarshalText(%q): error %v, want an error: %v", tt.in, err, tt.err)
			continue
		}
		if err != nil {
			if want := compatWant; !strings.Contains(err.Error(), want) {
				t.Errorf("UnmarshalText(%q): %q, want it to say %q", tt.in, err, want)
			}
			continue
		}
		if a != tt.want || a.String() != tt.str || a.Enabled() != tt.enabled || !a.IsBoolFlag() {
			t.Errorf("UnmarshalText(%q) = %q (String %q, Enabled %v); want %q (%q, %v)", tt.in, a, a.String(), a.Enabled(), tt.want, tt.str, tt.enabled)
		}
	}
}

// TestBuiltin: an extension may not take the name of any editor version
// or insert, whatever this server serves.
func TestBuiltin(t *testing.T) {
	for name, want := range map[string]bool{
		"str_replace_editor": true, "str_replace_based_edit_tool": true, "insert": true, "lint": false, "view_file": false,
	} {
		if got := Builtin(name); got != want {
			t.Errorf("Builtin(%q) = %v, want %v", name, got, want)
		}
	}
}
