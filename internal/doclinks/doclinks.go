// Package doclinks provides the check that keeps the repository's
// documentation navigable: every relative link of every Markdown file, and
// every docs/ reference in a Go comment, names a file that exists and, when
// it names an anchor, a heading of that file (GitHub's anchor rules).
package doclinks

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
)

// Broken is a link that does not resolve.
type Broken struct {
	File   string // the file holding the link, relative to the root
	Line   int    // 1-based
	Target string // the link as written
	Reason string // what does not resolve
}

// String formats b as FILE:LINE: TARGET: REASON.
func (b Broken) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", b.File, b.Line, b.Target, b.Reason)
}

// skipDirs are directories whose files are not the repository's own
// documentation: build output, installed packages, version control.
var skipDirs = map[string]bool{".git": true, "node_modules": true, "bin": true}

// Check reads every .md file under root and every .go file's references to
// docs/*.md, and returns each link that does not resolve.
func Check(root string) ([]Broken, error) {
	c := &checker{root: root, anchors: map[string]map[string]bool{}}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".md":
			return c.markdown(path)
		case ".go":
			return c.goFile(path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("check links under %s: %w", root, err)
	}
	return c.broken, nil
}

// checker holds the state of one Check: the anchors of the files read so
// far and what did not resolve.
type checker struct {
	root    string
	anchors map[string]map[string]bool // by absolute path
	broken  []Broken
}

var (
	// inlineLinkRe matches [text](target) and ![alt](target), the target
	// up to a space (a title follows) or the closing parenthesis.
	inlineLinkRe = regexp.MustCompile(`!?\[[^\]]*\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)`)
	// refDefRe matches a reference definition: [label]: target.
	refDefRe = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s.*)?$`)
	// codeSpanRe matches an inline code span, whose text is no link.
	codeSpanRe = regexp.MustCompile("`+[^`]*`+")
	// goDocRefRe matches a Go comment's reference to a page of Boris's
	// docs/, whose names are lower case (an upper-case DOCS/NAME.md is
	// another project's, such as mcp-bash-framework's docs/REGISTRY.md).
	goDocRefRe = regexp.MustCompile(`\bdocs/[a-z0-9_./-]+\.md(?:#[\w-]+)?`)
)

// markdown checks the links of one Markdown file.
func (c *checker) markdown(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	for n, line := range proseLines(b) {
		line = codeSpanRe.ReplaceAllString(line, "")
		var targets []string
		for _, m := range inlineLinkRe.FindAllStringSubmatch(line, -1) {
			targets = append(targets, m[1])
		}
		if m := refDefRe.FindStringSubmatch(line); m != nil {
			targets = append(targets, m[1])
		}
		for _, t := range targets {
			c.link(path, n, t)
		}
	}
	return nil
}

// goFile checks the docs/ references in one Go file; they are written
// relative to the repository's root.
func (c *checker) goFile(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		comment, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "//")
		if !ok {
			continue
		}
		for _, ref := range goDocRefRe.FindAllString(comment, -1) {
			file, anchor, _ := strings.Cut(ref, "#")
			c.resolve(path, n, ref, filepath.Join(c.root, file), anchor)
		}
	}
	return sc.Err()
}

// proseLines returns the lines of a Markdown file outside fenced code
// blocks, by 1-based line number.
func proseLines(b []byte) map[int]string {
	lines := map[int]string{}
	fence := ""
	for n, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		if f := fenceOf(trimmed); f != "" {
			switch {
			case fence == "":
				fence = f
				continue
			case strings.HasPrefix(f, fence) && strings.TrimLeft(trimmed, f[:1]) == "":
				fence = ""
				continue
			}
		}
		if fence == "" {
			lines[n+1] = line
		}
	}
	return lines
}

// fenceOf returns the run of backticks or tildes (three or more) a line
// starts with, or "".
func fenceOf(line string) string {
	for _, ch := range []string{"`", "~"} {
		i := 0
		for i < len(line) && line[i:i+1] == ch {
			i++
		}
		if i >= 3 {
			return line[:i]
		}
	}
	return ""
}

// link checks one link of the Markdown file from: an external one (a
// scheme, or mailto:) is not followed.
func (c *checker) link(from string, line int, target string) {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return
	}
	file, anchor, _ := strings.Cut(target, "#")
	path := from
	if file != "" {
		path = filepath.Join(filepath.Dir(from), file)
		if strings.HasPrefix(file, "/") {
			path = filepath.Join(c.root, file)
		}
	}
	c.resolve(from, line, target, path, anchor)
}

// resolve records target as broken unless path exists and, with an anchor,
// is a Markdown file with that anchor.
func (c *checker) resolve(from string, line int, target, path, anchor string) {
	rel, _ := filepath.Rel(c.root, from)
	if _, err := os.Stat(path); err != nil {
		c.broken = append(c.broken, Broken{rel, line, target, "no such file"})
		return
	}
	if anchor == "" {
		return
	}
	if filepath.Ext(path) != ".md" {
		c.broken = append(c.broken, Broken{rel, line, target, "an anchor in a file that is not Markdown"})
		return
	}
	anchors, err := c.anchorsOf(path)
	if err != nil {
		c.broken = append(c.broken, Broken{rel, line, target, err.Error()})
		return
	}
	if !anchors[anchor] {
		c.broken = append(c.broken, Broken{rel, line, target, "no heading with this anchor"})
	}
}

// anchorsOf returns the anchors of a Markdown file, read once.
func (c *checker) anchorsOf(path string) (map[string]bool, error) {
	if a, ok := c.anchors[path]; ok {
		return a, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	a := Anchors(b)
	c.anchors[path] = a
	return a, nil
}

// htmlAnchorRe matches an explicit anchor: <a id="x"> or <a name="x">.
var htmlAnchorRe = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)

// Anchors returns the anchors GitHub gives a Markdown document: one per
// ATX heading (a repeated slug gets -1, -2, ...), and explicit <a id>.
func Anchors(md []byte) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	lines := proseLines(md)
	total := strings.Count(string(md), "\n") + 1
	for n := 1; n <= total; n++ {
		line, ok := lines[n]
		if !ok {
			continue
		}
		for _, m := range htmlAnchorRe.FindAllStringSubmatch(line, -1) {
			anchors[m[1]] = true
		}
		text, ok := headingText(line)
		if !ok {
			continue
		}
		slug := Slug(text)
		if k := seen[slug]; k > 0 {
			anchors[fmt.Sprintf("%s-%d", slug, k)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}

// headingText returns the text of an ATX heading line (# to ######).
func headingText(line string) (string, bool) {
	trimmed := strings.TrimLeft(line, " ")
	if len(line)-len(trimmed) > 3 {
		return "", false
	}
	level := len(trimmed) - len(strings.TrimLeft(trimmed, "#"))
	if level == 0 || level > 6 {
		return "", false
	}
	rest := trimmed[level:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "", false
	}
	rest = strings.TrimSpace(rest)
	rest = strings.TrimSpace(strings.TrimRight(rest, "#")) // a closing sequence
	return rest, true
}

// mdLinkTextRe matches an inline link or image, keeping its text.
var mdLinkTextRe = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)

// Slug is GitHub's anchor for a heading's text: its rendered text (code
// spans and links reduced to their text) in lower case, every character
// that is not a letter, digit, mark, '_', '-' or space dropped, and each
// space a '-'.
func Slug(heading string) string {
	text := mdLinkTextRe.ReplaceAllString(heading, "$1")
	text = strings.NewReplacer("`", "", "**", "", "__", "").Replace(text)
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// specRefRe matches a reference to a section of the contract Boris was
// first specified in, which lives outside the repository: the word SPEC (or
// SPEC.md), a section sign and a section number, also wrapped over two
// comment lines. Such references now name a page of docs/reference/;
// scripts/spec-refs.sh rewrites them.
var specRefRe = regexp.MustCompile(`SPEC(?:\.md)?[\s/#]*§\s*[0-9.]*`)

// SpecRefs returns every reference to the out-of-tree contract in the
// source files under root (Go, shell, JavaScript, YAML, configuration):
// Markdown aside, and scripts/spec-refs.sh, which maps each section.
func SpecRefs(root string) ([]Broken, error) {
	var found []Broken
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if path != root && skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if filepath.Ext(path) == ".md" || rel == filepath.Join("scripts", "spec-refs.sh") || !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		for _, m := range specRefRe.FindAllIndex(b, -1) {
			line := bytes.Count(b[:m[0]], []byte("\n")) + 1
			found = append(found, Broken{rel, line, string(b[m[0]:m[1]]), "names a section of a contract outside the repository: run scripts/spec-refs.sh"})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("look for out-of-tree references under %s: %w", root, err)
	}
	return found, nil
}
