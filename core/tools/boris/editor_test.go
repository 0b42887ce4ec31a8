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
		{name: "commands", opt: compat(CompatOn, false), files: abc, steps: []step{
			{tool: bare, args: map[string]any{"command": "view", "path": "a.txt", "view_range": []int{2, 2}}, want: "     2\ttwo\n", not: "one"},
			{tool: bare, args: map[string]any{"command": "str_replace", "path": "a.txt", "old_str": "two", "new_str": "2"}, want: "Edited $DIR/a.txt."},
			{tool: bare, args: map[string]any{"command": "str_replace", "path": "a.txt", "old_str": "three\n"}, want: "Edited"},
			{tool: bare, args: map[string]any{"command": "insert", "path": "a.txt", "insert_line": 0, "new_str": "zero"}, want: "Inserted 1 line after line 0 of $DIR/a.txt. The region now reads:\n     1\tzero\n     2\tone\n"},
			{tool: bare, args: map[string]any{"command": "insert", "path": "a.txt", "insert_line": 3, "insert_text": "end\nmore"}, want: "Inserted 2 lines after line 3"},
			{tool: bare, args: map[string]any{"command": "insert", "path": "a.txt", "insert_line": 1, "new_str": "same", "insert_text": "same"}, want: "Inserted 1 line"},
			{tool: bare, args: map[string]any{"command": "create", "path": "b/new.txt", "file_text": "new\n"}, want: "Created $DIR/b/new.txt (4 bytes)."},
			{tool: bare, args: map[string]any{"command": "create", "path": "b/new.txt", "file_text": "again\n"}, want: "Overwrote"},
		}, after: map[string]string{"a.txt": "zero\nsame\none\n2\nend\nmore\n", "b/new.txt": "again\n"}},
		{name: "refusals change nothing", opt: compat(CompatOn, false), files: abc, steps: []step{
			{tool: bare, args: map[string]any{"command": "undo_edit", "path": "a.txt"}, isError: true, want: `[INVALID_INPUT] unknown command "undo_edit": want one of view, create, str_replace, insert`},
			{tool: bare, args: map[string]any{"command": "view", "path": "a.txt", "old_str": "x"}, isError: true, want: "[INVALID_INPUT] old_str does not apply to the view command"},
			{tool: bare, args: map[string]any{"command": "create", "path": "a.txt", "file_text": "x", "replace_all": true}, isError: true, want: "replace_all does not apply to the create command"},
			{tool: bare, args: map[string]any{"command": "view", "path": "a.txt", "max_characters": 3}, isError: true, want: "[INVALID_INPUT] max_characters belongs to text_editor_20250728 (str_replace_based_edit_tool); this server's str_replace_editor does not take it"},
			{tool: bare, args: map[string]any{"command": "create", "path": "c.txt"}, isError: true, want: "[INVALID_INPUT] create needs file_text"},
			{tool: bare, args: map[string]any{"command": "str_replace", "path": "a.txt", "new_str": "x"}, isError: true, want: "[INVALID_INPUT] str_replace needs old_str"},
			{tool: bare, args: map[string]any{"command": "insert", "path": "a.txt", "new_str": "x"}, isError: true, want: "[INVALID_INPUT] insert needs insert_line"},
			{tool: bare, args: map[string]any{"command": "insert", "path": "a.txt", "insert_line": 1}, isError: true, want: "[INVALID_INPUT] insert needs the text to insert, as new_str or insert_text"},
			{tool: bare, args: map[string]any{"command": "insert", "path": "a.txt", "insert_line": 1, "new_str": "x", "insert_text": "y"}, isError: true, want: "[INVALID_INPUT] insert got different new_str and insert_text"},
			{tool: bare, args: map[string]any{"command": "insert", "path": "a.txt", "insert_line": -1, "new_str": "x"}, isError: true, want: "[INVALID_INPUT] insert_line must be 0 or more, got -1"},
			{tool: bare, args: map[string]any{"command": "insert", "path": "a.txt", "insert_line": 4, "new_str": "x"}, isError: true, want: "[INVALID_INPUT] insert_line 4 is past the end of $DIR/a.txt, which has 3 lines"},
			{tool: bare, args: map[string]any{"command": "insert", "path": "/etc/hostname", "insert_line": 0, "new_str": "x"}, isError: true, want: "[ACCESS_DENIED]"},
			{tool: bare, args: map[string]any{"command": "create", "path": "c.txt", "file_text": "x", "view_range": []int{1, 1}}, isError: true, want: "view_range does not apply to the create command"},
		}, after: map[string]string{"a.txt": abc["a.txt"], "c.txt": absent}},
		{name: "read-only keeps view", opt: compat(CompatOn, true), files: abc, steps: []step{
			{tool: bare, args: map[string]any{"command": "view", "path": "a.txt"}, want: "     1\tone"},
			{tool: bare, args: map[string]any{"command": "str_replace", "path": "a.txt", "old_str": "one", "new_str": "1"}, isError: true, want: "[ACCESS_DENIED] this server is read-only: str_replace is not allowed, only view"},
			{tool: bare, args: map[string]any{"command": "create", "path": "c.txt", "file_text": "x"}, isError: true, want: "[ACCESS_DENIED] this server is read-only"},
		}, after: map[string]string{"a.txt": abc["a.txt"], "c.txt": absent}},
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
		{name: "20250124", opt: compat(Compat20250124, false), files: files, steps: []step{
			{tool: v1, args: map[string]any{"command": "create", "path": "a.txt", "file_text": "x"}, isError: true,
				want: "[INVALID_INPUT] File already exists at: a.txt. Cannot overwrite files using command `create`. Use str_replace to change it."},
			{tool: v1, args: map[string]any{"command": "view", "path": "nope.txt"}, isError: true, want: "[PATH_NOT_FOUND] The path nope.txt does not exist. Please provide a valid path."},
			{tool: v1, args: map[string]any{"command": "str_replace", "path": "d", "old_str": "a", "new_str": "b"}, isError: true,
				want: "[IS_DIRECTORY] The path d is a directory and only the `view` command can be used on directories"},
			{tool: v1, args: map[string]any{"command": "view", "path": "d", "view_range": []int{1, 2}}, isError: true,
				want: "[INVALID_INPUT] The `view_range` parameter is not allowed when `path` points to a directory."},
			{tool: v1, args: map[string]any{"command": "view", "path": "/etc/hostname"}, isError: true, want: "[ACCESS_DENIED]", not: "does not exist"},
			{tool: v1, args: map[string]any{"command": "str_replace", "path": "a.txt", "old_str": "three", "new_str": "3"}, isError: true,
				want: "[NOT_FOUND_IN_FILE] Error: No match found for replacement. Please check your text and try again."},
			{tool: v1, args: map[string]any{"command": "str_replace", "path": "a.txt", "old_str": "one", "new_str": "1"}, isError: true,
				want: "[AMBIGUOUS_MATCH] Error: Found 2 matches for replacement text. Please provide more context to make a unique match. old_str occurs at lines 1, 3 of $DIR/a.txt."},
			{tool: v1, args: map[string]any{"command": "undo_edit", "path": "a.txt"}, isError: true, want: "no checkpoints in these tests"},
			{tool: v1, args: map[string]any{"command": "view", "path": "d"}, want: "$DIR/d/\n  f\n"},
			{tool: v1, args: map[string]any{"command": "create", "path": "new.txt", "file_text": "n"}, want: "Created $DIR/new.txt (1 byte)."},
		}, after: map[string]string{"a.txt": files["a.txt"], "new.txt": "n"}},
		{name: "20250728", opt: compat(Compat20250728, false), files: files, steps: []step{
			{tool: v2, args: map[string]any{"command": "view", "path": "a.txt", "max_characters": 12}, want: "     1\tone\n \n<response clipped: 12 of 33 characters shown (max_characters); use view_range to see the rest>"},
			{tool: v2, args: map[string]any{"command": "view", "path": "a.txt", "max_characters": 1000}, want: "     3\tone\n", not: "clipped"},
			{tool: v2, args: map[string]any{"command": "view", "path": "a.txt", "max_characters": 0}, isError: true, want: "[INVALID_INPUT] max_characters must be 1 or more, got 0"},
			{tool: v2, args: map[string]any{"command": "undo_edit", "path": "a.txt"}, isError: true,
				want: "[INVALID_INPUT] Unrecognized command undo_edit. The allowed commands for the str_replace_based_edit_tool tool are: view, create, str_replace, insert"},
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
