package editmiss

import (
	"fmt"
	"strings"
)

// Kind is a class of difference between an edit's text and the file.
type Kind int

// The kinds of difference, in the order a Miss lists them.
const (
	Escaping      Kind = iota + 1 // a literal \n or \t where the file has the character
	LineEndings                   // CRLF against LF
	Indentation                   // tabs against spaces, or another depth
	TrailingSpace                 // whitespace at the end of a line
	LookAlike                     // typographic quotes, dashes, odd spaces
	Differs                       // a word or character differs
)

// names are the words each kind is said in; tests match on them.
var names = map[Kind]string{
	Escaping:      "escaping",
	LineEndings:   "line endings",
	Indentation:   "indentation",
	TrailingSpace: "trailing whitespace",
	LookAlike:     "look-alike characters",
	Differs:       "different text",
}

// String is the kind's name as a Miss says it.
func (k Kind) String() string { return names[k] }

// Cause is one reason a window differs from the edit's text.
type Cause struct {
	Kind   Kind
	Line   int    // the file's line where it is first seen
	Count  int    // how many lines of the window show it
	Detail string // what differs there, in words
}

// String is the cause in words: "indentation, line 12 (and 3 more
// lines): the file indents with 1 tab, old_str with 4 spaces".
func (c Cause) String() string {
	more := ""
	if c.Count > 1 {
		more = fmt.Sprintf(" (and %d more line%s)", c.Count-1, map[bool]string{true: "s"}[c.Count > 2])
	}
	return fmt.Sprintf("%s, line %d%s: %s", c.Kind, c.Line, more, c.Detail)
}

// causes gathers one Cause of each kind, in the order they are found.
type causes struct{ list []Cause }

// add notes kind at line, or counts one more line for it.
func (cs *causes) add(k Kind, line int, detail string) {
	for i := range cs.list {
		if cs.list[i].Kind == k {
			cs.list[i].Count++
			return
		}
	}
	cs.list = append(cs.list, Cause{Kind: k, Line: line, Count: 1, Detail: detail})
}

// sorted returns the causes in Kind order.
func (cs *causes) sorted() []Cause {
	out := make([]Cause, 0, len(cs.list))
	for k := Escaping; k <= Differs; k++ {
		for _, c := range cs.list {
			if c.Kind == k {
				out = append(out, c)
			}
		}
	}
	return out
}

// classify compares the window at start with e line by line.
func classify(file []string, start int, e edit) []Cause {
	var cs causes
	for j, o := range e.lines {
		i := start + j
		if i < 0 || i >= len(file) {
			cs.add(Differs, min(max(i, 0), len(file))+1, "old_str has more lines than the file has there")
			continue
		}
		compareLine(&cs, i+1, file[i], o, e, j)
	}
	return cs.sorted()
}

// compareLine notes how the file's line (number n) differs from the
// edit's line j.
func compareLine(cs *causes, n int, f, o string, e edit, j int) {
	fCR, oCR := strings.HasSuffix(f, "\r"), strings.HasSuffix(o, "\r")
	f, o = strings.TrimSuffix(f, "\r"), strings.TrimSuffix(o, "\r")
	if oCR && !fCR {
		cs.add(LineEndings, n, "old_str ends its lines with CRLF (\\r\\n) where the file has LF (\\n)")
	} else if fCR && !oCR && e.crlf {
		cs.add(LineEndings, n, "the file ends its lines with CRLF (\\r\\n) where old_str has LF (\\n)")
	}
	lf, mf, tf := split(f)
	lo, mo, to := split(o)
	// The edit's first and last lines may be part of a line: their ends
	// compare only when the edit has some whitespace there.
	if lf != lo && (j > 0 || lo != "") {
		cs.add(Indentation, n, indentDetail(lf, lo))
	}
	if tf != to && (j < len(e.lines)-1 || to != "") {
		cs.add(TrailingSpace, n, trailDetail(tf, to))
	}
	if d, ok := lookalikeDetail(mf, mo); ok {
		cs.add(LookAlike, n, d)
	}
	if !lineMatches(key(f), e, j) {
		ek := fold(mo)
		cs.add(Differs, n, wordDetail(alignedPart(fold(mf), ek, e, j), ek))
	}
}

// alignedPart is the part of a file line's text that the edit's line j
// stands for: the whole line, or, for a first or last line that may be
// part of one, the same length at its end, its start, or where the
// edit's first or last bytes occur, whichever is most alike.
func alignedPart(fk, ek string, e edit, j int) string {
	if len(fk) <= len(ek) || ek == "" {
		return fk
	}
	first, last, one := j == 0, j == len(e.lines)-1, len(e.lines) == 1
	best, part := sim(fk, ek), fk
	try := func(from int) {
		if from >= 0 && from+len(ek) <= len(fk) {
			if s := sim(fk[from:from+len(ek)], ek); s > best {
				best, part = s, fk[from:from+len(ek)]
			}
		}
	}
	if first || one {
		try(len(fk) - len(ek))
	}
	if last || one {
		try(0)
	}
	if one {
		n := min(6, len(ek))
		try(strings.Index(fk, ek[:n]))
		if i := strings.LastIndex(fk, ek[len(ek)-n:]); i >= 0 {
			try(i + n - len(ek))
		}
	}
	return part
}

// escapeDetail says which escapes the edit held literally.
func escapeDetail(old string) string {
	var held []string
	for _, esc := range []struct{ lit, is string }{{`\n`, "a line break"}, {`\t`, "a tab"}} {
		if strings.Contains(old, esc.lit) {
			held = append(held, fmt.Sprintf("a literal %s (a backslash and a letter) where the file has %s", esc.lit, esc.is))
		}
	}
	return "old_str holds " + strings.Join(held, ", and ") + ": send the characters themselves, not their escapes"
}

// indentDetail says how two indentations differ.
func indentDetail(file, old string) string {
	kind := "depth differs"
	if file != "" && old != "" && (hasTab(file) != hasTab(old) || hasSpace(file) != hasSpace(old)) {
		kind = "tabs against spaces"
	}
	return fmt.Sprintf("%s: the file indents with %s, old_str with %s", kind, describeSpace(file), describeSpace(old))
}

// trailDetail says how two lines' trailing whitespace differs.
func trailDetail(file, old string) string {
	return fmt.Sprintf("the file's line ends with %s, old_str's with %s", describeSpace(file), describeSpace(old))
}

func hasTab(s string) bool   { return strings.Contains(s, "\t") }
func hasSpace(s string) bool { return strings.Contains(s, " ") }

// describeSpace names a run of whitespace: "2 tabs", "4 spaces", "1 tab
// and 2 spaces", "nothing".
func describeSpace(s string) string {
	tabs, spaces := strings.Count(s, "\t"), strings.Count(s, " ")
	others := len(s) - tabs - spaces
	var parts []string
	for _, p := range []struct {
		n    int
		name string
	}{{tabs, "tab"}, {spaces, "space"}, {others, "other whitespace character"}} {
		if p.n > 0 {
			parts = append(parts, plural(p.n, p.name))
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, " and ")
}

// plural is "1 tab", "2 tabs".
func plural(n int, name string) string {
	if n == 1 {
		return "1 " + name
	}
	return fmt.Sprintf("%d %ss", n, name)
}

// lookalikeDetail names the first look-alike character one side has
// where the other has the ASCII original.
func lookalikeDetail(file, old string) (string, bool) {
	if r, a, ok := firstLookalike(old); ok && !strings.ContainsRune(file, r) {
		return fmt.Sprintf("old_str has %s where the file has %s", runeName(r), asciiName(a)), true
	}
	if r, a, ok := firstLookalike(file); ok && !strings.ContainsRune(old, r) {
		return fmt.Sprintf("the file has %s where old_str has %s", runeName(r), asciiName(a)), true
	}
	return "", false
}

// runeName is a character and its code point: “ (U+201C).
func runeName(r rune) string { return fmt.Sprintf("%q (U+%04X)", string(r), r) }

// asciiName is the ASCII text a look-alike stands for, or "nothing".
func asciiName(a string) string {
	if a == "" {
		return "nothing"
	}
	return fmt.Sprintf("%q", a)
}

// maxShown caps each side of a differing span.
const maxShown = 60

// wordDetail shows where two lines' text differ, widened to whole words.
func wordDetail(file, old string) string {
	p, s := commonEnds(file, old)
	for p > 0 && isWord(file[p-1]) && (p-1 < len(old) && isWord(old[p-1])) {
		p--
	}
	for s > 0 && isWord(file[len(file)-s]) && isWord(old[len(old)-s]) {
		s--
	}
	fx, ox := file[p:len(file)-s], old[p:len(old)-s]
	switch {
	case ox == "":
		return fmt.Sprintf("the file has %s that old_str lacks", shown(fx))
	case fx == "":
		return fmt.Sprintf("old_str has %s that the file lacks", shown(ox))
	}
	return fmt.Sprintf("the file has %s where old_str has %s", shown(fx), shown(ox))
}

// isWord reports whether c belongs to an identifier.
func isWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// shown quotes a span in backticks, cut to maxShown bytes.
func shown(s string) string {
	if len(s) > maxShown {
		s = s[:maxShown] + "…"
	}
	return "`" + s + "`"
}
