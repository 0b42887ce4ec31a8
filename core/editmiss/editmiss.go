// Package editmiss provides the diagnosis of an edit whose text was not
// found: the window of the file closest to it, and why the two differ
// (indentation, trailing whitespace, line endings, look-alike characters,
// escaping, or a differing word), so an agent can fix its next call
// without viewing the file again. It only reads: nothing here edits.
package editmiss

import (
	"strings"
)

// Limits bound the search on huge files. The zero value means the
// defaults (DefaultMaxLines, DefaultMaxOldLines).
type Limits struct {
	// MaxLines is how many lines of the file are searched; past it the
	// search gives up and Miss.GaveUp says at which line.
	MaxLines int
	// MaxOldLines is how many of the edit's lines place the window.
	MaxOldLines int
}

// Default limits: a 200,000-line file is searched whole in a few
// milliseconds; the window is placed by at most 200 of the edit's lines.
const (
	DefaultMaxLines    = 200_000
	DefaultMaxOldLines = 200
)

func (l Limits) withDefaults() Limits {
	if l.MaxLines <= 0 {
		l.MaxLines = DefaultMaxLines
	}
	if l.MaxOldLines <= 0 {
		l.MaxOldLines = DefaultMaxOldLines
	}
	return l
}

// Miss is the diagnosis of one edit text that does not occur in a file.
type Miss struct {
	// First and Last are the 1-based lines of the window closest to the
	// edit's text, as the file reads now; 0 when none was found.
	First, Last int
	// Causes say why the window differs from the edit's text, most
	// telling first.
	Causes []Cause
	// Others are the first lines of further windows that match the edit
	// as well as First does (capped at MaxPlaces).
	Others []int
	// Close reports whether the window equals the edit's text once the
	// causes are accounted for (whitespace, line ends, look-alikes,
	// escapes): the agent meant it.
	Close bool
	// GaveUp is the line past which the file was not searched; 0 when
	// the whole file was.
	GaveUp int
	// Lines is how many lines the file has (when searched whole).
	Lines int
	// Window is the text of lines First to Last (at most MaxWindow of
	// them), without line ends.
	Window []string
}

// MaxPlaces caps the further windows a Miss names.
const MaxPlaces = 20

// Diagnose looks for the text of old in data, which does not hold it
// exactly, and says where the closest text is and why it differs.
func Diagnose(data []byte, old string, lim Limits) Miss {
	lim = lim.withDefaults()
	file := fileLines(string(data), lim.MaxLines)
	m := Miss{Lines: len(file.lines)}
	if file.cut {
		m.GaveUp, m.Lines = lim.MaxLines, 0
	}
	o := newEdit(old)
	if o.blank() {
		return m
	}
	keys := fileKeys(file.lines)
	best := place(file.lines, keys, o, lim)
	if hasEscapes(old) {
		for _, text := range []string{unescape(old), unescapeBreaks(old)} {
			u := newEdit(text)
			if alt := place(file.lines, keys, u, lim); alt.better(best) {
				alt.escaped = true
				best, o = alt, u
			}
		}
	}
	if best.stopped > 0 && (m.GaveUp == 0 || best.stopped < m.GaveUp) {
		m.GaveUp = best.stopped
	}
	if best.start < 0 {
		return m
	}
	m.First, m.Last = best.start+1, min(best.start+len(o.lines), len(file.lines))
	m.Close = best.exact
	m.Window = file.lines[best.start:min(m.Last, best.start+MaxWindow)]
	m.Causes = classify(file.lines, best.start, o)
	if best.escaped {
		m.Causes = append([]Cause{{Kind: Escaping, Line: m.First, Count: 1, Detail: escapeDetail(old)}}, m.Causes...)
	}
	for _, s := range best.others {
		m.Others = append(m.Others, s+1)
	}
	return m
}

// lines is a file's lines, without their line feeds (a CRLF line keeps
// its \r), and whether the search stopped before the end.
type lines struct {
	lines []string
	cut   bool
}

// fileLines splits s into at most max lines.
func fileLines(s string, max int) lines {
	n := strings.Count(s, "\n") + 1
	if strings.HasSuffix(s, "\n") {
		n--
	}
	out := lines{lines: make([]string, 0, min(n, max))}
	for len(s) > 0 && len(out.lines) < max {
		l, rest, _ := strings.Cut(s, "\n")
		out.lines = append(out.lines, l)
		s = rest
	}
	out.cut = len(s) > 0
	return out
}

// edit is the text sought, split into lines, its keys computed once.
type edit struct {
	text  string
	lines []string // without line feeds; blank lines at both ends dropped
	keys  []string
	skip  int  // blank lines dropped at the start
	crlf  bool // the text ends its lines with \r\n
}

// newEdit splits old into the lines a window is compared with.
func newEdit(old string) edit {
	e := edit{text: old, crlf: strings.Contains(old, "\r\n")}
	all := strings.Split(old, "\n")
	for len(all) > 0 && strings.TrimSpace(all[len(all)-1]) == "" {
		all = all[:len(all)-1]
	}
	for len(all) > 0 && strings.TrimSpace(all[0]) == "" {
		all, e.skip = all[1:], e.skip+1
	}
	e.lines = all
	e.keys = make([]string, len(all))
	for i, l := range all {
		e.keys[i] = key(l)
	}
	return e
}

// blank reports whether the edit holds nothing but whitespace.
func (e edit) blank() bool { return len(e.lines) == 0 }
