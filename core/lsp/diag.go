package lsp

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Severity is an LSP DiagnosticSeverity: 1 error, 2 warning, 3
// information, 4 hint. A server that sends none means an error (the
// client decides, says the specification; Boris errs on the side of it).
type Severity int

// The severities, as the specification numbers them.
const (
	Error   Severity = 1
	Warning Severity = 2
	Info    Severity = 3
	Hint    Severity = 4
)

func (s Severity) String() string {
	switch s {
	case Warning:
		return "warning"
	case Info:
		return "info"
	case Hint:
		return "hint"
	}
	return "error"
}

// Diagnostic is one problem a server reported, positions 1-based.
type Diagnostic struct {
	Severity Severity
	Line     int
	Col      int
	Message  string
	Source   string
	Code     string
}

// key is what makes two diagnostics the same problem across an edit: not
// the position, which an edit above it moves.
func (d Diagnostic) key() string {
	return fmt.Sprintf("%d\x00%s\x00%s\x00%s", d.Severity, d.Source, d.Code, d.Message)
}

// String renders d as one line: "error 12:5 undefined: x (compiler)".
func (d Diagnostic) String() string {
	msg := strings.Join(strings.Fields(d.Message), " ") // one line, whatever the server sent
	if len(msg) > maxMessageChars {
		msg = msg[:maxMessageChars] + "…"
	}
	s := fmt.Sprintf("%s %d:%d %s", d.Severity, d.Line, d.Col, msg)
	if d.Source != "" {
		s += " (" + d.Source + ")"
	}
	return s
}

// maxMessageChars bounds one diagnostic's message in a result.
const maxMessageChars = 300

// wireDiagnostic is a Diagnostic as LSP sends it.
type wireDiagnostic struct {
	Range struct {
		Start struct {
			Line      int `json:"line"`
			Character int `json:"character"`
		} `json:"start"`
	} `json:"range"`
	Severity Severity `json:"severity"`
	Code     any      `json:"code"`
	Source   string   `json:"source"`
	Message  string   `json:"message"`
}

// fromWire converts what a server sent, sorted errors first.
func fromWire(in []wireDiagnostic) []Diagnostic {
	out := make([]Diagnostic, 0, len(in))
	for _, w := range in {
		d := Diagnostic{
			Severity: cmp.Or(w.Severity, Error),
			Line:     w.Range.Start.Line + 1,
			Col:      w.Range.Start.Character + 1,
			Message:  w.Message,
			Source:   w.Source,
		}
		if w.Code != nil {
			d.Code = fmt.Sprint(w.Code)
		}
		out = append(out, d)
	}
	sortDiagnostics(out)
	return out
}

// sortDiagnostics orders ds errors first, then by position.
func sortDiagnostics(ds []Diagnostic) {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		return cmp.Or(cmp.Compare(a.Severity, b.Severity), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
}

// Change is what an edit did to one file's problems.
type Change struct {
	Path  string
	New   []Diagnostic // in after, not before
	Fixed []Diagnostic // in before, not after (positions as they were)
}

// Empty reports whether nothing changed.
func (c Change) Empty() bool { return len(c.New) == 0 && len(c.Fixed) == 0 }

// diff compares two sets of diagnostics of one file as multisets of
// problems (key): a problem that only moved is neither new nor fixed.
func diff(path string, before, after []Diagnostic) Change {
	count := map[string]int{}
	for _, d := range before {
		count[d.key()]++
	}
	c := Change{Path: path}
	for _, d := range after {
		if count[d.key()] > 0 {
			count[d.key()]--
			continue
		}
		c.New = append(c.New, d)
	}
	for i := len(before) - 1; i >= 0; i-- { // the leftovers, the last of equal ones first
		if d := before[i]; count[d.key()] > 0 {
			count[d.key()]--
			c.Fixed = append(c.Fixed, d)
		}
	}
	sortDiagnostics(c.Fixed)
	return c
}
