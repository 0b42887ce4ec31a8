package lsp

import (
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	e := func(line int, msg string) Diagnostic {
		return Diagnostic{Severity: Error, Line: line, Col: 1, Message: msg, Source: "x"}
	}
	w := func(line int, msg string) Diagnostic {
		return Diagnostic{Severity: Warning, Line: line, Col: 1, Message: msg, Source: "x"}
	}
	cases := []struct {
		name          string
		before, after []Diagnostic
		newN, fixedN  int
	}{
		{"nothing", nil, nil, 0, 0},
		{"moved only", []Diagnostic{e(3, "a")}, []Diagnostic{e(9, "a")}, 0, 0},
		{"one new", []Diagnostic{e(3, "a")}, []Diagnostic{e(3, "a"), e(4, "b")}, 1, 0},
		{"one fixed", []Diagnostic{e(3, "a"), w(4, "b")}, []Diagnostic{w(4, "b")}, 0, 1},
		{"a second of the same", []Diagnostic{e(3, "a")}, []Diagnostic{e(3, "a"), e(7, "a")}, 1, 0},
		{"severity changed", []Diagnostic{w(3, "a")}, []Diagnostic{e(3, "a")}, 1, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := diff("f.go", c.before, c.after)
			if len(got.New) != c.newN || len(got.Fixed) != c.fixedN {
				t.Errorf("got %d new, %d fixed (%+v), want %d, %d", len(got.New), len(got.Fixed), got, c.newN, c.fixedN)
			}
		})
	}
}

func TestRenderCapsAndOrders(t *testing.T) {
	var many []Diagnostic
	for i := range 30 {
		many = append(many, Diagnostic{Severity: Warning, Line: i + 1, Col: 1, Message: "w"})
	}
	got := Render([]Change{
		{Path: "/r/b.go", New: many},
		{Path: "/r/a.go", New: []Diagnostic{{Severity: Error, Line: 2, Col: 3, Message: "boom\n  detail", Source: "compiler"}}},
	}, "/r", "")
	lines := strings.Split(got, "\n")
	if want := "[diagnostics] a.go: 1 new problem"; lines[0] != want {
		t.Errorf("first line: got %q, want %q (errors first)", lines[0], want)
	}
	if want := "  new   error 2:3 boom detail (compiler)"; lines[1] != want {
		t.Errorf("second line: got %q, want %q (one line per problem)", lines[1], want)
	}
	if want := "[diagnostics] … and 11 more not shown: the diagnostics tool lists every current problem"; lines[len(lines)-1] != want {
		t.Errorf("last line: got %q, want %q (at most 20 problems)", lines[len(lines)-1], want)
	}
}
