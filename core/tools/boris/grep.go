package boris

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/search"
	"github.com/mjkoo/boris/core/toolkit"
	"github.com/mjkoo/boris/internal/flagenv"
	"github.com/mjkoo/boris/internal/plural"
)

// defaultHeadLimit is how many entries grep shows when head_limit is not
// given: files in files_with_matches and count modes, lines in content mode.
const defaultHeadLimit = 250

// The output modes grep accepts.
const (
	modeFiles   = "files_with_matches"
	modeContent = "content"
	modeCount   = "count"
)

type grepParams struct {
	Pattern         string `json:"pattern" jsonschema:"regular expression to search for, in RE2 syntax (Go, ripgrep): no lookaround or backreferences; escape literal metacharacters, e.g. interface\\{\\}"`
	Path            string `json:"path,omitempty" jsonschema:"file or directory to search; default the working directory"`
	Include         string `json:"include,omitempty" jsonschema:"only search files matching this glob: without a / it matches the file name (*.go, *.{ts,tsx}); with a / the path relative to path (src/**/*.go)"`
	Type            string `json:"type,omitempty" jsonschema:"only search files of this type: go, js, ts, py, rust, java, c, cpp, md, json, yaml, sh, html, css and more (an unknown type's error lists them all)"`
	OutputMode      string `json:"output_mode,omitempty" jsonschema:"files_with_matches (default): paths of matching files; content: matching lines as path:line:text; count: path:N matching lines per file"`
	CaseInsensitive bool   `json:"case_insensitive,omitempty" jsonschema:"ignore case"`
	Multiline       bool   `json:"multiline,omitempty" jsonschema:"let matches span lines: . matches newlines and the pattern runs over the whole file; default false matches each line on its own"`
	ContextBefore   int    `json:"context_before,omitempty" jsonschema:"content mode: lines to show before each match"`
	ContextAfter    int    `json:"context_after,omitempty" jsonschema:"content mode: lines to show after each match"`
	Context         int    `json:"context,omitempty" jsonschema:"content mode: lines to show before and after each match, unless context_before or context_after say otherwise"`
	LineNumbers     *bool  `json:"line_numbers,omitempty" jsonschema:"content mode: show line numbers (default true)"`
	HeadLimit       *int   `json:"head_limit,omitempty" jsonschema:"show at most this many entries (files, or lines in content mode); default 250, 0 for all"`
	Offset          int    `json:"offset,omitempty" jsonschema:"skip this many entries first, to page through results"`
}

var grepTool = &mcp.Tool{
	Name: "grep",
	Description: "Search file contents with a regular expression (RE2 syntax), fast: a parallel walk with literal prefilters. " +
		"Searches path (default the working directory) recursively; skips binary files, .git directories, files over the size limit and what .gitignore files ignore, " +
		"and ends every result with a [Skipped: ...] line counting what was left out and why. Files are listed newest first. " +
		"Output modes: files_with_matches (default, one path per line), content (path:line:text, context lines path-line-text, -- between groups), count (path:N). " +
		"Results are paged: 250 entries by default; a note gives the offset for the next page.",
	Annotations: &mcp.ToolAnnotations{Title: "Search file contents", ReadOnlyHint: true, OpenWorldHint: toolkit.Ptr(false)},
}

// grep implements the grep tool (docs/reference/tools.md#grep).
func (b *tools) grep(ctx context.Context, _ *mcp.CallToolRequest, p grepParams) (*mcp.CallToolResult, error) {
	return b.runGrep(ctx, p)
}

// runGrep is grep's logic, shared by every spelling of its parameters.
func (b *tools) runGrep(ctx context.Context, p grepParams) (*mcp.CallToolResult, error) {
	q, err := newGrepQuery(p)
	if err != nil {
		return nil, err
	}
	root, err := b.d.Policy().Resolve(b.d.Dir(), cmp.Or(p.Path, "."))
	if err != nil {
		return nil, err
	}
	res, err := search.Grep(ctx, search.GrepOptions{
		Options:     search.Options{Policy: b.d.Policy(), Root: root, KeepFile: q.filter.Keep},
		Matcher:     q.matcher,
		Mode:        q.mode,
		MaxFileSize: int64(b.opt.MaxFileSize),
		Before:      q.content.Before,
		After:       q.content.After,
	})
	if err != nil {
		return nil, err
	}
	page := q.render(res)
	var sb strings.Builder
	if page.Total == 0 {
		fmt.Fprintf(&sb, "No matches for `%s` in %s%s.\n", p.Pattern, root, describeFilters(p))
	}
	sb.WriteString(page.Text)
	sb.WriteString("\n")
	if note := pageNote(page, p.Offset, q.unit()); note != "" {
		sb.WriteString(note + "\n")
	}
	sb.WriteString(res.Skipped.Footer(b.opt.MaxFileSize.String()))
	return toolkit.TextResult(sb.String()), nil
}

// grepQuery is a validated grep request.
type grepQuery struct {
	matcher *search.Matcher
	filter  *search.Filter
	mode    search.Mode
	content search.ContentOptions
	page    search.Page
}

// newGrepQuery validates grep's parameters.
func newGrepQuery(p grepParams) (*grepQuery, error) {
	q := &grepQuery{page: search.Page{Offset: p.Offset, Limit: defaultHeadLimit, MaxBytes: toolkit.MaxResultText}}
	if err := q.setMode(p.OutputMode); err != nil {
		return nil, err
	}
	if err := q.setNumbers(p); err != nil {
		return nil, err
	}
	if p.Pattern == "" {
		return nil, toolkit.Fail(toolkit.InvalidInput, "pattern must not be empty")
	}
	m, err := search.NewMatcher(p.Pattern, p.CaseInsensitive, p.Multiline)
	if err != nil {
		return nil, toolkit.Fail(toolkit.InvalidInput, "pattern is not a valid RE2 regular expression: %v", err)
	}
	q.matcher = m
	if q.filter, err = search.NewFilter(p.Include, p.Type); err != nil {
		return nil, toolkit.Fail(toolkit.InvalidInput, "%v", err)
	}
	return q, nil
}

// setMode parses output_mode.
func (q *grepQuery) setMode(mode string) error {
	switch mode {
	case "", modeFiles:
		q.mode = search.FilesWithMatches
	case modeContent:
		q.mode = search.Content
	case modeCount:
		q.mode = search.Count
	default:
		return toolkit.Fail(toolkit.InvalidInput, "output_mode %q is not one of %s, %s, %s", mode, modeFiles, modeContent, modeCount)
	}
	return nil
}

// setNumbers checks and applies the numeric parameters.
func (q *grepQuery) setNumbers(p grepParams) error {
	for _, n := range []struct {
		name string
		v    int
	}{{"context_before", p.ContextBefore}, {"context_after", p.ContextAfter}, {"context", p.Context}, {"offset", p.Offset}} {
		if n.v < 0 {
			return toolkit.Fail(toolkit.InvalidInput, "%s must be 0 or more, got %d", n.name, n.v)
		}
	}
	if p.HeadLimit != nil {
		if *p.HeadLimit < 0 {
			return toolkit.Fail(toolkit.InvalidInput, "head_limit must be 0 (no limit) or more, got %d", *p.HeadLimit)
		}
		q.page.Limit = *p.HeadLimit
	}
	q.content = search.ContentOptions{
		Before:      cmp.Or(p.ContextBefore, p.Context),
		After:       cmp.Or(p.ContextAfter, p.Context),
		LineNumbers: p.LineNumbers == nil || *p.LineNumbers,
	}
	return nil
}

// render produces the requested page in the query's mode.
func (q *grepQuery) render(res *search.GrepResult) search.Rendered {
	switch q.mode {
	case search.Content:
		return res.RenderContent(q.content, q.page)
	case search.Count:
		return res.RenderCounts(q.page)
	}
	return res.RenderFiles(q.page)
}

// unit names the entries of the query's mode.
func (q *grepQuery) unit() string {
	if q.mode == search.Content {
		return "lines"
	}
	return "files"
}

// pageNote says which entries a page shows when it is not all of them.
func pageNote(r search.Rendered, offset int, unit string) string {
	switch {
	case r.Total == 0 || (r.From == 0 && r.To == r.Total):
		return ""
	case offset >= r.Total:
		verb := "are"
		if r.Total == 1 {
			verb = "is"
		}
		return fmt.Sprintf("[Offset %d is past the end: there %s %s.]", offset, verb, plural.S(r.Total, strings.TrimSuffix(unit, "s")))
	case r.Full:
		return fmt.Sprintf("[Showing %s %d-%d of %d: a result holds at most %s of text. Pass offset: %d for more.]",
			unit, r.From+1, r.To, r.Total, flagenv.Size(toolkit.MaxResultText), r.To)
	case r.To < r.Total:
		return fmt.Sprintf("[Showing %s %d-%d of %d. Pass offset: %d for more.]", unit, r.From+1, r.To, r.Total, r.To)
	}
	return fmt.Sprintf("[Showing %s %d-%d of %d.]", unit, r.From+1, r.To, r.Total)
}

// describeFilters names the include and type filters for a no-match
// message.
func describeFilters(p grepParams) string {
	var parts []string
	if p.Include != "" {
		parts = append(parts, "include "+p.Include)
	}
	if p.Type != "" {
		parts = append(parts, "type "+p.Type)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
