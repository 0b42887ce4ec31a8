package filesystem

import "testing"

// TestGlobMatch: search_files' and excludePatterns' globs match as
// minimatch(rel, pattern, {dot: true}) does; each want is what minimatch
// 10.2 (server-filesystem's) answered.
func TestGlobMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, rel string
		want         bool
	}{
		{"src/**", "src", false},
		{"src/**", "src/x", true},
		{"src/**", "src/x/y", true},
		{"**/lib/**", "src/lib", false},
		{"**/lib/**", "lib", false},
		{"**/lib/**", "a/lib/x", true},
		{"**/lib/**", "x/lib/lib", true},
		{"deep/**", "deep", false},
		{"deep/**", "deep/a/b", true},
		{"*/**", "a", false},
		{"*/**", "a/b", true},
		{"a/**/**", "a/b", true},
		{"**/b/**/**", "b", false},
		{"[ab]/**", "a", false},
		{"*.{md,txt}/**", "x.txt", false},
		{"**", "a", true},
		{"**", ".x", true},
		{"**/**", "a", true},
		{"**/*", "a/.b", true},
		{"a/**/b", "a/b", true},
		{"a/**/*", "a", false},
		{"a/**/", "a/b", false},
		{"**/", "a", false},
		{"a/", "a", false},
		{"*.txt", "x.txt", true},
		{"*.txt", "d/x.txt", false},
		{"**/*.txt", "x.txt", true},
		{"{a,b}/**", "a", false},
		{"{a,b}/**", "a/x", true},
		{"[", "[", false}, // malformed: nothing
	} {
		if got := globMatch(c.pattern, c.rel); got != c.want {
			t.Errorf("globMatch(%q, %q) = %t, want %t", c.pattern, c.rel, got, c.want)
		}
	}
}

// TestExcludedFromTree: directory_tree's excludePatterns as
// server-filesystem applies them: a pattern with "*" as a glob only, so
// "src/**" keeps src (with no children); one without also by name anywhere
// and below.
func TestExcludedFromTree(t *testing.T) {
	for _, c := range []struct {
		rel      string
		patterns []string
		want     bool
	}{
		{"src", []string{"src/**"}, false},
		{"src/a.go", []string{"src/**"}, true},
		{"x/lib", []string{"**/lib/**"}, false},
		{"x/lib/y", []string{"**/lib/**"}, true},
		{"node_modules", []string{"node_modules"}, true},
		{"a/node_modules", []string{"node_modules"}, true},
		{"a/node_modules/p", []string{"node_modules"}, true},
		{"a/b.dat", []string{"**/*.dat"}, true},
		{"b.dat", []string{"*.dat"}, true},
		{"a/b.dat", []string{"*.dat"}, false},
	} {
		if got := excludedFromTree(c.rel, c.patterns); got != c.want {
			t.Errorf("excludedFromTree(%q, %q) = %t, want %t", c.rel, c.patterns, got, c.want)
		}
	}
}
