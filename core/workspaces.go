package core

import (
	"context"
)

// Workspaces (SPEC §8): named, git-versioned directories under
// --workspaces-root. The filesystem tools take an optional workspaceId:
// their paths then resolve inside that workspace, and every write is
// committed to the workspace's own repository.

// fsWorkspace is the workspace a filesystem tool call acts in (nil: none).
type fsWorkspace struct {
	id, dir string
}

// fsPath resolves a filesystem tool's path argument. With workspaceID
// empty it is resolved as every file tool's path is (relative to the
// working directory, checked by the path policy); with one, relative
// paths resolve against that workspace's directory and a path outside it
// is refused with ACCESS_DENIED. The workspace is returned for fsCommit.
func (b *boris) fsPath(workspaceID, path string) (string, *fsWorkspace, error) {
	if workspaceID == "" {
		abs, err := b.policy.Resolve(b.shell.Dir(), path)
		return abs, nil, err
	}
	return "", nil, fail(InvalidInput, "workspaceId %q: workspaces are not enabled (start boris with --workspaces-root)", workspaceID)
}

// fsCommit commits, when ws is not nil, what a write changed at paths to
// the workspace's repository with the message "mcp/fs/<tool>: <action>
// <path>" (action: Create, Update, Move, ...) and returns the commit's
// hash; "" when ws is nil or nothing changed. A failed commit is an error
// the tool reports after saying what it wrote.
func (b *boris) fsCommit(ctx context.Context, ws *fsWorkspace, tool, action string, paths ...string) (string, error) {
	if ws == nil {
		return "", nil
	}
	return "", nil
}

// withCommit adds the commit line a write in a workspace reports.
func withCommit(text, hash string) string {
	if hash == "" {
		return text
	}
	return text + "\nCommitted " + hash
}

// workspaceSpecs are the workspace tools, registered with --workspaces-root.
func (b *boris) workspaceSpecs() []toolSpec {
	return nil
}
