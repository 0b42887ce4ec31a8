package test

import (
	"strings"
	"testing"
)

// missFile is the fixture the stale-edit tests edit: a function whose
// line 4 they change behind the agent's back.
const missFile = "package p\n\nfunc total(xs []int) int {\n\tsum := 0\n\tfor _, x := range xs {\n\t\tsum += x\n\t}\n\treturn sum\n}\n"

// TestStrReplaceMissNamesTheChange views a file, has something else
// change it, then sends the text the agent viewed: the miss names the
// window, that the text changed since it was viewed, and what changed it
// (this session's bash, an outside edit, another session on the same
// tree) with that change's diff; the file is left as the change left it.
func TestStrReplaceMissNamesTheChange(t *testing.T) {
	tree := realTempDir(t)
	a, state := startCheckpointCore(t, tree)
	b := startCoreWith(t, coreOptions{args: []string{"--workdir", tree}, env: []string{"XDG_STATE_HOME=" + state}})
	// b's start records what it finds changed in the tree as outside
	// work: taken while a's bash runs, it would claim that bash's change.
	awaitStart(b)
	path := tree + "/f.go"
	tests := []struct {
		name   string
		change func()
		who    string
	}{
		{"bash", func() { a.ok("bash", map[string]any{"command": "sed -i 's/sum := 0/sum := 1/' f.go"}) }, "this session's bash: sed -i 's/sum := 0/sum := 1/' f.go"},
		{"outside", func() { writeFile(t, path, strings.Replace(missFile, "sum := 0", "sum := 1", 1)) }, "a change made outside Boris"},
		{"another session", func() {
			b.ok("str_replace", map[string]any{"path": "f.go", "old_str": "sum := 0", "new_str": "sum := 1"})
		}, "another session's str_replace: f.go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			writeFile(t, path, missFile)
			a.ok("bash", map[string]any{"command": "true"}) // the fixture is recorded before the agent views it
			a.ok("view", map[string]any{"path": "f.go"})
			tt.change()
			after := readFile(t, path)
			got := a.fails("NOT_FOUND_IN_FILE", "str_replace", map[string]any{"path": "f.go", "old_str": "\tsum := 0\n\tfor _, x := range xs {", "new_str": "\tsum := 2\n\tfor _, x := range xs {"})
			for _, want := range []string{"The text changed since you last viewed it: cp_", tt.who + ".\n", "+\tsum := 1", "-\tsum := 0", "lines 4–5", "     4\t\tsum := 1", "the file has `1` where old_str has `0`", "Nothing was changed."} {
				if !strings.Contains(got, want) {
					t.Errorf("got %q, want it to say %q", got, want)
				}
			}
			if got := readFile(t, path); got != after {
				t.Errorf("file after the missed edit: %q, want it unchanged: %q", got, after)
			}
		})
	}
}

// TestStrReplaceStaleSuccess edits a file that changed since the agent
// viewed it: the edit is made and says, in one line, what changed the
// file; the agent's own edits never count as such a change.
func TestStrReplaceStaleSuccess(t *testing.T) {
	tree := realTempDir(t)
	c, _ := startCheckpointCore(t, tree)
	path := tree + "/f.go"
	writeFile(t, path, missFile)
	c.ok("view", map[string]any{"path": "f.go"})
	got := c.ok("str_replace", map[string]any{"path": "f.go", "old_str": "sum := 0", "new_str": "sum := 1"})
	got += c.ok("str_replace", map[string]any{"path": "f.go", "old_str": "sum := 1", "new_str": "sum := 2"})
	if strings.Contains(got, "changed since") {
		t.Errorf("the agent's own edits: got %q, want no note of a change", got)
	}
	writeFile(t, path, readFile(t, path)+"// appended outside\n")
	got = c.ok("str_replace", map[string]any{"path": "f.go", "old_str": "return sum", "new_str": "return sum * 2"})
	if !strings.Contains(got, "Note: f.go changed since you last viewed it: cp_") || !strings.Contains(got, "a change made outside Boris.") {
		t.Errorf("got %q, want a note naming the outside change", got)
	}
	if !strings.Contains(readFile(t, path), "return sum * 2\n}\n// appended outside\n") {
		t.Errorf("file %q, want the edit made and the outside change kept", readFile(t, path))
	}
}

// TestStrReplaceMissDiagnosis sends the mistakes agents make to the
// built binary, in each editor: each is refused with its code, the file
// is unchanged, and the answer names the window and the cause.
func TestStrReplaceMissDiagnosis(t *testing.T) {
	cases := []struct{ name, old, window, cause string }{
		{"spaces for tabs", "    sum := 0\n    for _, x := range xs {", "lines 4–5", "tabs against spaces"},
		{"trailing space", "\tsum := 0 \n", "line 4", "trailing whitespace"},
		{"crlf", "\tsum := 0\r\n\tfor _, x := range xs {\r\n", "lines 4–5", "line endings"},
		{"typographic quote", "func total(xs []int) int {\n\tsum := 0 // “zero”", "lines 3–4", "different text"},
		{"escaped newline", `\tsum := 0\n\tfor _, x := range xs {`, "lines 4–5", "escaping"},
		{"typo", "\tsum := 0\n\tfor _, x := range xz {", "lines 4–5", "the file has `xs` where old_str has `xz`"},
	}
	for _, mode := range []struct{ flag, tool, prefix string }{
		{"", "str_replace", "[NOT_FOUND_IN_FILE] old_str was not found in "},
		{"--anthropic-compat=20250728", "str_replace_based_edit_tool", "[NOT_FOUND_IN_FILE] Error: No match found for replacement. Please check your text and try again.\n"},
		{"--anthropic-compat=20250124", "str_replace_editor", "[NOT_FOUND_IN_FILE] Error: No match found for replacement. Please check your text and try again.\n"},
	} {
		dir := realTempDir(t)
		args := []string{"--workdir", dir}
		if mode.flag != "" {
			args = append(args, mode.flag)
		}
		c := startCore(t, args...)
		writeFile(t, dir+"/f.go", missFile)
		for _, tc := range cases {
			t.Run(mode.tool+"/"+tc.name, func(t *testing.T) {
				a := map[string]any{"path": "f.go", "old_str": tc.old, "new_str": "x"}
				if mode.tool != "str_replace" {
					a["command"] = "str_replace"
				}
				got := c.fails("NOT_FOUND_IN_FILE", mode.tool, a)
				if !strings.HasPrefix(got, mode.prefix) {
					t.Errorf("got %q, want it to start %q", got, mode.prefix)
				}
				for _, want := range []string{"is at " + tc.window + ",", tc.cause} {
					if !strings.Contains(got, want) {
						t.Errorf("got %q, want it to say %q", got, want)
					}
				}
				if got := readFile(t, dir+"/f.go"); got != missFile {
					t.Errorf("file after the missed edit: %q, want it unchanged", got)
				}
			})
		}
	}
}

// TestEditFileMissNamesTheChange: edit_file's miss, after
// server-filesystem's text, shows the closest text and why it differs,
// and, when the file changed since the session read it, what changed it;
// with --toolset all, a file viewed by view counts as read.
func TestEditFileMissNamesTheChange(t *testing.T) {
	tree := realTempDir(t)
	c, _ := startCheckpointCore(t, tree, "--toolset", "all")
	path := tree + "/f.go"
	for _, read := range []struct{ tool, arg string }{{"read_text_file", "path"}, {"view", "path"}} {
		t.Run(read.tool, func(t *testing.T) {
			writeFile(t, path, missFile)
			c.ok("bash", map[string]any{"command": "true"}) // the fixture is recorded before the agent reads it
			c.ok(read.tool, map[string]any{read.arg: path})
			writeFile(t, path, strings.Replace(missFile, "sum := 0", "sum := 1", 1))
			got := c.fails("NOT_FOUND_IN_FILE", "edit_file", map[string]any{"path": path, "edits": []map[string]any{{"oldText": "sum := 0\n\tfor", "newText": "x"}}})
			for _, want := range []string{"[NOT_FOUND_IN_FILE] Could not find exact match for edit:\nsum := 0\n\tfor\n", "is at lines 4–5,", "the file has `1` where old_str has `0`", "Nothing was changed.", "The text changed since you last read it: cp_", "a change made outside Boris."} {
				if !strings.Contains(got, want) {
					t.Errorf("got %q, want it to say %q", got, want)
				}
			}
			if got := readFile(t, path); got != strings.Replace(missFile, "sum := 0", "sum := 1", 1) {
				t.Errorf("file after the missed edit: %q, want it as the outside change left it", got)
			}
		})
	}
}
