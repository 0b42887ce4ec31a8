package lsp

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mjkoo/boris/internal/plural"
)

// maxLines caps the diagnostics one result lists; the diagnostics tool
// lists them all.
const maxLines = 20

// Render describes changes for a tool result, relative to dir: a
// heading per file ("[diagnostics] main.go: 1 new problem, 1 fixed"),
// then one line per problem, new before fixed and errors first, files
// with new errors first; at most maxLines problems. Empty changes say
// nothing.
func Render(changes []Change, dir, lead string) string {
	changes = slices.DeleteFunc(slices.Clone(changes), Change.Empty)
	if len(changes) == 0 {
		return ""
	}
	slices.SortStableFunc(changes, func(a, b Change) int { return worst(a.New) - worst(b.New) })
	var sb strings.Builder
	left := maxLines
	hidden := 0
	for _, c := range changes {
		fmt.Fprintf(&sb, "[diagnostics] %s%s: %s", lead, rel(dir, c.Path), counts(c))
		for _, group := range []struct {
			tag string
			ds  []Diagnostic
		}{{"new  ", c.New}, {"fixed", c.Fixed}} {
			for _, d := range group.ds {
				if left == 0 {
					hidden++
					continue
				}
				left--
				fmt.Fprintf(&sb, "\n  %s %s", group.tag, d)
			}
		}
		sb.WriteString("\n")
	}
	if hidden > 0 {
		fmt.Fprintf(&sb, "[diagnostics] … and %d more not shown: the diagnostics tool lists every current problem\n", hidden)
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

// counts is "1 new problem, 2 fixed", leaving out a zero.
func counts(c Change) string {
	var parts []string
	if len(c.New) > 0 {
		parts = append(parts, plural.S(len(c.New), "new problem"))
	}
	if len(c.Fixed) > 0 {
		parts = append(parts, fmt.Sprintf("%d fixed", len(c.Fixed)))
	}
	return strings.Join(parts, ", ")
}

// worst is the most severe severity in ds (lower is worse); 5 for none.
func worst(ds []Diagnostic) int {
	w := 5
	for _, d := range ds {
		w = min(w, int(d.Severity))
	}
	return w
}

// rel is path relative to dir when it lies within it.
func rel(dir, path string) string {
	if r, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}

// RenderList describes the current problems of files (path to
// diagnostics), errors first, at most limit lines.
func RenderList(files map[string][]Diagnostic, dir string, limit int) string {
	paths := make([]string, 0, len(files))
	total := 0
	for p, ds := range files {
		if len(ds) > 0 {
			paths = append(paths, p)
			total += len(ds)
		}
	}
	if total == 0 {
		return "No problems."
	}
	slices.SortFunc(paths, func(a, b string) int {
		if w := worst(files[a]) - worst(files[b]); w != 0 {
			return w
		}
		return strings.Compare(a, b)
	})
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s in %s:", plural.S(total, "problem"), plural.S(len(paths), "file"))
	shown := 0
	for _, p := range paths {
		fmt.Fprintf(&sb, "\n%s", rel(dir, p))
		for _, d := range files[p] {
			if shown == limit {
				fmt.Fprintf(&sb, "\n… %d more not shown", total-shown)
				return sb.String()
			}
			shown++
			fmt.Fprintf(&sb, "\n  %s", d)
		}
	}
	return sb.String()
}
