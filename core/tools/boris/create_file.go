package boris

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit"
	"github.com/mjkoo/boris/internal/plural"
)

type createFileParams struct {
	Path    string `json:"path" jsonschema:"file to create or overwrite; missing parent directories are created"`
	Content string `json:"content" jsonschema:"the complete contents of the file"`
}

var createFileTool = &mcp.Tool{
	Name:        "create_file",
	Description: "Create a file, or overwrite it, with the given content. Parent directories are created; an overwritten file keeps its mode; the write is atomic.",
	Annotations: &mcp.ToolAnnotations{Title: "Create or overwrite file", DestructiveHint: toolkit.Ptr(true), IdempotentHint: true, OpenWorldHint: toolkit.Ptr(false)},
}

// createFile implements create_file (docs/reference/tools.md#create_file).
func (b *tools) createFile(ctx context.Context, _ *mcp.CallToolRequest, p createFileParams) (*mcp.CallToolResult, error) {
	if int64(len(p.Content)) > int64(b.opt.MaxFileSize) {
		return nil, toolkit.Fail(toolkit.FileTooLarge, "content is %d bytes, over the %s limit", len(p.Content), b.opt.MaxFileSize)
	}
	abs, err := b.d.Policy().Resolve(b.d.Dir(), p.Path)
	if err != nil {
		return nil, err
	}
	b.d.Recorder().BeforeWrite(ctx, abs)
	existed, err := b.isFile(abs)
	if err != nil {
		return nil, err
	}
	toolkit.Editing(ctx, abs) // diagnostics compare against the file as it was
	if err := b.d.Policy().WriteFile(abs, []byte(p.Content), 0o644); err != nil {
		return nil, err
	}
	b.saw(abs)
	b.d.Recorder().RecordFiles("create_file", b.d.Recorder().Rel(abs), abs)
	verb := "Created"
	if existed {
		verb = "Overwrote"
	}
	return toolkit.TextResult(fmt.Sprintf("%s %s (%s).", verb, abs, plural.S(len(p.Content), "byte"))), nil
}

// isFile reports whether abs exists; a directory there is an error.
func (b *tools) isFile(abs string) (bool, error) {
	f, fi, err := b.openStat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	if fi.IsDir() {
		return false, toolkit.Fail(toolkit.IsDirectory, "%s is a directory; create_file writes files", abs)
	}
	return true, nil
}
