package boris

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/scope"
	"github.com/mjkoo/boris/core/search"
	"github.com/mjkoo/boris/core/toolkit"
	"github.com/mjkoo/boris/internal/flagenv"
)

// maxGlobFiles caps a glob listing so a broad pattern cannot flood the
// agent's context.
const maxGlobFiles = 1000

type globParams struct {
	Pattern string `json:"pattern" jsonschema:"doublestar glob matched against file paths relative to path: * and ? within a name, ** for any number of directories, {a,b} alternatives, [a-z] classes; e.g. **/*.go, src/**/*.{ts,tsx}; *.go matches only directly in path"`
	Path    string `json:"path,omitempty" jsonschema:"directory to search; default the working directory"`
}

var globTool = &mcp.Tool{
	Name: "glob",
	Description: fmt.Sprintf("Find files by name with a doublestar glob (**/*.go, src/**/*.{ts,tsx}), newest first. "+
		"Lists files only, as absolute paths, at most %d. Skips .git directories and what .gitignore files ignore, "+
		"and ends every result with a [Skipped: ...] line counting what was left out and why.", maxGlobFiles),
	Annotations: &mcp.ToolAnnotations{Title: "Find files by name", ReadOnlyHint: true, OpenWorldHint: toolkit.Ptr(false)},
}

// glob implements the glob tool (docs/reference/tools.md#grep).
func (b *tools) glob(ctx context.Context, _ *mcp.CallToolRequest, p globParams) (*mcp.CallToolResult, error) {
	pattern, dir, err := splitGlob(p)
	if err != nil {
		return nil, err
	}
	root, err := b.d.Policy().Resolve(b.d.Dir(), dir)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(root); err == nil && !fi.IsDir() {
		return nil, toolkit.Fail(toolkit.InvalidInput, "glob searches a directory, but %s is %s; use view to read a file", root, scope.KindName(fi.Mode()))
	}
	res, err := search.Glob(ctx, search.Options{Policy: b.d.Policy(), Root: root}, pattern)
	switch {
	case errors.Is(err, doublestar.ErrBadPattern):
		return nil, toolkit.Fail(toolkit.InvalidInput, "pattern %q is not a valid glob", p.Pattern)
	case err != nil:
		return nil, err
	}
	return toolkit.TextResult(b.globText(res, p.Pattern, root)), nil
}

// splitGlob returns the pattern relative to the directory to search. An
// absolute pattern (when path is not given) is split at its first
// wildcard: "/src/app/**/*.go" searches /src/app for "**/*.go".
func splitGlob(p globParams) (pattern, dir string, err error) {
	pattern = strings.TrimPrefix(p.Pattern, "./")
	switch {
	case p.Pattern == "":
		return "", "", toolkit.Fail(toolkit.InvalidInput, "pattern must not be empty")
	case !strings.HasPrefix(pattern, "/"):
		return pattern, cmp.Or(p.Path, "."), nil
	case p.Path != "":
		return "", "", toolkit.Fail(toolkit.InvalidInput, "pattern %q is absolute; make it relative to path, or leave path out", p.Pattern)
	}
	base, rest := doublestar.SplitPattern(pattern)
	return rest, filepath.FromSlash(base), nil
}

// globText renders a glob result: paths newest first, a note when capped,
// and the skip report.
func (b *tools) globText(res *search.GlobResult, pattern, root string) string {
	var sb strings.Builder
	if len(res.Files) == 0 {
		fmt.Fprintf(&sb, "No files match `%s` in %s.\n", pattern, root)
	}
	shown := 0
	for _, f := range res.Files {
		if shown == maxGlobFiles || (shown > 0 && sb.Len()+len(f.Path)+1 > toolkit.MaxResultText) {
			break
		}
		sb.WriteString(f.Path + "\n")
		shown++
	}
	sb.WriteString("\n")
	switch n := len(res.Files); {
	case shown == maxGlobFiles && n > shown:
		fmt.Fprintf(&sb, "[Showing the %d newest of %d matching files. Narrow the pattern or path to see the others.]\n", shown, n)
	case n > shown:
		fmt.Fprintf(&sb, "[Showing the %d newest of %d matching files: a result holds at most %s of text. Narrow the pattern or path to see the others.]\n",
			shown, n, flagenv.Size(toolkit.MaxResultText))
	}
	sb.WriteString(res.Skipped.Footer(b.opt.MaxFileSize.String()))
	return sb.String()
}
