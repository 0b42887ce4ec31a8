package boris

import "testing"

// tree is a small source tree to search.
var tree = map[string]string{
	"a.go":        "package a\n\nfunc Foo() {}\n",
	"b.go":        "package b\n",
	"notes.txt":   "call Foo\nthen foo again\n",
	"sub/c.go":    "package sub\n// Foo is here too\n",
	"gen/x.go":    "package gen // Foo\n",
	".gitignore":  "gen/\n",
	".env":        "Foo=secret\n",
	"data.bin":    "Foo\x00\x01",
	"sub/deep.md": "# Foo\n",
}

// TestGrep: grep finds what the pattern says in every output mode, pages
// its results, follows its filters and refuses malformed requests with
// INVALID_INPUT.
func TestGrep(t *testing.T) {
	runScenarios(t, []scenario{
		{name: "output modes", files: tree, steps: []step{
			{tool: "grep", args: map[string]any{"pattern": "Foo"}, want: "$DIR/a.go\n", not: "secret"},
			{tool: "grep", args: map[string]any{"pattern": "Foo"}, want: "$DIR/notes.txt\n", not: "gen/x.go"},
			{tool: "grep", args: map[string]any{"pattern": "Foo"}, want: "[Skipped: 1 binary, 1 ignored by .gitignore, 1 denied by path scoping]"},
			{tool: "grep", args: map[string]any{"pattern": "Foo", "output_mode": "content"}, want: "$DIR/a.go:3:func Foo() {}\n"},
			{tool: "grep", args: map[string]any{"pattern": "Foo", "output_mode": "content", "line_numbers": false}, want: "$DIR/a.go:func Foo() {}\n"},
			{tool: "grep", args: map[string]any{"pattern": "Foo", "output_mode": "content", "path": "a.go", "context_before": 2}, want: "$DIR/a.go-1-package a\n"},
			{tool: "grep", args: map[string]any{"pattern": "call", "output_mode": "content", "path": "notes.txt", "context": 1}, want: "$DIR/notes.txt-2-then foo again\n"},
			{tool: "grep", args: map[string]any{"pattern": "foo", "output_mode": "count", "case_insensitive": true}, want: "$DIR/notes.txt:2\n"},
			{tool: "grep", args: map[string]any{"pattern": "Foo\\(\\) \\{\\}\n", "multiline": true}, want: "$DIR/a.go\n", not: "notes.txt"},
		}},
		{name: "filters", files: tree, steps: []step{
			{tool: "grep", args: map[string]any{"pattern": "Foo", "include": "*.go"}, want: "$DIR/sub/c.go\n", not: "notes.txt"},
			{tool: "grep", args: map[string]any{"pattern": "Foo", "type": "md"}, want: "$DIR/sub/deep.md\n", not: "a.go"},
			{tool: "grep", args: map[string]any{"pattern": "Foo", "path": "sub", "include": "*.txt"}, want: "No matches for `Foo` in $DIR/sub (include *.txt).\n"},
			{tool: "grep", args: map[string]any{"pattern": "nowhere", "type": "go", "include": "*.go"}, want: "No matches for `nowhere` in $DIR (include *.go, type go).\n"},
			{tool: "grep", args: map[string]any{"pattern": "nowhere"}, want: "No matches for `nowhere` in $DIR.\n"},
		}},
		{name: "pages", files: map[string]string{"1.txt": "x\n", "2.txt": "x\n", "3.txt": "x\nx\n"}, steps: []step{
			{tool: "grep", args: map[string]any{"pattern": "x", "head_limit": 1}, want: "[Showing files 1-1 of 3. Pass offset: 1 for more.]"},
			{tool: "grep", args: map[string]any{"pattern": "x", "head_limit": 1, "offset": 2}, want: "[Showing files 3-3 of 3.]"},
			{tool: "grep", args: map[string]any{"pattern": "x", "head_limit": 0, "offset": 1}, want: "[Showing files 2-3 of 3.]"},
			{tool: "grep", args: map[string]any{"pattern": "x", "output_mode": "content", "head_limit": 2}, want: "[Showing lines 1-2 of 4. Pass offset: 2 for more.]"},
			{tool: "grep", args: map[string]any{"pattern": "x", "offset": 7}, want: "[Offset 7 is past the end: there are 3 files.]"},
			{tool: "grep", args: map[string]any{"pattern": "x", "path": "1.txt", "offset": 3}, want: "[Offset 3 is past the end: there is 1 file.]"},
			{tool: "grep", args: map[string]any{"pattern": "x"}, not: "Showing"},
		}},
		{name: "refusals", files: tree, steps: []step{
			{tool: "grep", args: map[string]any{"pattern": ""}, isError: true, want: "[INVALID_INPUT] pattern must not be empty"},
			{tool: "grep", args: map[string]any{"pattern": "(unclosed"}, isError: true, want: "[INVALID_INPUT] pattern is not a valid RE2 regular expression"},
			{tool: "grep", args: map[string]any{"pattern": "x", "output_mode": "lines"}, isError: true, want: `[INVALID_INPUT] output_mode "lines" is not one of files_with_matches, content, count`},
			{tool: "grep", args: map[string]any{"pattern": "x", "context_after": -1}, isError: true, want: "[INVALID_INPUT] context_after must be 0 or more, got -1"},
			{tool: "grep", args: map[string]any{"pattern": "x", "offset": -2}, isError: true, want: "[INVALID_INPUT] offset must be 0 or more, got -2"},
			{tool: "grep", args: map[string]any{"pattern": "x", "head_limit": -1}, isError: true, want: "[INVALID_INPUT] head_limit must be 0 (no limit) or more, got -1"},
			{tool: "grep", args: map[string]any{"pattern": "x", "type": "klingon"}, isError: true, want: "[INVALID_INPUT]"},
			{tool: "grep", args: map[string]any{"pattern": "root", "path": "/etc"}, isError: true, want: "[ACCESS_DENIED]"},
			{tool: "grep", args: map[string]any{"pattern": "secret", "path": ".env"}, isError: true, want: "[ACCESS_DENIED]", not: "Foo="},
		}},
	})
}

// TestGrepCompat: with --anthropic-compat grep takes Claude Code's
// spellings (glob, -i, -n, -A, -B, -C) for the same search.
func TestGrepCompat(t *testing.T) {
	compat := func(o *Options) { o.AnthropicCompat = CompatOn }
	runScenarios(t, []scenario{{name: "claude code's names", opt: compat, files: tree, steps: []step{
		{tool: "grep", args: map[string]any{"pattern": "foo", "-i": true, "glob": "*.txt", "output_mode": "content", "-n": false}, want: "$DIR/notes.txt:then foo again\n", not: "a.go"},
		{tool: "grep", args: map[string]any{"pattern": "Foo", "path": "a.go", "output_mode": "content", "-B": 1}, want: "$DIR/a.go-2-\n$DIR/a.go:3:func Foo() {}"},
		{tool: "grep", args: map[string]any{"pattern": "call", "path": "notes.txt", "output_mode": "content", "-A": 1}, want: "$DIR/notes.txt-2-then foo again"},
		{tool: "grep", args: map[string]any{"pattern": "Foo", "include": "*.go"}, isError: true, want: "[INVALID_INPUT]"},
	}}})
}

// TestGlob: glob lists matching files newest first as absolute paths,
// splits an absolute pattern at its first wildcard, and refuses
// malformed patterns and paths that are not directories.
func TestGlob(t *testing.T) {
	runScenarios(t, []scenario{
		{name: "matches", files: tree, steps: []step{
			{tool: "glob", args: map[string]any{"pattern": "**/*.go"}, want: "$DIR/sub/c.go\n", not: "gen/x.go"},
			{tool: "glob", args: map[string]any{"pattern": "*.go"}, want: "$DIR/a.go\n", not: "sub/c.go"},
			{tool: "glob", args: map[string]any{"pattern": "./*.md", "path": "sub"}, want: "$DIR/sub/deep.md\n"},
			{tool: "glob", args: map[string]any{"pattern": "$DIR/sub/**/*.go"}, want: "$DIR/sub/c.go\n", not: "$DIR/a.go"},
			{tool: "glob", args: map[string]any{"pattern": "**/*.{md,txt}"}, want: "$DIR/notes.txt\n"},
			{tool: "glob", args: map[string]any{"pattern": "*.rs"}, want: "No files match `*.rs` in $DIR.\n"},
			{tool: "glob", args: map[string]any{"pattern": "**/.env"}, want: "denied by path scoping]", not: "$DIR/.env"},
		}},
		{name: "refusals", files: tree, steps: []step{
			{tool: "glob", args: map[string]any{"pattern": ""}, isError: true, want: "[INVALID_INPUT] pattern must not be empty"},
			{tool: "glob", args: map[string]any{"pattern": "/abs/*.go", "path": "sub"}, isError: true, want: `[INVALID_INPUT] pattern "/abs/*.go" is absolute; make it relative to path, or leave path out`},
			{tool: "glob", args: map[string]any{"pattern": "[a-"}, isError: true, want: `[INVALID_INPUT] pattern "[a-" is not a valid glob`},
			{tool: "glob", args: map[string]any{"pattern": "*", "path": "a.go"}, isError: true, want: "[INVALID_INPUT] glob searches a directory, but $DIR/a.go is a regular file; use view"},
			{tool: "glob", args: map[string]any{"pattern": "*", "path": "/etc"}, isError: true, want: "[ACCESS_DENIED]"},
			{tool: "glob", args: map[string]any{"pattern": "/etc/*"}, isError: true, want: "[ACCESS_DENIED]"},
		}},
	})
}
