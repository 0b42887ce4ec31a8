package filesystem

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit"
	"github.com/mjkoo/boris/core/workspace"
)

type fsWriteParams struct {
	fsArgs
	Path    string `json:"path" jsonschema:"the file to create or overwrite"`
	Content string `json:"content" jsonschema:"the file's new content"`
}

// fsWriteFile implements write_file: create or overwrite a file,
// atomically, keeping an overwritten file's mode. Its directory must
// exist, as server-filesystem has it, except in a workspace
// (docs/workspaces.md#workspaces), where missing parent directories are created.
func (b *tools) fsWriteFile(ctx context.Context, _ *mcp.CallToolRequest, p fsWriteParams) (*mcp.CallToolResult, error) {
	if int64(len(p.Content)) > int64(b.opt.MaxFileSize) {
		return nil, toolkit.Fail(toolkit.FileTooLarge, "content is %d bytes, over the %s limit", len(p.Content), b.opt.MaxFileSize)
	}
	abs, ws, err := b.fsResolve(p.WorkspaceID, p.Path)
	if err != nil {
		return nil, err
	}
	existed, err := b.fsWriteTarget(abs, ws != nil)
	if err != nil {
		return nil, err
	}
	b.d.Recorder().BeforeWrite(ctx, abs)
	toolkit.Editing(ctx, abs) // diagnostics compare against the file as it was
	if err := b.d.Policy().WriteFile(abs, []byte(p.Content), 0o644); err != nil {
		return nil, err
	}
	b.saw(abs)
	b.d.Recorder().RecordFiles("write_file", b.d.Recorder().Rel(abs), abs)
	action := "Create"
	if existed {
		action = "Update"
	}
	return b.fsCommitted(ctx, ws, "write_file", action, "Successfully wrote to "+p.Path, abs)
}

// fsWriteTarget checks where write_file will write: its directory must
// exist unless makeParents (server-filesystem creates no parents) and the
// path must not be a directory. It reports whether a file is there
// already.
func (b *tools) fsWriteTarget(abs string, makeParents bool) (bool, error) {
	dir, err := b.d.Policy().Lstat(filepath.Dir(abs))
	switch {
	case errors.Is(err, fs.ErrNotExist) && makeParents:
		return false, nil // WriteFile makes the directories
	case errors.Is(err, fs.ErrNotExist):
		return false, toolkit.Fail(toolkit.PathNotFound, "Parent directory does not exist: %s (create_directory makes it)", filepath.Dir(abs))
	case err != nil:
		return false, err
	case !dir.IsDir():
		return false, toolkit.Fail(toolkit.InvalidInput, "%s is not a directory", filepath.Dir(abs))
	}
	fi, err := b.d.Policy().Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	case fi.IsDir():
		return false, toolkit.Fail(toolkit.IsDirectory, "%s is a directory; write_file writes files", abs)
	}
	return true, nil
}

// fsCommitted commits a write made in a workspace and returns the result
// text with the commit line (docs/reference/core.md#workspaces); outside a workspace just the text.
func (b *tools) fsCommitted(ctx context.Context, ws *workspace.Workspace, tool, action, text string, abs ...string) (*mcp.CallToolResult, error) {
	hash, err := b.d.Workspaces().Commit(ctx, ws, tool, action, abs...)
	if err != nil {
		return nil, err
	}
	return fsResult(workspace.WithCommit(text, hash)), nil
}

// fsCreateDirectory implements create_directory: mkdir -p, confined.
func (b *tools) fsCreateDirectory(ctx context.Context, _ *mcp.CallToolRequest, p fsPathParams) (*mcp.CallToolResult, error) {
	abs, ws, err := b.fsResolve(p.WorkspaceID, p.Path)
	if err != nil {
		return nil, err
	}
	b.d.Recorder().BeforeWrite(ctx, abs)
	if err := b.d.Policy().MkdirAll(abs); err != nil {
		return nil, err
	}
	b.d.Recorder().RecordFiles("create_directory", b.d.Recorder().Rel(abs), abs)
	return b.fsCommitted(ctx, ws, "create_directory", "Mkdir", "Successfully created directory "+p.Path, abs)
}

type fsMoveParams struct {
	fsArgs
	Source      string `json:"source" jsonschema:"the file or directory to move"`
	Destination string `json:"destination" jsonschema:"where to move it; must not exist"`
}

// fsMoveFile implements move_file: a rename that refuses an existing
// destination in the same step (scope.Policy.Rename).
func (b *tools) fsMoveFile(ctx context.Context, _ *mcp.CallToolRequest, p fsMoveParams) (*mcp.CallToolResult, error) {
	src, ws, err := b.fsResolve(p.WorkspaceID, p.Source)
	if err != nil {
		return nil, err
	}
	dst, _, err := b.fsResolve(p.WorkspaceID, p.Destination)
	if err != nil {
		return nil, err
	}
	if err := b.d.Workspaces().RefuseRepositoryMove(src, dst); err != nil {
		return nil, err
	}
	b.d.Recorder().BeforeWrite(ctx, src, dst)
	if err := b.d.Policy().Rename(src, dst); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, toolkit.Fail(toolkit.InvalidInput, "Destination already exists: %s", dst)
		}
		return nil, err
	}
	b.d.Recorder().RecordFiles("move_file", b.d.Recorder().Rel(src)+" -> "+b.d.Recorder().Rel(dst), src, dst)
	return b.fsCommitted(ctx, ws, "move_file", "Move", "Successfully moved "+p.Source+" to "+p.Destination, src, dst)
}
