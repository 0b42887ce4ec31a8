package search

import (
	"path"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// TestGlobKeepMatchesDoublestar checks the shortcuts of globKeep against
// doublestar matching the whole relative path.
func TestGlobKeepMatchesDoublestar(t *testing.T) {
	patterns := []string{"**/*.go", "**/*.c", "**/*", "**/.*", "**/main.go", "**/*.{c,h}", "**/a?.go",
		"**/[ab].go", "src/**/*.go", "*.go", "**/x/*.go", "**/**/*.go", "**/*.go.*"}
	paths := []string{"main.go", "a.go", "b.go", "ab.go", "x/main.go", "x/y/z.c", ".hidden", "x/.go", "go",
		"src/a.go", "src/x/y.go", "y.h", "x/a1.go", "t.go.bak", "x.gox"}
	for _, p := range patterns {
		keepName, keepFile := globKeep(p)
		keep := func(rel string) bool {
			if keepName != nil {
				return keepName(path.Base(rel))
			}
			return keepFile(rel, path.Base(rel))
		}
		for _, rel := range paths {
			if got, want := keep(rel), doublestar.MatchUnvalidated(p, rel); got != want {
				t.Errorf("globKeep(%q)(%q) = %v, want %v", p, rel, got, want)
			}
		}
	}
}
