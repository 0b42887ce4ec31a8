package search

import (
	"math/rand/v2"
	"path"
	"regexp"
	"strings"
	"testing"
)

func TestGitignoreRules(t *testing.T) {
	tests := []struct {
		name   string
		rules  string
		rel    string // path relative to the .gitignore's directory
		isDir  bool
		ignore bool
	}{
		{"literal name anywhere", "build", "a/b/build", false, true},
		{"literal name not a prefix", "build", "a/builder", false, false},
		{"suffix glob", "*.o", "src/x.o", false, true},
		{"suffix glob other ext", "*.o", "src/x.oo", false, false},
		{"star matches dotfiles", "*", ".hidden", false, true},
		{"star does not cross slash when anchored", "src/*.go", "src/a/b.go", false, false},
		{"anchored with slash", "src/*.go", "src/b.go", false, true},
		{"leading slash anchors", "/top.txt", "top.txt", false, true},
		{"leading slash not deeper", "/top.txt", "sub/top.txt", false, false},
		{"middle slash anchors", "doc/frotz", "a/doc/frotz", false, false},
		{"dir only matches dirs", "logs/", "logs", true, true},
		{"dir only skips files", "logs/", "logs", false, false},
		{"dir only anywhere", "logs/", "a/logs", true, true},
		{"negation re-includes", "*.log\n!keep.log", "keep.log", false, false},
		{"negation order matters", "!keep.log\n*.log", "keep.log", false, true},
		{"leading double star", "**/foo", "a/b/foo", false, true},
		{"leading double star top", "**/foo", "foo", false, true},
		{"trailing double star", "abc/**", "abc/x/y", false, true},
		{"trailing double star not dir itself", "abc/**", "abc", true, false},
		{"middle double star zero dirs", "a/**/b", "a/b", false, true},
		{"middle double star many dirs", "a/**/b", "a/x/y/b", false, true},
		{"other double star is a star", "a**b", "axyb", false, true},
		{"question mark", "fo?", "foo", false, true},
		{"question mark not slash", "a?b", "a/b", false, false},
		{"class", "[abc].txt", "b.txt", false, true},
		{"class range", "x[0-9]", "x7", false, true},
		{"negated class", "x[!0-9]", "x7", false, false},
		{"negated class matches", "x[!0-9]", "xa", false, true},
		{"posix class", "x[[:digit:]]", "x3", false, true},
		{"unclosed bracket is literal", "a[b", "a[b", false, true},
		{"escaped star", `\*.txt`, "*.txt", false, true},
		{"escaped star literal only", `\*.txt`, "a.txt", false, false},
		{"escaped hash", `\#notes`, "#notes", false, true},
		{"comment", "#notes", "#notes", false, false},
		{"escaped bang", `\!important`, "!important", false, true},
		{"trailing spaces dropped", "foo   ", "foo", false, true},
		{"escaped trailing space kept", `foo\ `, "foo ", false, true},
		{"crlf line ending", "foo\r\nbar", "bar", false, true},
		{"blank lines", "\n\n  \nfoo", "foo", false, true},
		{"braces are literal", "{a,b}", "a", false, false},
		{"no rules", "", "anything", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := (*ignoreChain)(nil).push(parseIgnore("/base", []byte(tt.rules)))
			abs := "/base/" + tt.rel
			if got := c.ignored(abs, path.Base(tt.rel), tt.isDir); got != tt.ignore {
				t.Errorf("rules %q, path %q (dir %v): ignored = %v, want %v", tt.rules, tt.rel, tt.isDir, got, tt.ignore)
			}
		})
	}
}

// TestGitignoreNesting checks precedence between files: a deeper file wins
// over a shallower one, and rules are relative to their own directory.
func TestGitignoreNesting(t *testing.T) {
	top := (*ignoreChain)(nil).push(parseIgnore("/r", []byte("*.gen\n/only-top\nsub/anchored\n")))
	sub := top.push(parseIgnore("/r/sub", []byte("!keep.gen\nlocal\n")))
	tests := []struct {
		chain  *ignoreChain // the chain in effect in the entry's directory
		abs    string
		ignore bool
	}{
		{top, "/r/x.gen", true},
		{sub, "/r/sub/x.gen", true},
		{sub, "/r/sub/keep.gen", false}, // re-included by the deeper file
		{top, "/r/keep.gen", true},
		{top, "/r/only-top", true},
		{sub, "/r/sub/only-top", false},
		{sub, "/r/sub/anchored", true},
		{sub, "/r/sub/local", true},
		{top, "/r/local", false},
	}
	for _, tt := range tests {
		if got := tt.chain.ignored(tt.abs, path.Base(tt.abs), false); got != tt.ignore {
			t.Errorf("ignored(%s) = %v, want %v", tt.abs, got, tt.ignore)
		}
	}
}

func TestGlobRegexp(t *testing.T) {
	tests := map[string]string{
		"a*b":          `a[^/]*b`,
		"**/x":         `(?:.*/)?x`,
		"x/**":         `x/.*`,
		"a/**/b":       `a/(?:.*/)?b`,
		"[!a-c]":       `[^/a-c]`,
		"[]x]":         `[\]x]`,
		"a.b":          `a\.b`,
		`\[x`:          `\[x`,
		"[a":           `\[a`,
		"x[[:alpha:]]": `x[[:alpha:]]`,
	}
	for in, want := range tests {
		if got := globRegexp(in); got != want {
			t.Errorf("globRegexp(%q) = %q, want %q", in, got, want)
		}
	}
	if strings.Contains(globRegexp("?"), "/") == false {
		t.Errorf("? must exclude /: got %q", globRegexp("?"))
	}
}

// TestGlobLiteralsNeverRuleOut checks the literal pre-check of ignore
// rules against their regexps: whatever a rule's regexp matches, the
// pre-check must admit.
func TestGlobLiteralsNeverRuleOut(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"a", "b", ".", "/", "*", "**", "**/", "/**", "?", "[ab]", "[!a]", "c"}
	names := []string{"a", "b", "c", "."}
	for range 20000 {
		var pat, name strings.Builder
		for range 1 + rng.IntN(5) {
			pat.WriteString(pieces[rng.IntN(len(pieces))])
		}
		for range rng.IntN(7) {
			if rng.IntN(4) == 0 {
				name.WriteByte('/')
			}
			name.WriteString(names[rng.IntN(len(names))])
		}
		re, err := regexp.Compile("^" + globRegexp(pat.String()) + "$")
		if err != nil {
			continue
		}
		need := globLiterals(pat.String())
		if re.MatchString(name.String()) && !need.admits(name.String()) {
			t.Fatalf("glob %q matches %q, but its literal parts %+v rule it out", pat.String(), name.String(), need)
		}
	}
}

// TestRuleIndexMatchesLinearScan checks the rule index against trying
// every rule from the last, on random rule files and entries.
func TestRuleIndexMatchesLinearScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	pats := []string{"a", "b.o", "*.o", "*.c", "*o", "!*.o", "!a", "a/", "*.o/", "/a", "x/a", "a*", "!b.o", "*.b.o", "[ab]", "\\a"}
	names := []string{"a", "b.o", "c.o", ".o", "o", "x.c", "a.b.o", "b", "ab"}
	for range 3000 {
		var lines []string
		for range 1 + rng.IntN(6) {
			lines = append(lines, pats[rng.IntN(len(pats))])
		}
		f := parseIgnore("/base", []byte(strings.Join(lines, "\n")))
		name := names[rng.IntN(len(names))]
		rel := name
		if rng.IntN(2) == 0 {
			rel = "x/" + name
		}
		isDir := rng.IntN(2) == 0
		want := -1
		for i := len(f.rules) - 1; i >= 0; i-- {
			if f.rules[i].matches(rel, name, isDir) {
				want = i
				break
			}
		}
		if got := f.index.match(f.rules, rel, name, isDir); got != want {
			t.Fatalf("rules %q, entry %q (dir %v): index finds rule %d, want %d", lines, rel, isDir, got, want)
		}
	}
}
