package boris

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit"
	"github.com/mjkoo/boris/internal/flagenv"
)

// maxListEntries caps a directory listing so a huge tree cannot flood the
// agent's context.
const maxListEntries = 1000

// skippedDirs are never descended into by view's listing (docs/reference/tools.md#view).
var skippedDirs = []string{".git", "node_modules"}

// listing accumulates view's directory listing.
type listing struct {
	sb     strings.Builder
	count  int
	capped bool
}

// listDir lists abs two levels deep: dotfiles shown, .git and node_modules
// skipped, symlinks as "name -> target", directories with a trailing slash.
// Entries the policy refuses are left out.
func (b *tools) listDir(abs string) (*mcp.CallToolResult, error) {
	var l listing
	fmt.Fprintf(&l.sb, "%s/\n", strings.TrimSuffix(abs, "/"))
	if err := b.listLevel(&l, abs, 1); err != nil {
		return nil, err
	}
	if l.capped {
		fmt.Fprintf(&l.sb, "\n[Listing stopped at %d entries (at most %d, in %s of text). View a subdirectory, or use bash (find, ls) for more.]\n",
			l.count, maxListEntries, flagenv.Size(toolkit.MaxResultText))
	}
	return toolkit.TextResult(l.sb.String()), nil
}

// listLevel writes the entries of dir at the given depth (1 or 2).
func (b *tools) listLevel(l *listing, dir string, depth int) error {
	entries, err := b.readDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if l.count >= maxListEntries || l.sb.Len() >= toolkit.MaxResultText {
			l.capped = true
			return nil
		}
		path := filepath.Join(dir, e.Name())
		if slices.Contains(skippedDirs, e.Name()) || b.d.Policy().Check(path) != nil {
			continue
		}
		l.count++
		fmt.Fprintf(&l.sb, "%s%s\n", strings.Repeat("  ", depth), b.entryName(path, e))
		if e.IsDir() && depth < 2 {
			// A subdirectory that cannot be read is shown but not expanded.
			_ = b.listLevel(l, path, depth+1)
		}
	}
	return nil
}

// readDir reads a directory through the policy, sorted by name.
func (b *tools) readDir(dir string) ([]fs.DirEntry, error) {
	f, err := b.d.Policy().Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, fmt.Errorf("read directory %s: %w", dir, err)
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// entryName renders one listing entry.
func (b *tools) entryName(path string, e fs.DirEntry) string {
	switch {
	case e.Type()&fs.ModeSymlink != 0:
		target, err := b.d.Policy().Readlink(path)
		if err != nil {
			return e.Name() + " -> ?"
		}
		return e.Name() + " -> " + target
	case e.IsDir():
		return e.Name() + "/"
	default:
		return e.Name()
	}
}
