package search

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

// GlobFile is a file a glob matched.
type GlobFile struct {
	Path    string    // absolute path where it was found
	ModTime time.Time // modification time
}

// GlobResult is what Glob found.
type GlobResult struct {
	Files   []GlobFile // newest first, ties by path
	Skipped Skipped
}

// Glob lists the files under o.Root whose slash-separated path relative to
// it matches pattern (doublestar syntax: ** for any number of directories,
// braces, classes), with the same skip rules as Grep. Directories are not
// listed. o.KeepName, o.KeepFile and o.KeepDir are replaced.
func Glob(ctx context.Context, o Options, pattern string) (*GlobResult, error) {
	if !doublestar.ValidatePattern(pattern) {
		return nil, fmt.Errorf("%q: %w", pattern, doublestar.ErrBadPattern)
	}
	o.KeepName, o.KeepFile = globKeep(pattern)
	o.KeepDir = dirPruner(pattern)
	var mu sync.Mutex
	var files []GlobFile
	skipped, err := walk(ctx, o, func(e *entry) Reason {
		fi, err := e.stat()
		if err != nil {
			return Unreadable
		}
		mu.Lock()
		files = append(files, GlobFile{Path: e.Path, ModTime: fi.modTime()})
		mu.Unlock()
		return Searched
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(files, func(a, b GlobFile) int {
		if c := b.ModTime.Compare(a.ModTime); c != 0 {
			return c
		}
		return cmp.Compare(a.Path, b.Path)
	})
	return &GlobResult{Files: files, Skipped: skipped}, nil
}

// globKeep returns the KeepName and KeepFile functions of a glob (one of
// them nil). "**/" followed by a pattern without a slash matches a path
// exactly when that pattern matches its base name, which is shorter to
// test and needs no path; "**/*.ext" is then a suffix test.
func globKeep(pattern string) (func(name string) bool, func(rel, name string) bool) {
	base, ok := strings.CutPrefix(pattern, "**/")
	switch {
	case !ok || strings.Contains(base, "/") || strings.Contains(base, "**"):
		return nil, func(rel, _ string) bool { return doublestar.MatchUnvalidated(pattern, rel) }
	case len(base) > 1 && base[0] == '*' && !strings.ContainsAny(base[1:], `*?[]{}\\`):
		suffix := base[1:]
		return func(name string) bool { return strings.HasSuffix(name, suffix) }, nil
	}
	return func(name string) bool { return doublestar.MatchUnvalidated(base, name) }, nil
}

// dirPruner returns a KeepDir function that skips directories no path
// matching pattern can lie in: it compares a directory's path with the
// pattern segment by segment, up to the first "**". It returns nil (keep
// every directory) when a brace group spans a "/", which makes segments
// ambiguous.
func dirPruner(pattern string) func(rel string) bool {
	if braceSpansSlash(pattern) {
		return nil
	}
	segs := strings.Split(pattern, "/")
	return func(rel string) bool {
		for i, part := range strings.Split(rel, "/") {
			switch {
			case i < len(segs) && segs[i] == "**":
				return true
			case i >= len(segs)-1:
				return false // deeper than the pattern's directories
			case !doublestar.MatchUnvalidated(segs[i], part):
				return false
			}
		}
		return true
	}
}

// braceSpansSlash reports whether a "/" occurs inside braces.
func braceSpansSlash(pattern string) bool {
	depth := 0
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			depth = max(depth-1, 0)
		case '/':
			if depth > 0 {
				return true
			}
		}
	}
	return false
}
