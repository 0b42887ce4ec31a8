package search

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// This file implements .gitignore matching as gitignore(5) describes it:
//   - blank lines and lines starting with # are ignored; trailing spaces are
//     dropped unless escaped with a backslash; "\#" and "\!" start a pattern
//     with a literal # or !;
//   - a leading ! negates the pattern: a later match re-includes what an
//     earlier one excluded (but nothing inside an excluded directory, which
//     is never entered);
//   - a trailing / matches directories only;
//   - a pattern containing a / elsewhere is anchored to the directory of the
//     .gitignore file; otherwise it matches the name at any depth below it;
//   - * and ? match anything but /, [...] is a class ([!...] negated, never
//     matching /), "**/" at the start matches in any directory, "/**" at the
//     end everything inside, "/**/" zero or more directories; other runs of
//     * act like one; a backslash escapes the next character.

// ignoreRule is one pattern of a .gitignore file.
type ignoreRule struct {
	negate   bool
	dirOnly  bool
	anchored bool           // matched against the path relative to the file's directory, else the base name
	literal  string         // the whole pattern, when it has no wildcards
	suffix   string         // "*" + suffix, when it has no other wildcards and is not anchored
	re       *regexp.Regexp // every other pattern
	need     literalParts   // with re: text every match has, checked first
}

// literalParts is the literal text every match of a glob starts with,
// ends with and contains ("" when the glob fixes none), which rules out
// most names without running the glob's regexp.
type literalParts struct{ prefix, suffix, inner string }

// admits reports whether s has the parts.
func (l *literalParts) admits(s string) bool {
	return strings.HasPrefix(s, l.prefix) && strings.HasSuffix(s, l.suffix) && strings.Contains(s, l.inner)
}

// globLiterals finds the literal parts of a glob: its runs of characters
// between wildcards ("**/" counts as one wildcard, slash included, since
// it may match nothing). Scanning stops at a class; a glob with a
// backslash escape gives none.
func globLiterals(pat string) literalParts {
	var l literalParts
	if strings.Contains(pat, `\`) {
		return l
	}
	start, i := 0, 0
	run := func(end int) {
		r := pat[start:end]
		if start == 0 && end < len(pat) {
			l.prefix = r
		}
		if len(r) > len(l.inner) {
			l.inner = r
		}
	}
	for i < len(pat) {
		switch pat[i] {
		case '*', '?':
			run(i)
			j := i + 1
			for j < len(pat) && pat[j] == '*' {
				j++
			}
			if j-i >= 2 && j < len(pat) && pat[j] == '/' {
				j++
			}
			start, i = j, j
		case '[':
			run(i)
			return l
		default:
			i++
		}
	}
	if start > 0 {
		l.suffix = pat[start:]
		if len(l.suffix) > len(l.inner) {
			l.inner = l.suffix
		}
	}
	return l
}

// matches reports whether the rule matches an entry, given by its path
// relative to the rule's directory and its base name.
func (r *ignoreRule) matches(rel, name string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	s := name
	if r.anchored {
		s = rel
	}
	switch {
	case r.re != nil:
		return r.need.admits(s) && r.re.MatchString(s)
	case r.suffix != "":
		return strings.HasSuffix(s, r.suffix)
	}
	return s == r.literal
}

// ignoreFile is the rules of one .gitignore (or info/exclude) file, which
// apply to base and below.
type ignoreFile struct {
	base  string // absolute directory
	rules []ignoreRule
	// index finds the last matching rule without trying each: kernel
	// .gitignore files have a hundred rules, nearly all a plain name or
	// "*.ext", and every file of the tree is checked against them.
	index ruleIndex
}

// ruleIndex maps the plain rules of a file to their last index: names
// holds unanchored literal rules by name, exts unanchored "*.ext" rules
// (ext without a dot) by extension, [0] for rules that apply to every
// entry and [1] for directory-only ones; rest lists every other rule's
// index, ascending.
type ruleIndex struct {
	names, exts [2]map[string]int
	rest        []int
}

// build indexes rules.
func (x *ruleIndex) build(rules []ignoreRule) {
	for i := range x.names {
		x.names[i], x.exts[i] = map[string]int{}, map[string]int{}
	}
	for i, r := range rules {
		d := 0
		if r.dirOnly {
			d = 1
		}
		switch {
		case r.anchored || r.re != nil:
			x.rest = append(x.rest, i)
		case r.suffix != "":
			if len(r.suffix) > 1 && r.suffix[0] == '.' && !strings.ContainsRune(r.suffix[1:], '.') {
				x.exts[d][r.suffix] = i
			} else {
				x.rest = append(x.rest, i)
			}
		default:
			x.names[d][r.literal] = i
		}
	}
}

// match returns the index of the last rule of rules that matches the
// entry, or -1.
func (x *ruleIndex) match(rules []ignoreRule, rel, name string, isDir bool) int {
	best := -1
	var ext string
	if dot := strings.LastIndexByte(name, '.'); dot >= 0 {
		ext = name[dot:]
	}
	for d := range 2 {
		if d == 1 && !isDir {
			break
		}
		if i, ok := x.names[d][name]; ok && i > best {
			best = i
		}
		if i, ok := x.exts[d][ext]; ok && ext != "" && i > best {
			best = i
		}
	}
	for j := len(x.rest) - 1; j >= 0 && x.rest[j] > best; j-- {
		if rules[x.rest[j]].matches(rel, name, isDir) {
			return x.rest[j]
		}
	}
	return best
}

// parseIgnore parses the contents of an ignore file whose rules apply to
// the directory base. Patterns that cannot be compiled are dropped, as git
// drops patterns it cannot use.
func parseIgnore(base string, data []byte) *ignoreFile {
	f := &ignoreFile{base: base}
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		if r, ok := parseRule(string(bytes.TrimSuffix(line, []byte("\r")))); ok {
			f.rules = append(f.rules, r)
		}
	}
	f.index.build(f.rules)
	return f
}

// parseRule parses one line of an ignore file.
func parseRule(line string) (ignoreRule, bool) {
	line = trimTrailingSpaces(line)
	if line == "" || line[0] == '#' {
		return ignoreRule{}, false
	}
	var r ignoreRule
	if line[0] == '!' {
		r.negate, line = true, line[1:]
	}
	if strings.HasSuffix(line, "/") && !strings.HasSuffix(line, `\/`) {
		r.dirOnly, line = true, strings.TrimRight(line, "/")
	}
	if line == "" {
		return ignoreRule{}, false
	}
	if strings.Contains(line, "/") {
		r.anchored, line = true, strings.TrimPrefix(line, "/")
	}
	return r, r.compile(line)
}

// compile picks the cheapest matcher for a pattern.
func (r *ignoreRule) compile(pat string) bool {
	const meta = `*?[\`
	switch {
	case !strings.ContainsAny(pat, meta):
		r.literal = pat
		return true
	case !r.anchored && len(pat) > 1 && pat[0] == '*' && !strings.ContainsAny(pat[1:], meta):
		r.suffix = pat[1:]
		return true
	}
	re, err := regexp.Compile("^" + globRegexp(pat) + "$")
	if err != nil {
		return false
	}
	r.re, r.need = re, globLiterals(pat)
	return true
}

// trimTrailingSpaces drops trailing spaces not escaped by a backslash.
func trimTrailingSpaces(s string) string {
	for strings.HasSuffix(s, " ") {
		t := s[:len(s)-1]
		if strings.HasSuffix(t, `\`) && !strings.HasSuffix(t, `\\`) {
			return s // "\ " keeps its space
		}
		s = t
	}
	return s
}

// globRegexp translates a gitignore glob into a regular expression.
func globRegexp(pat string) string {
	var sb strings.Builder
	for i := 0; i < len(pat); {
		switch c := pat[i]; c {
		case '*':
			i = globStars(&sb, pat, i)
		case '?':
			sb.WriteString("[^/]")
			i++
		case '[':
			i = globClass(&sb, pat, i)
		case '\\':
			if i+1 < len(pat) {
				i++
			}
			sb.WriteString(regexp.QuoteMeta(pat[i : i+1]))
			i++
		default:
			sb.WriteString(regexp.QuoteMeta(pat[i : i+1]))
			i++
		}
	}
	return sb.String()
}

// globStars translates the run of stars at pat[i] and returns the index
// after what it consumed.
func globStars(sb *strings.Builder, pat string, i int) int {
	j := i
	for j < len(pat) && pat[j] == '*' {
		j++
	}
	if j-i < 2 {
		sb.WriteString("[^/]*")
		return j
	}
	startSeg := i == 0 || pat[i-1] == '/'
	switch {
	case startSeg && j == len(pat):
		sb.WriteString(".*") // "/**" at the end, or "**" alone
		return j
	case startSeg && pat[j] == '/':
		sb.WriteString("(?:.*/)?") // "**/" at the start, or "/**/"
		return j + 1
	}
	sb.WriteString("[^/]*") // other runs of stars are ordinary stars
	return j
}

// globClass translates the bracket expression at pat[i] and returns the
// index after it. A "[" without a closing "]" is a literal.
func globClass(sb *strings.Builder, pat string, i int) int {
	j := i + 1
	neg := j < len(pat) && (pat[j] == '!' || pat[j] == '^')
	if neg {
		j++
	}
	var body strings.Builder
	for first := true; j < len(pat); first = false {
		c := pat[j]
		switch {
		case c == ']' && !first:
			sb.WriteString("[")
			if neg {
				sb.WriteString("^/")
			}
			sb.WriteString(body.String())
			sb.WriteString("]")
			return j + 1
		case c == '[' && strings.HasPrefix(pat[j:], "[:") && strings.Contains(pat[j+2:], ":]"):
			end := j + 2 + strings.Index(pat[j+2:], ":]") + 2
			body.WriteString(pat[j:end]) // a POSIX class such as [:alpha:]
			j = end
		case c == '\\' && j+1 < len(pat):
			body.WriteString(classChar(pat[j+1]))
			j += 2
		case c == '-' && !first && j+1 < len(pat) && pat[j+1] != ']':
			body.WriteByte('-')
			j++
		default:
			body.WriteString(classChar(c))
			j++
		}
	}
	sb.WriteString(`\[`)
	return i + 1
}

// classChar writes a byte so it is literal inside a regexp class.
func classChar(c byte) string {
	if strings.IndexByte(`\]-^[`, c) >= 0 {
		return `\` + string(c)
	}
	return string(c)
}

// ignoreChain is the ignore files that apply in a directory, innermost
// first. Deeper files take precedence, and within a file later rules win,
// so the first rule found that matches decides.
type ignoreChain struct {
	file *ignoreFile
	next *ignoreChain
}

// push returns the chain with f in front; nil f leaves it unchanged.
func (c *ignoreChain) push(f *ignoreFile) *ignoreChain {
	if f == nil || len(f.rules) == 0 {
		return c
	}
	return &ignoreChain{file: f, next: c}
}

// ignored reports whether the entry at abs (a clean absolute path below
// every file's base) is ignored.
func (c *ignoreChain) ignored(abs, name string, isDir bool) bool {
	for n := c; n != nil; n = n.next {
		rel := relPath(n.file.base, abs)
		if i := n.file.index.match(n.file.rules, rel, name, isDir); i >= 0 {
			return !n.file.rules[i].negate
		}
	}
	return false
}

// relPath returns abs relative to base as a slash-separated path; abs lies
// below base.
func relPath(base, abs string) string {
	rel := abs[len(base):]
	if rel != "" && os.IsPathSeparator(rel[0]) {
		rel = rel[1:]
	}
	return filepath.ToSlash(rel)
}
