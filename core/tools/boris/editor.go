package boris

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit"
)

// editorCommands are every command of Anthropic's text editor versions, in
// schema order: what arguments are validated against. Each version's tool
// lists only its own (editorVersion), and a command it lacks is answered
// as that version's documentation answers it.
var editorCommands = []any{"view", "create", "str_replace", "insert", "undo_edit"}

// editorParams is the schema Claude models are trained on for file editing
// (docs/reference/tools.md#the-anthropic-compatible-editor). Each command maps onto the same logic as the split tools.
type editorParams struct {
	Command       string  `json:"command" jsonschema:"the operation: view, create, str_replace or insert"`
	Path          string  `json:"path" jsonschema:"file or directory; relative paths resolve against the working directory"`
	ViewRange     []int   `json:"view_range,omitempty" jsonschema:"view: optional [start, end] line range, 1-based; end -1 means to the end of the file"`
	OldStr        *string `json:"old_str,omitempty" jsonschema:"str_replace: exact text to replace; must occur exactly once unless replace_all is true"`
	NewStr        *string `json:"new_str,omitempty" jsonschema:"str_replace: replacement text (empty or omitted deletes old_str); insert: the text to insert"`
	ReplaceAll    bool    `json:"replace_all,omitempty" jsonschema:"str_replace: replace every occurrence"`
	FileText      *string `json:"file_text,omitempty" jsonschema:"create: the complete contents of the file"`
	InsertLine    *int    `json:"insert_line,omitempty" jsonschema:"insert: the line after which to insert (0 inserts at the beginning of the file)"`
	InsertText    *string `json:"insert_text,omitempty" jsonschema:"insert: the text to insert (the same as new_str)"`
	MaxCharacters *int    `json:"max_characters,omitempty" jsonschema:"view: show at most this many characters of the result (Anthropic sets it in the tool definition; MCP has none, so it is a parameter)"`
}

func (editorParams) TuneSchema(s *jsonschema.Schema) {
	s.Properties["command"].Enum = editorCommands
}

// editorVersion is one version of Anthropic's text editor tool as Boris
// serves it (https://docs.claude.com/en/docs/agents-and-tools/tool-use/text-editor-tool).
type editorVersion struct {
	name     string   // the tool name the models call
	commands []string // its commands, in schema order
	maxChars bool     // view takes max_characters (text_editor_20250728)
	// documented: the version's documented semantics where Boris's own
	// differ (create refuses an existing file; Anthropic's messages for a
	// missing path, a directory, an unknown command). The bare flag keeps
	// its first meaning.
	documented bool
}

var (
	editorBare     = editorVersion{name: "str_replace_editor", commands: []string{"view", "create", "str_replace", "insert"}}
	editor20250124 = editorVersion{name: "str_replace_editor", commands: []string{"view", "create", "str_replace", "insert", "undo_edit"}, documented: true}
	editor20250728 = editorVersion{name: "str_replace_based_edit_tool", commands: []string{"view", "create", "str_replace", "insert"}, maxChars: true, documented: true}
)

// editorVersion is the version --anthropic-compat picked.
func (b *tools) editorVersion() editorVersion {
	switch b.opt.AnthropicCompat {
	case Compat20250124:
		return editor20250124
	case Compat20250728:
		return editor20250728
	}
	return editorBare
}

const editorDescription = "View, create and edit files. view: a file with line numbers (cat -n style) or a directory two levels deep; images are returned as images. " +
	"create: write file_text to path, creating parents%s. " +
	"str_replace: replace old_str, which must occur exactly once unless replace_all, with new_str; all other bytes are kept. " +
	"insert: insert new_str (or insert_text) after line insert_line. Writes are atomic.%s"

// editorTool is the editor tool as this core registers it: the version's
// name, commands and parameters; with --read-only only view, and the
// annotations say so. The arguments are still validated against the full
// schema, so a client that sends another command anyway is told why it is
// refused rather than that its arguments are malformed.
func (b *tools) editorTool() *mcp.Tool {
	v := b.editorVersion()
	create, undo := ", overwriting an existing file (its mode kept)", ""
	if v.documented {
		create = "; an existing file is refused (use str_replace)"
	}
	if slices.Contains(v.commands, "undo_edit") {
		undo = " undo_edit: undo the latest change to path (Boris's checkpoints; the undo is itself a checkpoint)."
	}
	t := &mcp.Tool{
		Name:        v.name,
		Description: fmt.Sprintf(editorDescription, create, undo),
		Annotations: &mcp.ToolAnnotations{Title: "File editor", DestructiveHint: toolkit.Ptr(true), OpenWorldHint: toolkit.Ptr(false)},
	}
	commands := v.commands
	schema := toolkit.MustSchema[editorParams](t.Name)
	if b.opt.ReadOnly {
		commands = []string{"view"}
		t.Description = "View files and directories (this server is read-only: only view is allowed). " + t.Description
		t.Annotations = &mcp.ToolAnnotations{Title: "File viewer", ReadOnlyHint: true, OpenWorldHint: toolkit.Ptr(false)}
	}
	schema.Properties["command"].Enum = nil
	for _, c := range commands {
		schema.Properties["command"].Enum = append(schema.Properties["command"].Enum, c)
	}
	schema.Properties["command"].Description = "the operation: " + strings.Join(commands, ", ")
	if !v.maxChars {
		delete(schema.Properties, "max_characters")
	}
	t.InputSchema = schema
	return t
}

// editor dispatches the editor's commands onto the split tools' logic.
func (b *tools) editor(ctx context.Context, req *mcp.CallToolRequest, p editorParams) (*mcp.CallToolResult, error) {
	v := b.editorVersion()
	if !slices.Contains(v.commands, p.Command) {
		if v.documented {
			return nil, toolkit.Fail(toolkit.InvalidInput, "Unrecognized command %s. The allowed commands for the %s tool are: %s", p.Command, v.name, strings.Join(v.commands, ", "))
		}
		return nil, toolkit.Fail(toolkit.InvalidInput, "unknown command %q: want one of %s", p.Command, strings.Join(v.commands, ", "))
	}
	if err := p.checkApplicable(v); err != nil {
		return nil, err
	}
	if b.opt.ReadOnly && p.Command != "view" {
		return nil, toolkit.Fail(toolkit.AccessDenied, "this server is read-only: %s is not allowed, only view", p.Command)
	}
	if v.documented {
		if err := b.editorCheckPath(p); err != nil {
			return nil, err
		}
	}
	switch p.Command {
	case "view":
		res, err := b.view(ctx, req, viewParams{Path: p.Path, ViewRange: p.ViewRange})
		if err == nil && p.MaxCharacters != nil {
			res, err = truncateText(res, *p.MaxCharacters)
		}
		return res, err
	case "create":
		if p.FileText == nil {
			return nil, toolkit.Fail(toolkit.InvalidInput, "create needs file_text, the contents of the file")
		}
		return b.createFile(ctx, req, createFileParams{Path: p.Path, Content: *p.FileText})
	case "str_replace":
		if p.OldStr == nil {
			return nil, toolkit.Fail(toolkit.InvalidInput, "str_replace needs old_str, the exact text to replace")
		}
		return b.strReplace(ctx, req, strReplaceParams{Path: p.Path, OldStr: *p.OldStr, NewStr: deref(p.NewStr), ReplaceAll: p.ReplaceAll})
	case "insert":
		return b.editorInsert(ctx, p)
	}
	return b.d.UndoLastEdit(ctx, req, p.Path) // undo_edit, the only other command any version has
}

// editorCheckPath answers, before any command runs, what Anthropic's
// editor answers about its path (the reference implementation's
// validate_path): a path that does not exist (except for create), an
// existing one for create, which never overwrites, and a directory for
// anything but view. The path is resolved through the scoping first, so a
// refused path is refused as any file tool refuses it, and its existence
// is never told.
func (b *tools) editorCheckPath(p editorParams) error {
	abs, err := b.d.Policy().Resolve(b.d.Dir(), p.Path)
	if err != nil {
		return err
	}
	fi, err := os.Stat(abs)
	switch {
	case err != nil && p.Command != "create":
		if errors.Is(err, fs.ErrNotExist) {
			return toolkit.Fail(toolkit.PathNotFound, "The path %s does not exist. Please provide a valid path.", p.Path)
		}
		return err
	case err == nil && p.Command == "create":
		return toolkit.Fail(toolkit.InvalidInput, "File already exists at: %s. Cannot overwrite files using command `create`. Use str_replace to change it.", p.Path)
	case err == nil && fi.IsDir() && p.Command != "view":
		return toolkit.Fail(toolkit.IsDirectory, "The path %s is a directory and only the `view` command can be used on directories", p.Path)
	case err == nil && fi.IsDir() && p.ViewRange != nil:
		return toolkit.Fail(toolkit.InvalidInput, "The `view_range` parameter is not allowed when `path` points to a directory.")
	}
	return nil
}

// truncateText cuts a result's text to at most n characters (max_characters),
// saying so.
func truncateText(res *mcp.CallToolResult, n int) (*mcp.CallToolResult, error) {
	if n < 1 {
		return nil, toolkit.Fail(toolkit.InvalidInput, "max_characters must be 1 or more, got %d", n)
	}
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			continue
		}
		if r := []rune(tc.Text); len(r) > n {
			tc.Text = string(r[:n]) + fmt.Sprintf("\n<response clipped: %d of %d characters shown (max_characters); use view_range to see the rest>", n, len(r))
		}
	}
	return res, nil
}

// editorInsert resolves insert's text, given as new_str or its alias
// insert_text, and runs the insert.
func (b *tools) editorInsert(ctx context.Context, p editorParams) (*mcp.CallToolResult, error) {
	if p.InsertLine == nil {
		return nil, toolkit.Fail(toolkit.InvalidInput, "insert needs insert_line, the line after which to insert (0 for the beginning)")
	}
	text := p.NewStr
	switch {
	case text == nil:
		text = p.InsertText
	case p.InsertText != nil && *p.InsertText != *text:
		return nil, toolkit.Fail(toolkit.InvalidInput, "insert got different new_str and insert_text; send one of them")
	}
	if text == nil {
		return nil, toolkit.Fail(toolkit.InvalidInput, "insert needs the text to insert, as new_str or insert_text")
	}
	return b.insert(ctx, p.Path, *p.InsertLine, *text)
}

// checkApplicable refuses parameters that belong to another command, or
// to another version, so a mistaken call is reported instead of
// half-applied.
func (p editorParams) checkApplicable(v editorVersion) error {
	given := map[string]bool{
		"view_range":     p.ViewRange != nil,
		"old_str":        p.OldStr != nil,
		"new_str":        p.NewStr != nil,
		"replace_all":    p.ReplaceAll,
		"file_text":      p.FileText != nil,
		"insert_line":    p.InsertLine != nil,
		"insert_text":    p.InsertText != nil,
		"max_characters": p.MaxCharacters != nil,
	}
	if given["max_characters"] && !v.maxChars {
		return toolkit.Fail(toolkit.InvalidInput, "max_characters belongs to text_editor_20250728 (str_replace_based_edit_tool); this server's %s does not take it", v.name)
	}
	allowed := map[string][]string{
		"view":        {"view_range", "max_characters"},
		"create":      {"file_text"},
		"str_replace": {"old_str", "new_str", "replace_all"},
		"insert":      {"insert_line", "new_str", "insert_text"},
		"undo_edit":   {},
	}[p.Command]
	for _, name := range []string{"view_range", "old_str", "new_str", "replace_all", "file_text", "insert_line", "insert_text", "max_characters"} {
		if given[name] && !slices.Contains(allowed, name) {
			return toolkit.Fail(toolkit.InvalidInput, "%s does not apply to the %s command", name, p.Command)
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
