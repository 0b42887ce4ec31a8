package filesystem

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit"
)

func TestApplyFsEdits(t *testing.T) {
	tests := []struct {
		name, content string
		edits         []fsEdit
		want          string
	}{
		{"exact, first occurrence only", "a b a b\n", []fsEdit{{"a", "x"}}, "x b a b\n"},
		{"in order, each on the result", "one\n", []fsEdit{{"one", "two"}, {"two", "three"}}, "three\n"},
		{"CRLF in oldText matches LF content", "x\ny\n", []fsEdit{{"x\r\ny", "z"}}, "z\n"},
		{"replacement text with $ taken literally", "v\n", []fsEdit{{"v", "$&$1"}}, "$&$1\n"},
		{"empty oldText inserts at the start", "v\n", []fsEdit{{"", "top\n"}}, "top\nv\n"},
		{
			"whitespace drift keeps the file's indentation",
			"func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n",
			[]fsEdit{{"if x {\n    return 1\n}", "if y {\n    return 2\n}"}},
			"func f() {\n\tif y {\n\treturn 2\n}\n}\n",
		},
		{
			"relative indentation from oldText",
			"a\n  b\n    c\nd\n",
			[]fsEdit{{"b\n c", "B\n  C\n D"}},
			"a\n  B\n   C\n D\nd\n",
		},
		{
			"deeper new lines indented relative to the old",
			"  x\n    y\n",
			[]fsEdit{{"x\n  y", "x\n    y\n    z"}},
			"  x\n    y\n    z\n",
		},
		{"JavaScript whitespace: BOM trimmed", "\ufeffkey = 1\n", []fsEdit{{" key = 1", "key = 2"}}, "\ufeffkey = 2\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := applyFsEdits(tc.content, tc.edits)
			if err != nil {
				t.Fatalf("applyFsEdits: got error %v, want nil", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("applyFsEdits (-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplyFsEditsNotFound(t *testing.T) {
	_, err := applyFsEdits("a\nb\n", []fsEdit{{"a", "x"}, {"zzz\r\n", "y"}})
	var e *toolkit.Error
	if !errors.As(err, &e) || e.Code != toolkit.NotFoundInFile || !strings.HasPrefix(e.Msg, "Could not find exact match for edit:\nzzz\r\n\n") {
		t.Errorf("got %v, want [NOT_FOUND_IN_FILE] naming the edit's oldText as given", err)
	}
	// U+0085 is whitespace to Go but not to JavaScript: no loose match.
	if _, err := applyFsEdits("x\u0085\n", []fsEdit{{"x", "y"}, {"y", "z"}, {"q\n", ""}}); err == nil {
		t.Errorf("got nil, want not found")
	}
}

// TestApplyFsEditsMissHint: a missed edit says where the closest text is
// and why it differs, numbered as the edits before it left the file.
func TestApplyFsEditsMissHint(t *testing.T) {
	tests := []struct {
		name    string
		content string
		edits   []fsEdit
		want    []string
	}{
		{"look-alike quotes", "func f() {\n\ts := \"hi\"\n}\n", []fsEdit{{"s := \u201chi\u201d", "x"}},
			[]string{"The closest text is at line 2,", "     2\t\ts := \"hi\"", "look-alike characters, line 2: old_str has \"\u201c\" (U+201C) where the file has \"\\\"\"", "Nothing was changed."}},
		{"a word differs", "a\nfunc total(xs []int) int {\n\treturn 0\n}\n", []fsEdit{{"func totals(xs []int) int {\n\treturn 0", "x"}},
			[]string{"is at lines 2–3,", "the file has `total` where old_str has `totals`"}},
		{"after an earlier edit", "one\ntwo\nthree value\n", []fsEdit{{"one\n", ""}, {"three valeu", "x"}},
			[]string{"numbered as the 1 edit before it left the file", "at line 2,", "the file has `value` where old_str has `valeu`"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := applyFsEdits(tc.content, tc.edits)
			if err == nil {
				t.Fatal("got nil, want NOT_FOUND_IN_FILE")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("got %q, want it to say %q", err, w)
				}
			}
		})
	}
}

func TestIsCRLF(t *testing.T) {
	for s, want := range map[string]bool{"a\r\nb\r\n": true, "a\r\nb": true, "a\nb\r\n": false, "a": false, "a\n": false} {
		if got := isCRLF(s); got != want {
			t.Errorf("isCRLF(%q) = %t, want %t", s, got, want)
		}
	}
}

// The expected results here were checked against server-filesystem
// 2026.8.31 (lib.js applyFileEdits) and the patches are what server-filesystem 2026.8.31 (the diff
// package's createTwoFilesPatch) prints for the same input.
func TestUnifiedPatch(t *testing.T) {
	head := "Index: /f\n===================================================================\n--- /f\toriginal\n+++ /f\tmodified\n"
	tests := []struct{ name, before, after, want string }{
		{"no change", "a\n", "a\n", head},
		{"middle line", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "1\n2\n3\n4\n5\nsix\n7\n8\n9\n10\n",
			head + "@@ -2,9 +2,9 @@\n 2\n 3\n 4\n 5\n-6\n+six\n 7\n 8\n 9\n 10\n"},
		{"to an empty file", "", "a\nb\n", head + "@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"everything removed", "a\n", "", head + "@@ -1,1 +0,0 @@\n-a\n"},
		{"no final newline", "a\nb", "a\nc", head + "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"},
		{"a lone brace attributed as the diff package does", "f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n", "f() {\n\tif y {\n\treturn 2\n}\n}\n",
			head + "@@ -1,5 +1,5 @@\n f() {\n-\tif x {\n-\t\treturn 1\n-\t}\n+\tif y {\n+\treturn 2\n }\n+}\n"},
		{"two hunks more than 8 lines apart",
			"x\n1\n2\n3\n4\n5\n6\n7\n8\n9\ny\n", "X\n1\n2\n3\n4\n5\n6\n7\n8\n9\nY\n",
			head + "@@ -1,5 +1,5 @@\n-x\n+X\n 1\n 2\n 3\n 4\n@@ -7,5 +7,5 @@\n 6\n 7\n 8\n 9\n-y\n+Y\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, unifiedPatch("/f", tc.before, tc.after)); diff != "" {
				t.Errorf("unifiedPatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFencedDiff(t *testing.T) {
	if got, want := fencedDiff("x ``` y\n"), "````diff\nx ``` y\n````\n\n"; got != want {
		t.Errorf("fencedDiff: got %q, want %q", got, want)
	}
}

func TestFormatSize(t *testing.T) {
	tests := map[int64]string{0: "0 B", -1: "0 B", 1: "1 B", 1023: "1023 B", 1024: "1.00 KB", 1152: "1.13 KB", 1536: "1.50 KB",
		1048576: "1.00 MB", 5 << 30: "5.00 GB", 3 << 50: "3072.00 TB"}
	for n, want := range tests {
		if got := formatSize(n); got != want {
			t.Errorf("formatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestHeadTailLines(t *testing.T) {
	text := "one\r\ntwo\nthree\n"
	heads := map[float64]string{1: "one\r", 2: "one\r\ntwo", 9: "one\r\ntwo\nthree", 1.5: "one\r\ntwo", -1: ""}
	for n, want := range heads {
		if got := headLines(text, n); got != want {
			t.Errorf("headLines(%v) = %q, want %q", n, got, want)
		}
	}
	tails := map[float64]string{1: "", 2: "three\n", 3: "two\nthree\n", 9: "one\ntwo\nthree\n", 2.7: "three\n", -2: ""}
	for n, want := range tails {
		if got := tailLines(text, n); got != want {
			t.Errorf("tailLines(%v) = %q, want %q", n, got, want)
		}
	}
}

// TestFsEditDiffLineEnds: the diff is of the texts with CRLF as LF, the
// edited one included, as server-filesystem's (its createUnifiedDiff
// normalizes both sides): a newText ending in a CR before the line's LF
// shows "+x", not "+x\r", while the CR is written as given.
func TestFsEditDiffLineEnds(t *testing.T) {
	tests := []struct {
		name, file, newText, hunk, written string
	}{
		{"LF file, newText ending in CR", "a\nb\n", "x\r", "@@ -1,2 +1,2 @@\n-a\n+x\n b\n", "x\r\nb\n"},
		{"LF file, plain newText", "a\nb\n", "x", "@@ -1,2 +1,2 @@\n-a\n+x\n b\n", "x\nb\n"},
		{"CRLF file, newText with CRLF", "a\r\nb\r\n", "a\r\nx", "@@ -1,2 +1,3 @@\n a\n+x\n b\n", "a\r\nx\r\nb\r\n"},
		{"lone CRs stay", "a\rb\r", "x\r", "-a\rb\r\n\\ No newline at end of file\n+x\r\rb\r\n", "x\r\rb\r"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			b := newTestTools(t, dir)
			path := filepath.Join(b.d.Dir(), "f.txt")
			if err := os.WriteFile(path, []byte(tt.file), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := b.fsEditFile(context.Background(), nil, fsEditParams{Path: path, Edits: []fsEdit{{OldText: "a", NewText: tt.newText}}})
			if err != nil {
				t.Fatal(err)
			}
			if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, tt.hunk) {
				t.Errorf("diff: got %q, want it to hold %q", text, tt.hunk)
			}
			if got, _ := os.ReadFile(path); string(got) != tt.written {
				t.Errorf("written: got %q, want %q", got, tt.written)
			}
		})
	}
}
