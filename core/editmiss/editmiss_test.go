package editmiss

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// src is the file most cases diagnose a miss in.
const src = "package p\n\nfunc total(xs []int) int {\n\tsum := 0 // \"zero\"\n\tfor _, x := range xs {\n\t\tsum += x \n\t}\n\treturn sum\n}\n"

func TestDiagnose(t *testing.T) {
	tests := []struct {
		name        string
		data, old   string
		first, last int
		kinds       []Kind
		detail      string // a substring of the first cause's words
	}{
		{"spaces for tabs", src, "    for _, x := range xs {\n        sum += x", 5, 6, []Kind{Indentation}, "tabs against spaces: the file indents with 1 tab, old_str with 4 spaces"},
		{"one tab too many", src, "\t\tfor _, x := range xs {\n\t\t\tsum += x", 5, 6, []Kind{Indentation}, "depth differs: the file indents with 1 tab, old_str with 2 tabs"},
		{"trailing space missing", src, "\t\tsum += x\n\t}", 6, 7, []Kind{TrailingSpace}, "the file's line ends with 1 space, old_str's with nothing"},
		{"crlf old in an lf file", src, "\tfor _, x := range xs {\r\n\t\tsum += x \r\n", 5, 6, []Kind{LineEndings}, "old_str ends its lines with CRLF"},
		{"typographic quotes", src, "sum := 0 // \u201czero\u201d", 4, 4, []Kind{LookAlike}, "old_str has \"\u201c\" (U+201C) where the file has \"\\\"\""},
		{"look-alike in the file", "a := \u2018x\u2019\nb := 1\n", "a := 'x'\nb := 1", 1, 2, []Kind{LookAlike}, "the file has \"\u2018\" (U+2018) where old_str has \"'\""},
		{"escaped newlines", src, `\treturn sum\n}`, 8, 9, []Kind{Escaping}, `a literal \n`},
		{"escaped tabs", src, `\treturn sum`, 8, 8, []Kind{Escaping}, `a literal \t`},
		{"a word differs", src, "func totals(xs []int) int {\n\tsum := 0", 3, 4, []Kind{Differs}, "the file has `total` where old_str has `totals`"},
		{"part of a line, a word differs", src, "range ys {", 5, 5, []Kind{Differs}, "the file has `xs` where old_str has `ys`"},
		{"a line the file lacks", src, "\tfor _, x := range xs {\n\t\tsum += x \n\t\tcount++\n\t}", 5, 8, []Kind{Differs}, ""},
		{"mixture", src, "    for _, x := range xz {  \n        sum += x", 5, 6, []Kind{Indentation, TrailingSpace, Differs}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Diagnose([]byte(tt.data), tt.old, Limits{})
			if m.First != tt.first || m.Last != tt.last {
				t.Errorf("window: got lines %d–%d, want %d–%d\n%s", m.First, m.Last, tt.first, tt.last, m)
			}
			var kinds []Kind
			for _, c := range m.Causes {
				kinds = append(kinds, c.Kind)
			}
			for _, k := range tt.kinds {
				if !slices.Contains(kinds, k) {
					t.Errorf("causes: got %v, want %v among them\n%s", kinds, k, m)
				}
			}
			if tt.detail != "" && (len(m.Causes) == 0 || !strings.Contains(m.Causes[0].Detail, tt.detail)) {
				t.Errorf("got causes %v, want the first to say %q", m.Causes, tt.detail)
			}
		})
	}
}

// TestDiagnoseOthers: windows that match as well are named, the one whose
// whitespace is the edit's first, and at most MaxPlaces of them.
func TestDiagnoseOthers(t *testing.T) {
	m := Diagnose([]byte("\tx := 1\n  x := 1\n\tx := 1\n"), "  x := 1 ", Limits{})
	if m.First != 2 || !slices.Equal(m.Others, []int{1, 3}) {
		t.Errorf("got window %d and others %v, want 2 and [1 3]", m.First, m.Others)
	}
	if s := m.String(); !strings.Contains(s, "It matches as closely at lines 1, 3 too.") {
		t.Errorf("got %q, want it to name lines 1 and 3", s)
	}
	many := Diagnose([]byte(strings.Repeat("\tx := 1\n", 100)), "x := 1 ", Limits{})
	if len(many.Others) != MaxPlaces {
		t.Errorf("100 matches: got %d others, want %d", len(many.Others), MaxPlaces)
	}
}

// TestDiagnoseBounded: past MaxLines the search gives up and says where;
// the window shown stops at MaxWindow lines; a line shown stops at
// maxLineShown bytes.
func TestDiagnoseBounded(t *testing.T) {
	var sb strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&sb, "line %d of the file\n", i+1)
	}
	m := Diagnose([]byte(sb.String()), "line 900 of the fiel", Limits{MaxLines: 100})
	if m.GaveUp != 100 || !strings.Contains(m.String(), "The search gave up after line 100") {
		t.Errorf("got GaveUp %d and %q, want it to give up after line 100", m.GaveUp, m.String())
	}
	long := strings.Repeat("a long line of text\n", 60)
	m = Diagnose([]byte(long), strings.ReplaceAll(long, "text", "txet"), Limits{})
	if len(m.Window) != MaxWindow || !strings.Contains(m.String(), fmt.Sprintf("[... lines %d–60 not shown]", MaxWindow+1)) {
		t.Errorf("got a window of %d lines: %q, want %d and a note", len(m.Window), m.String(), MaxWindow)
	}
	repeats := strings.Repeat("a line\n", 50_000)
	m = Diagnose([]byte(repeats), strings.Repeat("a line\n", 40_000)+"b line\n", Limits{})
	if m.GaveUp == 0 || !strings.Contains(m.String(), fmt.Sprintf("The search gave up after line %d", m.GaveUp)) {
		t.Errorf("40,000 repeated lines in 50,000: got GaveUp %d, want the comparisons' budget to stop the search", m.GaveUp)
	}
	wide := strings.Repeat("w", 5000)
	if s := Diagnose([]byte(wide+"\n"), wide[:4000]+"x", Limits{}).String(); len(s) > 1000 {
		t.Errorf("a 5,000-byte line: got %d bytes of diagnosis, want the line cut", len(s))
	}
}

// TestDiagnoseNothing: an edit that is only whitespace, or an empty
// file, has no window, and says so.
func TestDiagnoseNothing(t *testing.T) {
	for _, tc := range []struct{ data, old string }{{src, " \n\t\n"}, {"", "x"}} {
		m := Diagnose([]byte(tc.data), tc.old, Limits{})
		if m.First != 0 || m.String() != "Nothing in the file resembles old_str." {
			t.Errorf("Diagnose(%q, %q): got %d, %q, want no window", tc.data, tc.old, m.First, m)
		}
	}
}
