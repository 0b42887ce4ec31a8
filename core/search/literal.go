package search

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// Literal prefilters: before running a regular expression over a file,
// search for text every match must contain, with a fast substring search,
// and run the regexp only on the lines that contain it.
//
// litInfo is what a sub-expression says about the text of its matches,
// computed bottom-up over the parsed expression (in the manner of
// codesearch's trigram queries, but with whole literals).

// maxLitSet bounds the number of alternative literals tracked.
const maxLitSet = 16

// litInfo describes the matches of a sub-expression.
type litInfo struct {
	exact []string // non-nil: every match is one of these strings
	req   []string // non-nil: every match contains one of these strings
	pure  bool     // exact holds without empty-width assertions (\b, ^, $)
}

// literals is the prefilter of a whole pattern.
type literals struct {
	set  []string // a match contains at least one of these
	fold bool     // compare ASCII letters case-insensitively; set is lower case
	pure bool     // finding one of set in a line means the line matches
	// exact, when set was narrowed to a common substring of a pure set of
	// literals, is that set: a line found matches exactly when it contains
	// one of them, which is cheaper to test than the regexp.
	exact []string
}

// extract returns the prefilter for a parsed pattern, or nil when no useful
// literal is required.
func extract(re *syntax.Regexp) *literals {
	x := &extractor{}
	info := x.walk(re)
	set := info.best()
	if len(set) == 0 || slices.Contains(set, "") {
		return nil
	}
	l := &literals{set: set, fold: x.fold, pure: info.pure && info.exact != nil && !x.fold}
	if l.fold {
		l.set = lowerSet(set)
	}
	if len(l.set) > 1 {
		if c := commonSubstring(l.set); useCommon(c, l.set) {
			if l.pure {
				l.exact = l.set
			}
			l.set, l.pure = []string{c}, false
		}
	}
	for _, s := range append(l.set, l.exact...) {
		if strings.ContainsAny(s, "\r\n") {
			l.pure, l.exact = false, nil
		}
	}
	return l
}

// extractor walks an expression, noting whether any part folds case.
type extractor struct{ fold bool }

// walk computes the litInfo of re.
func (x *extractor) walk(re *syntax.Regexp) litInfo {
	switch re.Op {
	case syntax.OpLiteral:
		return x.literal(re)
	case syntax.OpCharClass:
		return classInfo(re.Rune)
	case syntax.OpEmptyMatch:
		return litInfo{exact: []string{""}, pure: true}
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return litInfo{exact: []string{""}}
	case syntax.OpCapture:
		return x.walk(re.Sub[0])
	case syntax.OpConcat:
		return x.concat(re.Sub)
	case syntax.OpAlternate:
		return x.alternate(re.Sub)
	case syntax.OpQuest:
		sub := x.walk(re.Sub[0])
		if sub.exact != nil && len(sub.exact) < maxLitSet {
			return litInfo{exact: union(sub.exact, []string{""}), pure: sub.pure}
		}
		return litInfo{}
	case syntax.OpPlus:
		return litInfo{req: x.walk(re.Sub[0]).best()}
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return litInfo{req: x.walk(re.Sub[0]).best()}
		}
	}
	return litInfo{} // any character, stars, no match: nothing required
}

// literal describes a literal string. Case-folded literals are searched
// with ASCII-only folding, so they are cut at the characters whose case
// variants lie outside ASCII (k: KELVIN SIGN, s: LONG S, every non-ASCII
// letter) and the longest piece is required.
func (x *extractor) literal(re *syntax.Regexp) litInfo {
	s := string(re.Rune)
	if re.Flags&syntax.FoldCase == 0 {
		return litInfo{exact: []string{s}, pure: true}
	}
	x.fold = true
	pieces := strings.FieldsFunc(s, func(r rune) bool {
		return r >= utf8.RuneSelf || strings.ContainsRune("kKsS", r)
	})
	if len(pieces) == 1 && pieces[0] == s {
		return litInfo{exact: []string{s}, pure: true}
	}
	if len(pieces) == 0 {
		return litInfo{}
	}
	return litInfo{req: []string{slices.MaxFunc(pieces, func(a, b string) int { return len(a) - len(b) })}}
}

// classInfo describes a character class: small classes are a set of
// one-character strings.
func classInfo(ranges []rune) litInfo {
	var out []string
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			if len(out) == 4 {
				return litInfo{}
			}
			out = append(out, string(r))
		}
	}
	return litInfo{exact: out, pure: true}
}

// concat combines the parts of a concatenation: runs of exact parts
// multiply into longer exact strings; the best requirement of any part or
// run is required of the whole.
func (x *extractor) concat(subs []*syntax.Regexp) litInfo {
	run, best, exact, pure := []string{""}, []string(nil), true, true
	for _, sub := range subs {
		info := x.walk(sub)
		pure = pure && info.pure
		if info.exact != nil && len(run)*len(info.exact) <= maxLitSet {
			run = cross(run, info.exact)
			continue
		}
		exact = false
		best = better(best, run)
		run = []string{""}
		if info.exact != nil {
			run = info.exact
		} else {
			best = better(best, info.req)
		}
	}
	if exact {
		return litInfo{exact: run, pure: pure}
	}
	return litInfo{req: better(best, run)}
}

// alternate combines the branches of an alternation: a match contains one
// of the branches' requirements.
func (x *extractor) alternate(subs []*syntax.Regexp) litInfo {
	var exact, req []string
	allExact, pure := true, true
	for _, sub := range subs {
		info := x.walk(sub)
		pure = pure && info.pure
		if info.exact == nil {
			allExact = false
		} else {
			exact = union(exact, info.exact)
		}
		b := info.best()
		if len(b) == 0 || slices.Contains(b, "") {
			req, allExact = nil, false
			break
		}
		req = union(req, b)
	}
	if allExact && len(exact) <= maxLitSet {
		return litInfo{exact: exact, pure: pure}
	}
	if len(req) > maxLitSet {
		req = nil
	}
	return litInfo{req: req}
}

// best returns the most selective requirement the info offers.
func (i litInfo) best() []string { return better(i.exact, i.req) }

// better returns the more selective of two requirements: the one whose
// shortest string is longer, then the one with fewer strings. A set
// containing "" requires nothing.
func better(a, b []string) []string {
	sa, sb := score(a), score(b)
	if sa > sb || (sa == sb && sa > 0 && len(a) <= len(b)) {
		return a
	}
	return b
}

// score rates a requirement by its shortest string; -1 when it requires
// nothing.
func score(set []string) int {
	if len(set) == 0 {
		return -1
	}
	m := len(set[0])
	for _, s := range set[1:] {
		m = min(m, len(s))
	}
	if m == 0 {
		return -1
	}
	return m
}

// cross returns every concatenation of a string of a with one of b.
func cross(a, b []string) []string {
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return out
}

// union returns the strings of a and b without duplicates.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// lowerSet lower-cases ASCII letters of every string, without duplicates.
func lowerSet(set []string) []string {
	var out []string
	for _, s := range set {
		out = union(out, []string{lowerASCII(s)})
	}
	return out
}

// lowerASCII lower-cases the ASCII letters of s.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// useCommon reports whether to search for c, a substring of every member
// of set, instead of the set: one scan instead of one per member, but
// every line holding c must then be checked by the regexp. The set is
// kept when c is much shorter than its members (as "spin_" is in
// spin_(lock|unlock)_irqsave_nested|raw_spin_trylock), so common in text
// that most lines it finds would not match.
func useCommon(c string, set []string) bool {
	shortest := len(slices.MinFunc(set, func(a, b string) int { return len(a) - len(b) }))
	return len(c) >= 3 && (len(set) > 4 || 2*len(c) >= shortest)
}

// commonSubstring returns the longest string contained in every member of
// set (sets are small and their strings short).
func commonSubstring(set []string) string {
	short := slices.MinFunc(set, func(a, b string) int { return len(a) - len(b) })
	for n := len(short); n > 0; n-- {
		for i := 0; i+n <= len(short); i++ {
			if cand := short[i : i+n]; containedInAll(set, cand) {
				return cand
			}
		}
	}
	return ""
}

// containedInAll reports whether every member of set contains s.
func containedInAll(set []string, s string) bool {
	for _, t := range set {
		if !strings.Contains(t, s) {
			return false
		}
	}
	return true
}
