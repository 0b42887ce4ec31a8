package boris

import (
	"testing"

	"github.com/mjkoo/boris/core/toolkit/tooltest"
)

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
		{name: "output modes", files: tree, steps: []tooltest.Step{
			{Tool: "grep", Args: map[string]any{"pattern": "Foo"}, Want: "$DIR/a.go\n", Not: "secret"},
			{Tool: "grep", Args: map[string]any{"pattern": "Foo"}, Want: "$DIR/notes.txt\n", Not: "gen/x.go"},
			{Tool: "grep", Args: map[string]any{"pattern": "Foo"}, Want: "[Skipped: 1 binary, 1 ignored by .gitignore, 1 denied by path scoping]"},
			{Tool: "grep", Args: map[string]any{"pattern": "Foo", "output_mode": "content"}, Want: "$DIR/a.go:3:func Foo() {}\n"},
			{Tool: "grep", Args: map[string]any{"pattern": "Foo", "output_mode": "content", "line_numbers": false}, Want: "$DIR/a.go:func Foo() {}\n"},
			{Tool: "grep", Args: map[string]any{"pattern": "Foo", "output_mode": "content", "path": "a.go", "context_before": 2}, Want: "$DIR/a.go-1-package a\n"},
			{Tool: "grep", Args: map[string]any{"pattern": "call", "output_mode": "content", "path": "notes.txt", "context": 1}, Want: "$DIR/notes.txt-2-then foo again\n"},
			{Tool: "grep", Args: map[string]any{"pattern": "foo", "output_mode": "count", "case_insensitive": true}, Want: "$DIR/notes.txt:2\n"},
			{Tool: "grep", Args: map[string]any{"pattern": "Foo\\(\\) \\{\\}\n", "multiline": true}, Want: "$DIR/a.go\n", Not: "notes.txt"},
		}},
		{name: "filters", files: tree, steps: []tooltest.Step{
			{Tool: "grep", Args: map[string]any{"pattern": "Foo", "include": "*.go"}, Want: "$DIR/sub/c.go\n", Not: "notes.txt"},
			{Tool: "grep", Args: map[string]any{"pattern": "Foo", "type": "md"}, Want: "$DIR/sub/deep.md\n", Not: "a.go"},
			{Tool: "grep", Args: map[string]any{"pattern": "Foo", "path": "sub", "include": "*.txt"}, Want: "No matches for `Foo` in $DIR/sub (include *.txt).\n"},
			{Tool: "grep", Args: map[string]any{"pattern": "nowhere", "type": "go", "include": "*.go"}, Want: "No matches for `nowhere` in $DIR (include *.go, type go).\n"},
			{Tool: "grep", Args: map[string]any{"pattern": "nowhere"}, Want: "No matches for `nowhere` in $DIR.\n"},
		}},
		{name: "pages", files: map[string]string{"1.txt": "x\n", "2.txt": "x\n", "3.txt": "x\nx\n"}, steps: []tooltest.Step{
			{Tool: "grep", Args: map[string]any{"pattern": "x", "head_limit": 1}, Want: "[Showing files 1-1 of 3. Pass offset: 1 for more.]"},
			{Tool: "grep", Args: map[string]any{"pattern": "x", "head_limit": 1, "offset": 2}, Want: "[Showing files 3-3 of 3.]"},
			{Tool: "grep", Args: map[string]any{"pattern": "x", "head_limit": 0, "offset": 1}, Want: "[Showing files 2-3 of 3.]"},
			{Tool: "grep", Args: map[string]any{"pattern": "x", "output_mode": "content", "head_limit": 2}, Want: "[Showing lines 1-2 of 4. Pass offset: 2 for more.]"},
			{Tool: "grep", Args: map[string]any{"pattern": "x", "offset": 7}, Want: "[Offset 7 is past the end: there are 3 files.]"},
			{Tool: "grep", Args: map[string]any{"pattern": "x", "path": "1.txt", "offset": 3}, Want: "[Offset 3 is past the end: there is 1 file.]"},
			{Tool: "grep", Args: map[string]any{"pattern": "x"}, Not: "Showing"},
		}},
		{name: "refusals", files: tree, steps: []tooltest.Step{
			{Tool: "grep", Args: map[string]any{"pattern": ""}, IsError: true, Want: "[INVALID_INPUT] pattern must not be empty"},
			{Tool: "grep", Args: map[string]any{"pattern": "(unclosed"}, IsError: true, Want: "[INVALID_INPUT] pattern is not a valid RE2 regular expression"},
			{Tool: "grep", Args: map[string]any{"pattern": "x", "output_mode": "lines"}, IsError: true, Want: `[INVALID_INPUT] output_mode "lines" is not one of files_with_matches, content, count`},
			{Tool: "grep", Args: map[string]any{"pattern": "x", "context_after": -1}, IsError: true, Want: "[INVALID_INPUT] context_after must be 0 or more, got -1"},
			{Tool: "grep", Args: map[string]any{"pattern": "x", "offset": -2}, IsError: true, Want: "[INVALID_INPUT] offset must be 0 or more, got -2"},
			{Tool: "grep", Args: map[string]any{"pattern": "x", "head_limit": -1}, IsError: true, Want: "[INVALID_INPUT] head_limit must be 0 (no limit) or more, got -1"},
			{Tool: "grep", Args: map[string]any{"pattern": "x", "type": "klingon"}, IsError: true, Want: "[INVALID_INPUT]"},
			{Tool: "grep", Args: map[string]any{"pattern": "root", "path": "/etc"}, IsError: true, Want: "[ACCESS_DENIED]"},
			{Tool: "grep", Args: map[string]any{"pattern": "secret", "path": ".env"}, IsError: true, Want: "[ACCESS_DENIED]", Not: "Foo="},
		}},
	})
}

// TestGrepCompat: with --anthropic-compat grep takes Claude Code's
// spellings (glob, -i, -n, -A, -B, -C) for the same search.
func TestGrepCompat(t *testing.T) {
	compat := func(o *Options) { o.AnthropicCompat = CompatOn }
	runScenarios(t, []scenario{{name: "claude code's names", opt: compat, files: tree, steps: []tooltest.Step{
		{Tool: "grep", Args: map[string]any{"pattern": "foo", "-i": true, "glob": "*.txt", "output_mode": "content", "-n": false}, Want: "$DIR/notes.txt:then foo again\n", Not: "a.go"},
		{Tool: "grep", Args: map[string]any{"pattern": "Foo", "path": "a.go", "output_mode": "content", "-B": 1}, Want: "$DIR/a.go-2-\n$DIR/a.go:3:func Foo() {}"},
		{Tool: "grep", Args: map[string]any{"pattern": "call", "path": "notes.txt", "output_mode": "content", "-A": 1}, Want: "$DIR/notes.txt-2-then foo again"},
		{Tool: "grep", Args: map[string]any{"pattern": "Foo", "include": "*.go"}, IsError: true, Want: "[INVALID_INPUT]"},
	}}})
}

// TestGlob: glob lists matching files newest first as absolute paths,
// splits an absolute pattern at its first wildcard, and refuses
// malformed patterns and paths that are not directories.
func TestGlob(t *testing.T) {
	runScenarios(t, []scenario{
		{name: "matches", files: tree, steps: []tooltest.Step{
			{Tool: "glob", Args: map[string]any{"pattern": "**/*.go"}, Want: "$DIR/sub/c.go\n", Not: "gen/x.go"},
			{Tool: "glob", Args: map[string]any{"pattern": "*.go"}, Want: "$DIR/a.go\n", Not: "sub/c.go"},
			{Tool: "glob", Args: map[string]any{"pattern": "./*.md", "path": "sub"}, Want: "$DIR/sub/deep.md\n"},
			{Tool: "glob", Args: map[string]any{"pattern": "$DIR/sub/**/*.go"}, Want: "$DIR/sub/c.go\n", Not: "$DIR/a.go"},
			{Tool: "glob", Args: map[string]any{"pattern": "**/*.{md,txt}"}, Want: "$DIR/notes.txt\n"},
			{Tool: "glob", Args: map[string]any{"pattern": "*.rs"}, Want: "No files match `*.rs` in $DIR.\n"},
			{Tool: "glob", Args: map[string]any{"pattern": "**/.env"}, Want: "denied by path scoping]", Not: "$DIR/.env"},
		}},
		{name: "refusals", files: tree, steps: []tooltest.Step{
			{Tool: "glob", Args: map[string]any{"pattern": ""}, IsError: true, Want: "[INVALID_INPUT] pattern must not be empty"},
			{Tool: "glob", Args: map[string]any{"pattern": "/abs/*.go", "path": "sub"}, IsError: true, Want: `[INVALID_INPUT] pattern "/abs/*.go" is absolute; make it relative to path, or leave path out`},
			{Tool: "glob", Args: map[string]any{"pattern": "[a-"}, IsError: true, Want: `[INVALID_INPUT] pattern "[a-" is not a valid glob`},
			{Tool: "glob", Args: map[string]any{"pattern": "*", "path": "a.go"}, IsError: true, Want: "[INVALID_INPUT] glob searches a directory, but $DIR/a.go is a regular file; use view"},
			{Tool: "glob", Args: map[string]any{"pattern": "*", "path": "/etc"}, IsError: true, Want: "[ACCESS_DENIED]"},
			{Tool: "glob", Args: map[string]any{"pattern": "/etc/*"}, IsError: true, Want: "[ACCESS_DENIED]"},
		}},
	})
}
