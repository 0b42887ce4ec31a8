package boris

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit"
	"github.com/mjkoo/boris/internal/plural"
)

// snippetContext is how many lines around an edit str_replace shows.
const snippetContext = 4

type strReplaceParams struct {
	Path       string `json:"path" jsonschema:"file to edit; relative paths resolve against the working directory"`
	OldStr     string `json:"old_str" jsonschema:"exact text to replace, including whitespace and indentation; must occur exactly once unless replace_all is true"`
	NewStr     string `json:"new_str,omitempty" jsonschema:"replacement text; empty or omitted deletes old_str"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"replace every occurrence instead of requiring exactly one"`
}

var strReplaceTool = &mcp.Tool{
	Name: "str_replace",
	Description: "Replace exact text in a file. old_str must occur exactly once (the error lists the line of every match otherwise) unless replace_all is true. " +
		"Everything outside the replaced text is kept byte for byte (line endings, tabs, BOM, final newline, file mode); the write is atomic.",
	Annotations: &mcp.ToolAnnotations{Title: "Replace text in file", DestructiveHint: toolkit.Ptr(true), OpenWorldHint: toolkit.Ptr(false)},
}

// strReplace implements str_replace (docs/reference/tools.md#str_replace).
func (b *tools) strReplace(ctx context.Context, _ *mcp.CallToolRequest, p strReplaceParams) (*mcp.CallToolResult, error) {
	if p.OldStr == "" {
		return nil, toolkit.Fail(toolkit.InvalidInput, "old_str must not be empty; to write a whole file use create_file")
	}
	if p.OldStr == p.NewStr {
		return nil, toolkit.Fail(toolkit.InvalidInput, "old_str and new_str are identical: nothing to change")
	}
	abs, err := b.d.Policy().Resolve(b.d.Dir(), p.Path)
	if err != nil {
		return nil, err
	}
	b.d.Recorder().BeforeWrite(ctx, abs)
	data, err := b.readForEdit(abs)
	if err != nil {
		return nil, err
	}
	st := b.staleness(ctx, abs)
	e := planEdit(data, p)
	switch {
	case e.count == 0:
		return nil, b.notFound(ctx, data, p.OldStr, abs, st)
	case e.count > 1 && !p.ReplaceAll:
		return nil, b.ambiguous(e.count, data, e.old, abs)
	}
	toolkit.Editing(ctx, abs) // diagnostics compare against the file as it was
	if err := b.d.Policy().WriteFile(abs, e.result, 0o644); err != nil {
		return nil, err
	}
	b.saw(abs)
	b.d.Recorder().RecordFiles("str_replace", b.d.Recorder().Rel(abs), abs)
	report := e.report(abs)
	if st != nil {
		report += "\n" + st.Line(b.d.Recorder().Rel(abs))
	}
	return toolkit.TextResult(report), nil
}

// edit is a planned replacement.
type edit struct {
	result    []byte
	old, new  []byte
	count     int
	firstLine int // line of the first replacement, in the result
}

// planEdit finds old_str in data and computes the new contents when it
// occurs once (or replace_all is set); count says how often it occurs. A
// CRLF file edited with LF-only strings (as agents usually send them) is
// matched with its own line endings, so the file keeps them.
func planEdit(data []byte, p strReplaceParams) *edit {
	e := &edit{old: []byte(p.OldStr), new: []byte(p.NewStr)}
	e.count = bytes.Count(data, e.old)
	if e.count == 0 && bytes.Contains(data, []byte("\r\n")) && !strings.Contains(p.OldStr, "\r") {
		crlf := []byte(p.OldStr)
		crlf = bytes.ReplaceAll(crlf, []byte("\n"), []byte("\r\n"))
		if n := bytes.Count(data, crlf); n > 0 {
			e.old, e.count = crlf, n
			e.new = bytes.ReplaceAll(e.new, []byte("\n"), []byte("\r\n"))
		}
	}
	if e.count == 0 || e.count > 1 && !p.ReplaceAll {
		return e
	}
	at := bytes.Index(data, e.old)
	e.firstLine = lineOf(data, at)
	if p.ReplaceAll {
		e.result = bytes.ReplaceAll(data, e.old, e.new)
		return e
	}
	e.result = make([]byte, 0, len(data)-len(e.old)+len(e.new))
	e.result = append(append(append(e.result, data[:at]...), e.new...), data[at+len(e.old):]...)
	return e
}

// maxMatchLines is how many occurrences an AMBIGUOUS_MATCH error places.
const maxMatchLines = 100

// matchLines says where old occurs in data: "at line 4 (2 times)", "at
// lines 1, 3", "at lines 2 (3 times), 9", each line once with how many
// occurrences start on it, and "and N more" past the first maxMatchLines.
func matchLines(data, old []byte) string {
	type at struct{ line, n int }
	var lines []at
	n, line, counted := 0, 1, 0 // counted: bytes of data whose lines are in line
	for off := 0; ; {
		i := bytes.Index(data[off:], old)
		if i < 0 {
			break
		}
		if n++; n <= maxMatchLines {
			line += bytes.Count(data[counted:off+i], []byte("\n"))
			counted = off + i
			if k := len(lines) - 1; k >= 0 && lines[k].line == line {
				lines[k].n++
			} else {
				lines = append(lines, at{line, 1})
			}
		}
		off += i + max(len(old), 1)
	}
	parts := make([]string, 0, len(lines)+1)
	for _, l := range lines {
		if l.n > 1 {
			parts = append(parts, fmt.Sprintf("%d (%d times)", l.line, l.n))
		} else {
			parts = append(parts, fmt.Sprint(l.line))
		}
	}
	if n > maxMatchLines {
		parts = append(parts, fmt.Sprintf("and %d more", n-maxMatchLines))
	}
	if len(parts) == 1 {
		return "at line " + parts[0]
	}
	return "at lines " + strings.Join(parts, ", ")
}

// report describes a done edit: the count for replace_all, otherwise the
// edited region with line numbers so the agent can check it.
func (e *edit) report(abs string) string {
	if e.count > 1 {
		return fmt.Sprintf("Replaced %s in %s.", plural.S(e.count, "occurrence"), abs)
	}
	last := e.firstLine + bytes.Count(bytes.TrimSuffix(e.new, []byte("\n")), []byte("\n"))
	return fmt.Sprintf("Edited %s. The edited region now reads:\n%s", abs,
		snippet(e.result, e.firstLine-snippetContext, last+snippetContext))
}
