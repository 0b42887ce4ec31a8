package test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// searchFixture is the tree the grep and glob tests search: nested
// .gitignore files with a negation, a .git directory, a binary file, a
// file over --max-file-size, a denied subtree, symlinks in and out of
// scope, CRLF line endings and a huge line. Files get distinct
// modification times in the order listed (oldest first), so newest-first
// order is deterministic.
var searchFixture = []struct{ path, data string }{
	{".git/HEAD", "ref: refs/heads/main\n"},
	{".gitignore", "*.log\n!keep.log\nignored-dir/\n"},
	{"sub/.gitignore", "!again.log\n"},
	{"notes.md", "# Notes\nneedle in notes\n"},
	{"src/main.go", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"needle one\")\n\t// filler\n\t// filler\n\t// filler\n\tfmt.Println(\"Needle two\")\n}\n"},
	{"src/util.go", "package main\n\nfunc util() string { return \"needle\" }\n"},
	{"crlf.txt", "first needle\r\nsecond\r\nthird needle\r\n"},
	{"huge.txt", strings.Repeat("x", 5000) + " needle\ntail needle\n"},
	{"keep.log", "needle kept\n"},
	{"drop.log", "needle dropped\n"},
	{"ignored-dir/x.txt", "needle\n"},
	{"sub/again.log", "needle again\n"},
	{"bin.dat", "\x00\x01needle\n"},
	{"big.txt", strings.Repeat("needle\n", 2000)},
	{"secret/key.txt", "needle secret\n"},
	{"multi.txt", "begin\nmiddle\nend\n"},
	{"../outside/o.txt", "needle outside\n"},
}

// startSearchCore builds the fixture and starts boris scoped to it, with
// secret/ denied and an 8 KB size limit. It returns the fixture directory.
func startSearchCore(t *testing.T) (*core, string) {
	t.Helper()
	base := realTempDir(t)
	dir := filepath.Join(base, "work")
	for i, f := range searchFixture {
		p := filepath.Join(dir, f.path)
		writeFile(t, p, f.data)
		setMtime(t, p, i)
	}
	for i := range 1001 {
		p := filepath.Join(dir, "many", fmt.Sprintf("f%04d.txt", i))
		writeFile(t, p, "x\n")
		setMtime(t, p, i)
	}
	for name, target := range map[string]string{"link-in": "src/util.go", "link-out": "../outside/o.txt"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	c := startCore(t, "--workdir", dir, "--allow-dir", dir, "--deny-dir", filepath.Join(dir, "secret"), "--max-file-size", "8KB")
	return c, dir
}

// setMtime gives a fixture file the i-th of a series of distinct times.
func setMtime(t *testing.T, path string, i int) {
	t.Helper()
	mt := time.Date(2024, 1, 1, 0, 0, i, 0, time.UTC)
	if err := os.Chtimes(path, mt, mt); err != nil {
		t.Fatal(err)
	}
}

// searchCase is one golden call: want is the exact result text with the
// fixture directory written as $DIR.
type searchCase struct {
	name string
	args map[string]any
	want string
}

// runSearchCases runs each case's tool call and compares the text.
func runSearchCases(t *testing.T, c *core, dir, tool string, cases []searchCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.ReplaceAll(c.ok(tool, tc.args), dir, "$DIR")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s %v (-want +got):\n%s", tool, tc.args, diff)
			}
			if strings.Contains(got, "secret") || strings.Contains(got, "outside") {
				t.Errorf("%s %v: result mentions a denied file: %q", tool, tc.args, got)
			}
		})
	}
}

// fullSkips is the skip report of a search of the whole fixture.
const fullSkips = "[Skipped: 1 binary, 2 ignored by .gitignore, 1 over 8KB, 2 denied by path scoping, 1 .git directory]"

func TestGrepFilesWithMatches(t *testing.T) {
	c, dir := startSearchCore(t)
	all := "$DIR/sub/again.log\n$DIR/keep.log\n$DIR/huge.txt\n$DIR/crlf.txt\n$DIR/link-in\n$DIR/src/util.go\n$DIR/src/main.go\n$DIR/notes.md\n"
	runSearchCases(t, c, dir, "grep", []searchCase{
		{"default mode, newest first", map[string]any{"pattern": "needle"}, all + "\n" + fullSkips},
		{"explicit mode and path", map[string]any{"pattern": "needle", "path": dir, "output_mode": "files_with_matches"}, all + "\n" + fullSkips},
		{"include on the name with braces", map[string]any{"pattern": "needle", "include": "*.{log,md}"},
			"$DIR/sub/again.log\n$DIR/keep.log\n$DIR/notes.md\n\n[Skipped: 2 ignored by .gitignore, 1 denied by path scoping, 1 .git directory]"},
		{"include on the relative path", map[string]any{"pattern": "needle", "include": "src/**/*.go"},
			"$DIR/src/util.go\n$DIR/src/main.go\n\n[Skipped: 1 ignored by .gitignore, 1 denied by path scoping, 1 .git directory]"},
		{"type", map[string]any{"pattern": "Println", "type": "go"},
			"$DIR/src/main.go\n\n[Skipped: 1 ignored by .gitignore, 1 denied by path scoping, 1 .git directory]"},
		{"ignored file named explicitly", map[string]any{"pattern": "needle", "path": "drop.log"}, "$DIR/drop.log\n\n[Skipped: none]"},
		{"symlink in scope named explicitly", map[string]any{"pattern": "needle", "path": "link-in"}, "$DIR/src/util.go\n\n[Skipped: none]"},
		{"binary named explicitly", map[string]any{"pattern": "needle", "path": "bin.dat"}, "No matches for `needle` in $DIR/bin.dat.\n\n[Skipped: 1 binary]"},
		{"no match says so", map[string]any{"pattern": "absent", "type": "md"},
			"No matches for `absent` in $DIR (type md).\n\n[Skipped: 1 ignored by .gitignore, 1 denied by path scoping, 1 .git directory]"},
		{"regex alternation", map[string]any{"pattern": `needle (one|kept)\b`}, "$DIR/keep.log\n$DIR/src/main.go\n\n" + fullSkips},
		{"case insensitive", map[string]any{"pattern": "NEEDLE TWO", "case_insensitive": true}, "$DIR/src/main.go\n\n" + fullSkips},
		{"not multiline: no match across lines", map[string]any{"pattern": "begin.*end"}, "No matches for `begin.*end` in $DIR.\n\n" + fullSkips},
		{"multiline", map[string]any{"pattern": `begin\nmiddle`, "multiline": true}, "$DIR/multi.txt\n\n" + fullSkips},
	})
}

func TestGrepContent(t *testing.T) {
	c, dir := startSearchCore(t)
	long := strings.Repeat("x", 2000) + " [... line cut: 2000 of 5007 characters shown]"
	runSearchCases(t, c, dir, "grep", []searchCase{
		{"context groups, newest file first", map[string]any{"pattern": "needle", "path": "src", "output_mode": "content", "case_insensitive": true, "context": 1},
			"$DIR/src/util.go-2-\n$DIR/src/util.go:3:func util() string { return \"needle\" }\n--\n" +
				"$DIR/src/main.go-5-func main() {\n$DIR/src/main.go:6:\tfmt.Println(\"needle one\")\n$DIR/src/main.go-7-\t// filler\n--\n" +
				"$DIR/src/main.go-9-\t// filler\n$DIR/src/main.go:10:\tfmt.Println(\"Needle two\")\n$DIR/src/main.go-11-}\n\n[Skipped: none]"},
		{"before and after differ; adjacent groups merge", map[string]any{"pattern": "needle", "path": "src/main.go", "output_mode": "content", "case_insensitive": true, "context_before": 3, "context_after": 0},
			"$DIR/src/main.go-3-import \"fmt\"\n$DIR/src/main.go-4-\n$DIR/src/main.go-5-func main() {\n$DIR/src/main.go:6:\tfmt.Println(\"needle one\")\n" +
				"$DIR/src/main.go-7-\t// filler\n$DIR/src/main.go-8-\t// filler\n$DIR/src/main.go-9-\t// filler\n$DIR/src/main.go:10:\tfmt.Println(\"Needle two\")\n\n[Skipped: none]"},
		{"no context, no separators", map[string]any{"pattern": "needle", "path": "src", "output_mode": "content"},
			"$DIR/src/util.go:3:func util() string { return \"needle\" }\n$DIR/src/main.go:6:\tfmt.Println(\"needle one\")\n\n[Skipped: none]"},
		{"without line numbers", map[string]any{"pattern": "needle", "path": "src", "output_mode": "content", "line_numbers": false, "context_after": 1},
			"$DIR/src/util.go:func util() string { return \"needle\" }\n--\n$DIR/src/main.go:\tfmt.Println(\"needle one\")\n$DIR/src/main.go-\t// filler\n\n[Skipped: none]"},
		{"crlf lines shown without carriage returns", map[string]any{"pattern": "needle$", "path": "crlf.txt", "output_mode": "content"},
			"$DIR/crlf.txt:1:first needle\n$DIR/crlf.txt:3:third needle\n\n[Skipped: none]"},
		{"huge line cut", map[string]any{"pattern": "needle", "path": "huge.txt", "output_mode": "content"},
			"$DIR/huge.txt:1:" + long + "\n$DIR/huge.txt:2:tail needle\n\n[Skipped: none]"},
		{"multiline match shows every line it spans", map[string]any{"pattern": "begin.*end", "multiline": true, "output_mode": "content"},
			"$DIR/multi.txt:1:begin\n$DIR/multi.txt:2:middle\n$DIR/multi.txt:3:end\n\n" + fullSkips},
	})
}

func TestGrepCount(t *testing.T) {
	c, dir := startSearchCore(t)
	runSearchCases(t, c, dir, "grep", []searchCase{
		{"matching lines per file", map[string]any{"pattern": "needle", "output_mode": "count", "case_insensitive": true, "type": "go"},
			"$DIR/src/util.go:1\n$DIR/src/main.go:2\n\n[Skipped: 1 ignored by .gitignore, 1 denied by path scoping, 1 .git directory]"},
		{"lines, not matches", map[string]any{"pattern": "e", "output_mode": "count", "path": "crlf.txt"}, "$DIR/crlf.txt:3\n\n[Skipped: none]"},
		{"multiline counts spanned lines", map[string]any{"pattern": `begin\nmiddle`, "multiline": true, "output_mode": "count", "path": "multi.txt"}, "$DIR/multi.txt:2\n\n[Skipped: none]"},
	})
}

func TestGrepPaging(t *testing.T) {
	c, dir := startSearchCore(t)
	ctxArgs := func(offset, limit int) map[string]any {
		return map[string]any{"pattern": "needle", "path": "src", "output_mode": "content", "case_insensitive": true, "context": 1, "offset": offset, "head_limit": limit}
	}
	runSearchCases(t, c, dir, "grep", []searchCase{
		{"first page", map[string]any{"pattern": "needle", "head_limit": 3},
			"$DIR/sub/again.log\n$DIR/keep.log\n$DIR/huge.txt\n\n[Showing files 1-3 of 8. Pass offset: 3 for more.]\n" + fullSkips},
		{"middle page", map[string]any{"pattern": "needle", "head_limit": 2, "offset": 3},
			"$DIR/crlf.txt\n$DIR/link-in\n\n[Showing files 4-5 of 8. Pass offset: 5 for more.]\n" + fullSkips},
		{"last page", map[string]any{"pattern": "needle", "head_limit": 3, "offset": 6},
			"$DIR/src/main.go\n$DIR/notes.md\n\n[Showing files 7-8 of 8.]\n" + fullSkips},
		{"limit 1", map[string]any{"pattern": "needle", "head_limit": 1},
			"$DIR/sub/again.log\n\n[Showing files 1-1 of 8. Pass offset: 1 for more.]\n" + fullSkips},
		{"limit 0 is no limit", map[string]any{"pattern": "x", "path": "many", "head_limit": 0, "offset": 999},
			"$DIR/many/f0001.txt\n$DIR/many/f0000.txt\n\n[Showing files 1000-1001 of 1001.]\n[Skipped: none]"},
		{"default limit 250", map[string]any{"pattern": "x", "path": "many", "output_mode": "count", "offset": 750},
			manyCounts(250, 750) + "\n[Showing files 751-1000 of 1001. Pass offset: 1000 for more.]\n[Skipped: none]"},
		{"offset at the end", map[string]any{"pattern": "needle", "offset": 8}, "\n[Offset 8 is past the end: there are 8 files.]\n" + fullSkips},
		{"offset past the end", map[string]any{"pattern": "needle", "offset": 100}, "\n[Offset 100 is past the end: there are 8 files.]\n" + fullSkips},
		{"content page starts mid-group", ctxArgs(2, 3),
			"$DIR/src/main.go-5-func main() {\n$DIR/src/main.go:6:\tfmt.Println(\"needle one\")\n$DIR/src/main.go-7-\t// filler\n\n[Showing lines 3-5 of 8. Pass offset: 5 for more.]\n[Skipped: none]"},
		{"content page across groups", ctxArgs(1, 3),
			"$DIR/src/util.go:3:func util() string { return \"needle\" }\n--\n$DIR/src/main.go-5-func main() {\n$DIR/src/main.go:6:\tfmt.Println(\"needle one\")\n\n[Showing lines 2-4 of 8. Pass offset: 4 for more.]\n[Skipped: none]"},
		{"content offset past the end", ctxArgs(8, 3), "\n[Offset 8 is past the end: there are 8 lines.]\n[Skipped: none]"},
	})
}

// manyCounts is the count-mode listing of n files of many/, newest first,
// after skipping the newest skip.
func manyCounts(n, skip int) string {
	var sb strings.Builder
	for i := 1000 - skip; i > 1000-skip-n; i-- {
		fmt.Fprintf(&sb, "$DIR/many/f%04d.txt:1\n", i)
	}
	return sb.String()
}

func TestGrepErrors(t *testing.T) {
	c, _ := startSearchCore(t)
	tests := []struct {
		name, code string
		args       map[string]any
		want       string
	}{
		{"bad regex", "INVALID_INPUT", map[string]any{"pattern": "(open"}, "missing closing )"},
		{"lookaround", "INVALID_INPUT", map[string]any{"pattern": "(?=x)"}, "RE2"},
		{"empty pattern", "INVALID_INPUT", map[string]any{"pattern": ""}, "empty"},
		{"unknown type lists known ones", "INVALID_INPUT", map[string]any{"pattern": "x", "type": "cobol"}, "go, html"},
		{"bad include", "INVALID_INPUT", map[string]any{"pattern": "x", "include": "a[b"}, "a[b"},
		{"bad mode", "INVALID_INPUT", map[string]any{"pattern": "x", "output_mode": "lines"}, "files_with_matches, content, count"},
		{"negative limit", "INVALID_INPUT", map[string]any{"pattern": "x", "head_limit": -1}, "head_limit"},
		{"negative context", "INVALID_INPUT", map[string]any{"pattern": "x", "context": -2}, "context"},
		{"unknown parameter", "INVALID_INPUT", map[string]any{"pattern": "x", "glob": "*.go"}, "glob"},
		{"denied directory", "ACCESS_DENIED", map[string]any{"pattern": "x", "path": "secret"}, "secret"},
		{"symlink out of scope", "ACCESS_DENIED", map[string]any{"pattern": "x", "path": "link-out"}, "link-out"},
		{"missing path", "PATH_NOT_FOUND", map[string]any{"pattern": "x", "path": "nope"}, "nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.fails(tt.code, "grep", tt.args); !strings.Contains(got, tt.want) {
				t.Errorf("grep %v: got %q, want it to contain %q", tt.args, got, tt.want)
			}
		})
	}
}

func TestGlob(t *testing.T) {
	c, dir := startSearchCore(t)
	var capped strings.Builder
	for i := 1000; i > 0; i-- {
		fmt.Fprintf(&capped, "$DIR/many/f%04d.txt\n", i)
	}
	runSearchCases(t, c, dir, "glob", []searchCase{
		{"recursive", map[string]any{"pattern": "**/*.go"}, "$DIR/src/util.go\n$DIR/src/main.go\n\n[Skipped: 1 ignored by .gitignore, 1 denied by path scoping, 1 .git directory]"},
		{"braces; ignored files left out", map[string]any{"pattern": "**/*.{log,md}"},
			"$DIR/sub/again.log\n$DIR/keep.log\n$DIR/notes.md\n\n[Skipped: 2 ignored by .gitignore, 1 denied by path scoping, 1 .git directory]"},
		{"class, directories pruned silently", map[string]any{"pattern": "src/[m]*.go"}, "$DIR/src/main.go\n\n[Skipped: none]"},
		{"top level only without **; the size limit does not apply", map[string]any{"pattern": "*.txt"}, "$DIR/multi.txt\n$DIR/big.txt\n$DIR/huge.txt\n$DIR/crlf.txt\n\n[Skipped: none]"},
		{"symlinks: in scope listed, out of scope counted", map[string]any{"pattern": "link-*"}, "$DIR/link-in\n\n[Skipped: 1 denied by path scoping]"},
		{"within path", map[string]any{"pattern": "*.go", "path": "src"}, "$DIR/src/util.go\n$DIR/src/main.go\n\n[Skipped: none]"},
		{"absolute pattern", map[string]any{"pattern": dir + "/src/*.go"}, "$DIR/src/util.go\n$DIR/src/main.go\n\n[Skipped: none]"},
		{"no match", map[string]any{"pattern": "*.none"}, "No files match `*.none` in $DIR.\n\n[Skipped: none]"},
		{"capped with a note", map[string]any{"pattern": "many/*"},
			capped.String() + "\n[Showing the 1000 newest of 1001 matching files. Narrow the pattern or path to see the others.]\n[Skipped: none]"},
	})
	for _, tt := range []struct{ code, pattern, path string }{
		{"INVALID_INPUT", "a[b", ""},
		{"INVALID_INPUT", "", ""},
		{"INVALID_INPUT", "/abs/*.go", "src"},
		{"INVALID_INPUT", "*", "notes.md"},
		{"ACCESS_DENIED", "*", "secret"},
		{"PATH_NOT_FOUND", "*", "nope"},
	} {
		args := map[string]any{"pattern": tt.pattern}
		if tt.path != "" {
			args["path"] = tt.path
		}
		c.fails(tt.code, "glob", args)
	}
}

func TestSearchToolsAreReadOnly(t *testing.T) {
	c, _ := startSearchCore(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := c.session.ListTools(ctx, &mcp.ListToolsParams{})
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, tool := range res.Tools {
		if tool.Name == "grep" || tool.Name == "glob" {
			found++
			if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
				t.Errorf("tool %s: annotations %+v, want readOnlyHint true", tool.Name, tool.Annotations)
			}
		}
	}
	if found != 2 {
		t.Errorf("tools/list has %d of grep and glob, want both", found)
	}
}
