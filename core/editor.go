package core

import (
	"context"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// editorCommands are str_replace_editor's commands, in schema order.
var editorCommands = []any{"view", "create", "str_replace", "insert"}

// editorParams is the schema Claude models are trained on for file editing
// (SPEC §2.9). Each command maps onto the same logic as the split tools.
type editorParams struct {
	Command    string  `json:"command" jsonschema:"the operation: view, create, str_replace or insert"`
	Path       string  `json:"path" jsonschema:"file or directory; relative paths resolve against the working directory"`
	ViewRange  []int   `json:"view_range,omitempty" jsonschema:"view: optional [start, end] line range, 1-based; end -1 means to the end of the file"`
	OldStr     *string `json:"old_str,omitempty" jsonschema:"str_replace: exact text to replace; must occur exactly once unless replace_all is true"`
	NewStr     *string `json:"new_str,omitempty" jsonschema:"str_replace: replacement text (empty or omitted deletes old_str); insert: the text to insert"`
	ReplaceAll bool    `json:"replace_all,omitempty" jsonschema:"str_replace: replace every occurrence"`
	FileText   *string `json:"file_text,omitempty" jsonschema:"create: the complete contents of the file"`
	InsertLine *int    `json:"insert_line,omitempty" jsonschema:"insert: the line after which to insert (0 inserts at the beginning of the file)"`
	InsertText *string `json:"insert_text,omitempty" jsonschema:"insert: the text to insert (the same as new_str)"`
}

func (editorParams) tuneSchema(s *jsonschema.Schema) {
	s.Properties["command"].Enum = editorCommands
}

var editorTool = &mcp.Tool{
	Name: "str_replace_editor",
	Description: "View, create and edit files. view: a file with line numbers (cat -n style) or a directory two levels deep; images are returned as images. " +
		"create: write file_text to path, creating parents, overwriting an existing file (its mode kept). " +
		"str_replace: replace old_str, which must occur exactly once unless replace_all, with new_str; all other bytes are kept. " +
		"insert: insert new_str (or insert_text) after line insert_line. Writes are atomic.",
	Annotations: &mcp.ToolAnnotations{Title: "File editor", DestructiveHint: ptr(true), OpenWorldHint: ptr(false)},
}

// editorTool is str_replace_editor as this core registers it: with
// --read-only only view works, and the annotations and the command enum
// say so. The arguments are still validated against the full schema, so a
// client that sends another command anyway is told the server is
// read-only rather than that the command does not exist.
func (b *boris) editorTool() *mcp.Tool {
	if !b.cfg.ReadOnly {
		return editorTool
	}
	t := *editorTool
	t.Description = "View files and directories (this server is read-only: create, str_replace and insert are refused). " + t.Description
	t.Annotations = &mcp.ToolAnnotations{Title: "File viewer", ReadOnlyHint: true, OpenWorldHint: ptr(false)}
	schema := mustSchema[editorParams](t.Name)
	schema.Properties["command"].Enum = []any{"view"}
	schema.Properties["command"].Description = "the operation: view (this server is read-only)"
	t.InputSchema = schema
	return &t
}

// editor dispatches str_replace_editor's commands onto the split tools' logic.
func (b *boris) editor(ctx context.Context, req *mcp.CallToolRequest, p editorParams) (*mcp.CallToolResult, error) {
	if err := p.checkApplicable(); err != nil {
		return nil, err
	}
	if b.cfg.ReadOnly && p.Command != "view" {
		return nil, fail(AccessDenied, "this server is read-only: %s is not allowed, only view", p.Command)
	}
	switch p.Command {
	case "view":
		return b.view(ctx, req, viewParams{Path: p.Path, ViewRange: p.ViewRange})
	case "create":
		if p.FileText == nil {
			return nil, fail(InvalidInput, "create needs file_text, the contents of the file")
		}
		return b.createFile(ctx, req, createFileParams{Path: p.Path, Content: *p.FileText})
	case "str_replace":
		if p.OldStr == nil {
			return nil, fail(InvalidInput, "str_replace needs old_str, the exact text to replace")
		}
		return b.strReplace(ctx, req, strReplaceParams{Path: p.Path, OldStr: *p.OldStr, NewStr: deref(p.NewStr), ReplaceAll: p.ReplaceAll})
	case "insert":
		return b.editorInsert(ctx, p)
	}
	return nil, fail(InvalidInput, "unknown command %q: want one of view, create, str_replace, insert", p.Command)
}

// editorInsert resolves insert's text, given as new_str or its alias
// insert_text, and runs the insert.
func (b *boris) editorInsert(ctx context.Context, p editorParams) (*mcp.CallToolResult, error) {
	if p.InsertLine == nil {
		return nil, fail(InvalidInput, "insert needs insert_line, the line after which to insert (0 for the beginning)")
	}
	text := p.NewStr
	switch {
	case text == nil:
		text = p.InsertText
	case p.InsertText != nil && *p.InsertText != *text:
		return nil, fail(InvalidInput, "insert got different new_str and insert_text; send one of them")
	}
	if text == nil {
		return nil, fail(InvalidInput, "insert needs the text to insert, as new_str or insert_text")
	}
	return b.insert(ctx, p.Path, *p.InsertLine, *text)
}

// checkApplicable refuses parameters that belong to another command, so a
// mistaken call is reported instead of half-applied.
func (p editorParams) checkApplicable() error {
	given := map[string]bool{
		"view_range":  p.ViewRange != nil,
		"old_str":     p.OldStr != nil,
		"new_str":     p.NewStr != nil,
		"replace_all": p.ReplaceAll,
		"file_text":   p.FileText != nil,
		"insert_line": p.InsertLine != nil,
		"insert_text": p.InsertText != nil,
	}
	allowed := map[string][]string{
		"view":        {"view_range"},
		"create":      {"file_text"},
		"str_replace": {"old_str", "new_str", "replace_all"},
		"insert":      {"insert_line", "new_str", "insert_text"},
	}[p.Command]
	for _, name := range []string{"view_range", "old_str", "new_str", "replace_all", "file_text", "insert_line", "insert_text"} {
		if given[name] && !slices.Contains(allowed, name) && allowed != nil {
			return fail(InvalidInput, "%s does not apply to the %s command", name, p.Command)
		}
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
