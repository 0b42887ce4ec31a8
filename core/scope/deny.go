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
		if e == "" {
			return fmt.Errorf("scope: empty deny entry")
		}
		if !isPattern(e) {
			p.denyPaths = append(p.denyPaths, compileDenyPath(base, e))
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

// compileDenyPath makes a plain deny entry absolute and adds its
// symlink-resolved form, so denying a symlinked directory also denies the
// place it points to.
func compileDenyPath(base, entry string) denyPath {
	lex := absFrom(base, entry)
	d := denyPath{raw: entry, paths: []string{lex}}
	if res, err := resolvePath(lex); err == nil && res != lex {
		d.paths = append(d.paths, res)
	}
	return d
}

// compileDenyPattern validates a pattern and anchors it. Absolute patterns
// and patterns starting with ** are used as they are (they already match
// absolute paths anywhere); other relative patterns are anchored at base,
// in both its lexical and symlink-resolved spellings.
func compileDenyPattern(base, entry string) (denyPattern, error) {
	pat := filepath.ToSlash(entry)
	if len(pat) > 1 {
		pat = strings.TrimRight(pat, "/")
	}
	if !doublestar.ValidatePattern(pat) {
		return denyPattern{}, fmt.Errorf("scope: invalid deny pattern %q", entry)
	}
	dp := denyPattern{raw: entry}
	switch {
	case filepath.IsAbs(entry) || strings.HasPrefix(pat, "/"):
		dp.pats = []string{strings.TrimPrefix(pat, "/")}
	case strings.HasPrefix(pat, "**"):
		dp.pats = []string{pat}
	default:
		for _, b := range baseSpellings(base) {
			dp.pats = append(dp.pats, joinPattern(b, pat))
		}
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

// joinPattern prefixes a relative pattern with an escaped absolute
// directory, so meta characters in the directory name match literally.
func joinPattern(dir, pat string) string {
	d := strings.TrimPrefix(filepath.ToSlash(dir), "/")
	d = escapeMeta(d)
	if d == "" {
		return pat
	}
	return strings.TrimSuffix(d, "/") + "/" + pat
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
	for _, d := range p.denyPaths {
		for _, dp := range d.paths {
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
