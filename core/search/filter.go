package search

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

// fileTypes maps each name the type filter accepts to the file names it
// selects (globs on the base name), after ripgrep's common types.
var fileTypes = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"c":        {"*.c", "*.h"},
		"cpp":      {"*.cpp", "*.cc", "*.cxx", "*.c++", "*.hpp", "*.hh", "*.hxx", "*.h++", "*.h", "*.inl"},
		"cs":       {"*.cs", "*.csx"},
		"css":      {"*.css", "*.scss", "*.sass", "*.less"},
		"docker":   {"Dockerfile", "Dockerfile.*", "*.dockerfile", "Containerfile"},
		"go":       {"*.go"},
		"html":     {"*.html", "*.htm", "*.xhtml"},
		"java":     {"*.java"},
		"js":       {"*.js", "*.jsx", "*.mjs", "*.cjs"},
		"json":     {"*.json", "*.jsonl"},
		"kotlin":   {"*.kt", "*.kts"},
		"lua":      {"*.lua"},
		"make":     {"Makefile", "makefile", "GNUmakefile", "*.mk", "*.mak"},
		"markdown": {"*.md", "*.markdown", "*.mdx"},
		"md":       {"*.md", "*.markdown", "*.mdx"},
		"php":      {"*.php"},
		"proto":    {"*.proto"},
		"py":       {"*.py", "*.pyi"},
		"ruby":     {"*.rb", "*.gemspec", "Gemfile", "Rakefile"},
		"rust":     {"*.rs"},
		"scala":    {"*.scala", "*.sbt"},
		"sh":       {"*.sh", "*.bash", "*.zsh", "*.ksh", ".bashrc", ".bash_profile", ".zshrc", ".profile"},
		"sql":      {"*.sql"},
		"swift":    {"*.swift"},
		"toml":     {"*.toml"},
		"ts":       {"*.ts", "*.tsx", "*.mts", "*.cts"},
		"txt":      {"*.txt"},
		"xml":      {"*.xml", "*.xsd", "*.xsl", "*.xslt", "*.svg"},
		"yaml":     {"*.yaml", "*.yml"},
	}
})

// Types returns the names the type filter accepts, sorted.
func Types() []string {
	names := make([]string, 0, len(fileTypes()))
	for name := range fileTypes() {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Filter selects files by name: an include glob and a file type.
type Filter struct {
	include     string
	includePath bool // include has a "/": it matches the path relative to the root
	exts        map[string]bool
	names       []string // other type globs
}

// NewFilter validates an include glob (doublestar syntax, with braces and
// classes; matched against the base name when it has no "/", else the
// slash-separated path relative to the search root) and a type name.
// Either may be empty. An error names what is wrong.
func NewFilter(include, typ string) (*Filter, error) {
	f := &Filter{include: include, includePath: strings.Contains(include, "/")}
	if include != "" && !doublestar.ValidatePattern(include) {
		return nil, fmt.Errorf("include %q is not a valid glob", include)
	}
	if typ == "" {
		return f, nil
	}
	globs, ok := fileTypes()[typ]
	if !ok {
		return nil, fmt.Errorf("unknown type %q; known types: %s", typ, strings.Join(Types(), ", "))
	}
	f.exts = map[string]bool{}
	for _, g := range globs {
		if ext, ok := strings.CutPrefix(g, "*"); ok && !strings.ContainsAny(ext, "*?[{") {
			f.exts[ext] = true
		} else {
			f.names = append(f.names, g)
		}
	}
	return f, nil
}

// Keep reports whether a file passes the filter; it has the signature of
// Options.KeepFile. A nil filter keeps everything.
func (f *Filter) Keep(rel, name string) bool {
	if f == nil {
		return true
	}
	if f.include != "" {
		s := name
		if f.includePath {
			s = rel
		}
		if !doublestar.MatchUnvalidated(f.include, s) {
			return false
		}
	}
	return f.exts == nil || f.exts[path.Ext(name)] || f.matchName(name)
}

// matchName matches the type's non-extension globs.
func (f *Filter) matchName(name string) bool {
	for _, g := range f.names {
		if doublestar.MatchUnvalidated(g, name) {
			return true
		}
	}
	return false
}
