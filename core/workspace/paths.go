package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mjkoo/boris/core/toolkit"
)

// Paths is what the filesystem and workspace toolsets share: it resolves
// a filesystem tool's path, in a workspace or not, and commits what a
// write changed in one. Root is nil when workspaces are off.
type Paths struct {
	Root  *Root
	Files toolkit.Files
}

// Resolve resolves a filesystem tool's path argument. With workspaceID
// empty it is resolved as every file tool's path is (relative to the
// working directory, checked by the path policy); with one, relative
// paths resolve against that workspace's directory and a path outside it
// is refused with ACCESS_DENIED. The workspace is returned for Commit.
func (p *Paths) Resolve(workspaceID, path string) (string, *Workspace, error) {
	if workspaceID == "" {
		abs, err := p.Files.Policy().Resolve(p.Files.Dir(), path)
		return abs, nil, err
	}
	ws, err := p.Get(workspaceID)
	if err != nil {
		return "", nil, err
	}
	abs, err := p.Files.Policy().Resolve(ws.Dir, path)
	if err != nil {
		return "", nil, err
	}
	if !toolkit.Within(abs, ws.Dir) {
		return "", nil, toolkit.Fail(toolkit.AccessDenied, "%s is outside workspace %s (%s): paths resolve inside it", path, ws.ID, ws.Dir)
	}
	return abs, ws, nil
}

// Get returns the workspace id names.
func (p *Paths) Get(id string) (*Workspace, error) {
	if p.Root == nil {
		return nil, toolkit.Fail(toolkit.InvalidInput, "workspaceId %q: workspaces are not enabled (start boris with --workspaces-root)", id)
	}
	ws, err := p.Root.Get(id)
	if err != nil {
		return nil, toolkit.Fail(toolkit.WorkspaceNotFound, "%v", err)
	}
	return ws, nil
}

// Commit commits, when ws is not nil, what a write changed at paths to
// the workspace's repository with the message "mcp/fs/<tool>: <action>
// <path>" (action: Create, Update, Move, ...) and returns the commit's
// hash; "" when ws is nil or nothing changed. A failed commit is an error
// the tool reports after saying what it wrote.
func (p *Paths) Commit(ctx context.Context, ws *Workspace, tool, action string, paths ...string) (string, error) {
	if ws == nil || len(paths) == 0 {
		return "", nil
	}
	rels := make([]string, len(paths))
	for i, path := range paths {
		rel, err := filepath.Rel(ws.Dir, path)
		if err != nil || !toolkit.Within(path, ws.Dir) {
			return "", toolkit.Fail(toolkit.AccessDenied, "%s is outside workspace %s", path, ws.ID)
		}
		rels[i] = filepath.ToSlash(rel)
	}
	msg := fmt.Sprintf("mcp/fs/%s: %s %s", tool, action, strings.Join(rels, " -> "))
	hash, err := p.Root.Commit(ctx, ws, msg, rels...)
	if err != nil {
		return "", toolkit.Fail(toolkit.IOError, "the write was made but committing it to workspace %s failed: %v", ws.ID, err)
	}
	return hash, nil
}

// WithCommit adds the commit line a write in a workspace reports.
func WithCommit(text, hash string) string {
	if hash == "" {
		return text
	}
	return text + "\nCommitted " + hash
}

// RefuseRepositoryMove refuses to move a directory that holds a .git, at
// any depth, under the workspaces root: it would become (or sit inside) a
// workspace whose repository, configuration and attributes were written
// by whoever wrote that directory, and Boris runs git on workspaces.
func (p *Paths) RefuseRepositoryMove(src, dst string) error {
	if p.Root == nil || !toolkit.Within(dst, p.Root.Dir()) {
		return nil
	}
	fi, err := os.Lstat(src)
	if err != nil || !fi.IsDir() {
		return nil // the rename reports a missing source; files and links hold no .git
	}
	found := errors.New("found")
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			return found
		}
		return nil
	})
	if errors.Is(err, found) {
		return toolkit.Fail(toolkit.AccessDenied, "%s holds a git repository (.git): it cannot be moved under the workspaces root, where Boris runs git; use workspace_create", src)
	}
	if err != nil {
		return toolkit.Fail(toolkit.AccessDenied, "%s cannot be moved under the workspaces root: %v", src, err)
	}
	return nil
}
