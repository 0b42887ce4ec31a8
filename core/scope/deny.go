package scope

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// denyPath is a plain --deny-dir entry. The lexical and resolved spellings
// are both kept so the rule holds whichever form a tool path arrives in.
type denyPath struct {
	raw   string
	paths []string
	why   string // the refusal's reason when not a --deny-dir entry (Protect)
}

// denyPattern is a doublestar --deny-dir entry compiled into slash-separated
// patterns matched against absolute paths with the leading "/" removed.
type denyPattern struct {
	raw  string
	pats []string
}

// isPattern reports whether a deny entry is a doublestar pattern rather than
// a plain path; the set of meta characters is the one documented for
// --deny-dir.
func isPattern(entry string) bool {
	return strings.ContainsAny(entry, "*?[{")
}

// addDeny compiles every deny entry.
func (p *Policy) addDeny(base string, deny []string) error {
	for _, e := range deny {
		if strings.TrimSpace(e) == "" {
			return fmt.Errorf("scope: empty deny entry")
		}
		if !isPattern(e) {
			dp, err := compileDenyPath(base, e)
			if err != nil {
				return err
			}
			p.denyPaths = append(p.denyPaths, dp)
			continue
		}
		dp, err := compileDenyPattern(base, e)
		if err != nil {
			return err
		}
		p.denyPats = append(p.denyPats, dp)
	}
	return nil
}

// Protect refuses absolute paths (and everything beneath them) to every
// tool, with why as the reason, without listing them among the deny
// entries (Denied): for the files Boris itself keeps, such as its state
// directory and task board, which no tool may open whatever the allowed
// directories hold. Call it before the policy is used.
//
// Their symlink-resolved forms are added when the policy first decides
// on a path, not now: a core answers its client's first request sooner.
func (p *Policy) Protect(why string, paths ...string) error {
	for _, path := range paths {
		if !filepath.IsAbs(path) {
			return fmt.Errorf("scope: protected path %q is not absolute", path)
		}
		d, err := lexicalDenyPath("/", path)
		if err != nil {
			return err
		}
		d.why = why
		if p.resolved.Load() {
			d.addResolved() // protected late: no decision waits for this one
		} else {
			p.unresolved = append(p.unresolved, len(p.denyPaths))
		}
		p.denyPaths = append(p.denyPaths, d)
	}
	return nil
}

// resolveProtected adds the resolved forms of the protected paths, once,
// before the first decision that reads them.
func (p *Policy) resolveProtected() {
	p.resolveOnce.Do(func() {
		for _, i := range p.unresolved {
			p.denyPaths[i].addResolved()
		}
		p.unresolved = nil
		p.resolved.Store(true)
	})
}

// compileDenyPath makes a plain deny entry absolute and adds its
// symlink-resolved form, so denying a symlinked directory also denies the
// place it points to. An entry whose ".." lead above "/" is refused: it
// names no path.
func compileDenyPath(base, entry string) (denyPath, error) {
	d, err := lexicalDenyPath(base, entry)
	if err == nil {
		d.addResolved()
	}
	return d, err
}

// lexicalDenyPath is compileDenyPath without the resolved form.
func lexicalDenyPath(base, entry string) (denyPath, error) {
	rel := filepath.ToSlash(entry)
	if !filepath.IsAbs(entry) {
		rel = filepath.ToSlash(base) + "/" + rel
	}
	if _, err := cleanPattern(splitPattern(rel)); err != nil {
		return denyPath{}, fmt.Errorf("scope: deny entry %q: %w", entry, err)
	}
	return denyPath{raw: entry, paths: []string{absFrom(base, entry)}}, nil
}

// addResolved adds the symlink-resolved form of d's path, when it differs.
func (d *denyPath) addResolved() {
	lex := d.paths[0]
	if res, err := resolvePath(lex); err == nil && res != lex {
		d.paths = append(d.paths, res)
	}
}

// compileDenyPattern validates a pattern, anchors it and cleans it like a
// path, so it matches the clean absolute paths it is checked against:
// "./secret/*", "secret//*" and "sub/../secret/*" all mean base/secret/*.
// Absolute patterns are used as they are, and so are relative patterns
// starting with "**" (they match anywhere); other relative patterns,
// "./**/.env" included, are anchored at base, in both its lexical and
// symlink-resolved spellings. A pattern that can never match is refused.
func compileDenyPattern(base, entry string) (denyPattern, error) {
	pat := filepath.ToSlash(entry)
	if !doublestar.ValidatePattern(pat) {
		return denyPattern{}, fmt.Errorf("scope: invalid deny pattern %q", entry)
	}
	comps := splitPattern(pat)
	var anchors [][]string // the components each compiled pattern starts with
	switch {
	case filepath.IsAbs(entry) || strings.HasPrefix(pat, "/"), comps[0] == "**":
		anchors = [][]string{nil}
	default:
		for _, b := range baseSpellings(base) {
			anchors = append(anchors, splitPattern(escapeMeta(filepath.ToSlash(b))))
		}
	}
	dp := denyPattern{raw: entry}
	for _, a := range anchors {
		clean, err := cleanPattern(append(append([]string(nil), a...), comps...))
		if err != nil {
			return denyPattern{}, fmt.Errorf("scope: deny pattern %q: %w", entry, err)
		}
		if !doublestar.ValidatePattern(clean) {
			return denyPattern{}, fmt.Errorf("scope: invalid deny pattern %q (cleaned: %q)", entry, "/"+clean)
		}
		dp.pats = append(dp.pats, clean)
	}
	return dp, nil
}

// baseSpellings returns base and, when different, its resolved form.
func baseSpellings(base string) []string {
	out := []string{base}
	if res, err := resolvePath(base); err == nil && res != base {
		out = append(out, res)
	}
	return out
}

// splitPattern splits a slash-separated pattern into its components at
// the slashes outside {} alternatives ("{a/b,c}" is one component) and
// outside [] classes.
func splitPattern(pat string) []string {
	var comps []string
	depth, start := 0, 0
	for i := 0; i < len(pat); i++ {
		switch pat[i] {
		case '\\':
			i++ // an escaped character is never a separator
		case '{', '[':
			depth++
		case '}', ']':
			depth = max(depth-1, 0)
		case '/':
			if depth == 0 {
				comps = append(comps, pat[start:i])
				start = i + 1
			}
		}
	}
	return append(comps, pat[start:])
}

// cleanPattern cleans pattern components as path.Clean cleans a path, "**"
// being a name like any other: empty components and "." are dropped, ".."
// removes the component before it. It returns the components joined by
// "/", without a leading one, as patterns are matched. A ".." that would
// lead above "/", or that follows a wildcard component (whose parent the
// pattern cannot name), and a pattern left empty, can never match a path:
// they are errors.
func cleanPattern(comps []string) (string, error) {
	var out []string
	for _, c := range comps {
		switch {
		case c == "" || c == ".":
		case c != "..":
			out = append(out, c)
		case len(out) == 0:
			return "", fmt.Errorf(`".." leads above "/": it can never match`)
		case isPattern(out[len(out)-1]):
			return "", fmt.Errorf(`".." after the wildcard %q cannot be resolved: write the directory out`, out[len(out)-1])
		default:
			out = out[:len(out)-1]
		}
	}
	if len(out) == 0 {
		return "", fmt.Errorf("it names no path below /: it can never match")
	}
	return strings.Join(out, "/"), nil
}

// escapeMeta backslash-escapes doublestar meta characters.
func escapeMeta(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]{}\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// denyReason returns the quoted deny rule matching a clean absolute path, or
// "" when none does.
func (p *Policy) denyReason(abs string) string {
	p.resolveProtected()
	for _, d := range p.denyPaths {
		for _, dp := range d.paths {
			if within(abs, dp) && d.why != "" {
				return d.why
			}
			if within(abs, dp) {
				return fmt.Sprintf("matches deny rule %q", d.raw)
			}
		}
	}
	if len(p.denyPats) == 0 {
		return ""
	}
	cands := ancestry(abs)
	for _, d := range p.denyPats {
		if d.matchesAny(cands) {
			return fmt.Sprintf("matches deny rule %q", d.raw)
		}
	}
	return ""
}

// matchesAny reports whether any compiled pattern matches any candidate.
func (d denyPattern) matchesAny(cands []string) bool {
	for _, pat := range d.pats {
		for _, c := range cands {
			// Patterns were validated in New, so Match cannot fail here.
			if ok, _ := doublestar.Match(pat, c); ok {
				return true
			}
		}
	}
	return false
}

// ancestry returns abs and all its ancestors in the slash-separated,
// leading-slash-free form patterns are matched against. Matching ancestors
// is what makes "**/.env" deny "/x/.env/inner" when .env is a directory.
func ancestry(abs string) []string {
	s := strings.TrimPrefix(filepath.ToSlash(abs), filepath.ToSlash(filepath.VolumeName(abs)))
	s = strings.TrimPrefix(s, "/")
	out := []string{s}
	for {
		i := strings.LastIndexByte(s, '/')
		if i < 0 {
			return out
		}
		s = s[:i]
		out = append(out, s)
	}
}
