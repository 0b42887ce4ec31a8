package search

import (
	"bytes"
	"regexp"
	"regexp/syntax"
)

// Matcher is a compiled grep pattern.
//
// Without multiline, matching is line by line, as in grep: a line is the
// text between newlines, without its "\n" or "\r\n" terminator, and the
// pattern is matched against each line on its own, so ^ and \A match at
// the line's start, $ and \z at its end, and no match spans lines.
//
// With multiline, the pattern runs over the whole file with (?s) and (?m):
// . matches newlines, ^ and $ match at line boundaries, and a match may
// span lines.
type Matcher struct {
	re        *regexp.Regexp // a line (or, multiline, the whole file)
	cand      *regexp.Regexp // finds candidate lines when there is no literal
	lits      *literals
	needles   []needle
	exact     [][]byte // lits.exact
	multiline bool
}

// NewMatcher compiles an RE2 pattern. A syntax error is returned as the
// regexp package reports it.
func NewMatcher(pattern string, caseInsensitive, multiline bool) (*Matcher, error) {
	if _, err := regexp.Compile(pattern); err != nil {
		return nil, err
	}
	flags := "m"
	if multiline {
		flags += "s"
	}
	if caseInsensitive {
		flags += "i"
	}
	full := "(?" + flags + ")" + pattern
	re, err := regexp.Compile(full)
	if err != nil {
		return nil, err
	}
	tree, err := syntax.Parse(full, syntax.Perl)
	if err != nil {
		return nil, err
	}
	m := &Matcher{re: re, lits: extract(tree), multiline: multiline}
	if m.lits != nil {
		for _, s := range m.lits.set {
			m.needles = append(m.needles, newNeedle(s, m.lits.fold))
		}
		for _, s := range m.lits.exact {
			m.exact = append(m.exact, []byte(s))
		}
	} else if !multiline {
		if m.cand, err = regexp.Compile(lineCandidates(tree).String()); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// lineCandidates rewrites a parsed pattern for searching a whole buffer
// for lines that may match on their own: text anchors become line anchors,
// and $ may be preceded by the \r of a CRLF ending. Every line that matches
// in isolation contains a match of the rewritten pattern (and lines found
// are then checked in isolation).
func lineCandidates(re *syntax.Regexp) *syntax.Regexp {
	out := *re
	out.Sub = make([]*syntax.Regexp, len(re.Sub))
	for i, sub := range re.Sub {
		out.Sub[i] = lineCandidates(sub)
	}
	switch re.Op {
	case syntax.OpBeginText:
		out.Op = syntax.OpBeginLine
	case syntax.OpEndText, syntax.OpEndLine:
		end := &syntax.Regexp{Op: syntax.OpEndLine, Flags: re.Flags}
		cr := &syntax.Regexp{Op: syntax.OpLiteral, Rune: []rune{'\r'}, Flags: re.Flags}
		opt := &syntax.Regexp{Op: syntax.OpQuest, Sub: []*syntax.Regexp{cr}, Flags: re.Flags}
		return &syntax.Regexp{Op: syntax.OpConcat, Sub: []*syntax.Regexp{opt, end}, Flags: re.Flags}
	}
	return &out
}

// eachLine calls fn with the bounds of every matching line of buf, in
// order: [start, end) is the line without its terminator. buf must hold
// whole lines. fn returns false to stop.
func (m *Matcher) eachLine(buf []byte, fn func(start, end int) bool) {
	f := finder{needles: m.needles}
	f.reset()
	for s := 0; s < len(buf); {
		p := m.candidate(&f, buf, s)
		if p < 0 || p == len(buf) && buf[p-1] == '\n' {
			return // (an empty match after the final newline is in no line)
		}
		start := s + bytes.LastIndexByte(buf[s:p], '\n') + 1
		next := len(buf)
		if j := bytes.IndexByte(buf[p:], '\n'); j >= 0 {
			next = p + j
		}
		end := next
		if end > start && buf[end-1] == '\r' {
			end--
		}
		if m.lineMatches(buf[start:end]) {
			if !fn(start, end) {
				return
			}
		}
		s = next + 1
	}
}

// lineMatches reports whether a candidate line matches: without the
// regexp when the literals decide it.
func (m *Matcher) lineMatches(line []byte) bool {
	switch {
	case m.lits == nil:
		return m.re.Match(line)
	case m.lits.pure:
		return true
	case m.exact != nil:
		for _, s := range m.exact {
			if bytes.Contains(line, s) {
				return true
			}
		}
		return false
	}
	return m.re.Match(line)
}

// candidate returns the position, at or after s, of the next place a
// match may be: a required literal, or a match of the candidate pattern.
func (m *Matcher) candidate(f *finder, buf []byte, s int) int {
	if m.lits != nil {
		return f.find(buf, s)
	}
	loc := m.cand.FindIndex(buf[s:])
	if loc == nil {
		return -1
	}
	return s + loc[0]
}

// mayMatch reports whether buf contains a required literal (or there is
// none): a file without one cannot match.
func (m *Matcher) mayMatch(buf []byte) bool {
	if m.lits == nil {
		return true
	}
	f := finder{needles: m.needles}
	f.reset()
	return f.find(buf, 0) >= 0
}

// eachMatch calls fn with the bounds of every match in buf (multiline
// mode). fn returns false to stop.
func (m *Matcher) eachMatch(buf []byte, fn func(start, end int) bool) {
	if !m.mayMatch(buf) {
		return
	}
	for _, loc := range m.re.FindAllIndex(buf, -1) {
		if !fn(loc[0], loc[1]) {
			return
		}
	}
}

// matchesFile reports whether buf has any match (multiline mode).
func (m *Matcher) matchesFile(buf []byte) bool {
	return m.mayMatch(buf) && m.re.Match(buf)
}
