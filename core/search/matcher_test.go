package search

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// matchingLines runs a matcher line by line over text and returns the
// matching lines' text.
func matchingLines(t *testing.T, pattern string, fold bool, text string) []string {
	t.Helper()
	m, err := NewMatcher(pattern, fold, false)
	if err != nil {
		t.Fatalf("NewMatcher(%q): %v", pattern, err)
	}
	var got []string
	m.eachLine([]byte(text), func(start, end int) bool {
		got = append(got, text[start:end])
		return true
	})
	return got
}

func TestEachLine(t *testing.T) {
	tests := []struct {
		name, pattern string
		fold          bool
		text          string
		want          []string
	}{
		{"literal", "foo", false, "a foo\nbar\nfoo b\n", []string{"a foo", "foo b"}},
		{"no final newline", "foo", false, "x\nfoo", []string{"foo"}},
		{"crlf stripped", "foo", false, "foo\r\nbar\r\nfoo\r\n", []string{"foo", "foo"}},
		{"dollar before crlf", "o$", false, "foo\r\nbar\r\n", []string{"foo"}},
		{"dollar before crlf without literal", `\w$`, false, "foo\r\n  \r\n", []string{"foo"}},
		{"caret per line", "^b", false, "abc\nbcd\n", []string{"bcd"}},
		{"begin text is line start", `\Ab`, false, "abc\nbcd\n", []string{"bcd"}},
		{"end text is line end", `c\z`, false, "abc\ncd\n", []string{"abc"}},
		{"no match across lines", `foo\s+bar`, false, "foo\nbar\nfoo bar\n", []string{"foo bar"}},
		{"dot does not cross lines", "a.b", false, "a\nb\naxb\n", []string{"axb"}},
		{"negated class does not cross lines", "a[^x]b", false, "a\nb\n", nil},
		{"case insensitive", `\bdeadline\b`, true, "Deadline\ndeadlines\nDEADLINE x\n", []string{"Deadline", "DEADLINE x"}},
		{"alternation", "Marshal(Indent|JSON)|Unmarshal", false, "json.MarshalIndent\nmarshal\nUnmarshal(x)\nMarshal(\n", []string{"json.MarshalIndent", "Unmarshal(x)"}},
		{"candidate literal but no match", `\bfoo\b`, false, "foobar\nfoo\n", []string{"foo"}},
		{"empty lines", "^$", false, "a\n\nb\n\n", []string{"", ""}},
		{"no literal", `[0-9]{3}`, false, "ab\n12\n123\n", []string{"123"}},
		{"nul bytes are text here", "x", false, "\x00x\n", []string{"\x00x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := matchingLines(t, tt.pattern, tt.fold, tt.text)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("lines matching %q in %q (-want +got):\n%s", tt.pattern, tt.text, diff)
			}
		})
	}
}

func TestEachLineHugeLine(t *testing.T) {
	huge := strings.Repeat("x", 3<<20)
	text := huge + "needle" + huge + "\nshort needle\n"
	got := matchingLines(t, "needle", false, text)
	if len(got) != 2 || len(got[0]) != 6<<20+6 || got[1] != "short needle" {
		t.Errorf("got %d lines (first %d bytes), want the huge line and the short one", len(got), len(got[0]))
	}
}

func TestSpannedLines(t *testing.T) {
	text := "a\nfoo\nbar\nbaz\nfoo\nbar\n"
	m, err := NewMatcher(`foo\nbar`, false, true)
	if err != nil {
		t.Fatal(err)
	}
	got := spannedLines(m, []byte(text), countLines([]byte(text)))
	if diff := cmp.Diff([]int{2, 3, 5, 6}, got); diff != "" {
		t.Errorf("spanned lines (-want +got):\n%s", diff)
	}
	m, _ = NewMatcher(`a.*z`, false, true) // (?s): . crosses lines
	if got := spannedLines(m, []byte(text), 6); !cmp.Equal(got, []int{1, 2, 3, 4}) {
		t.Errorf("a.*z spans lines %v, want [1 2 3 4]", got)
	}
	m, _ = NewMatcher(`$`, false, true) // an empty match after the last newline covers no line
	if got := spannedLines(m, []byte("x\n"), 1); !cmp.Equal(got, []int{1}) {
		t.Errorf("$ spans lines %v, want [1]", got)
	}
}

func TestNewMatcherErrors(t *testing.T) {
	for _, p := range []string{"(foo", "a{2,1}", `\p{Nope}`, "(?<=x)y"} {
		if _, err := NewMatcher(p, false, false); err == nil || !strings.Contains(err.Error(), "error parsing regexp") {
			t.Errorf("NewMatcher(%q) error = %v, want a regexp parse error", p, err)
		}
	}
}
