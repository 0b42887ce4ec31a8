package core

import (
	"path/filepath"
	"strings"

	"github.com/mjkoo/boris/core/board"
)

// boardExcludes are the checkpoints' gitignore patterns for the board's
// files when they lie in the working tree (the gateway's
// --workdir-template makes $HOME the tree): the board is shared state, not
// a project file, and an undo must never put back or delete it under the
// processes using it.
func boardExcludes(tree, db string) []string {
	if !filepath.IsAbs(db) {
		return nil
	}
	// tree has its symlinks resolved; so must db, though it may not exist yet.
	rel, err := filepath.Rel(tree, board.RealPrefix(db))
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return nil
	}
	var out []string
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		out = append(out, "/"+gitignoreEscape(filepath.ToSlash(rel)+suffix))
	}
	return out
}

// gitignoreEscape makes a path a gitignore pattern matching only itself.
func gitignoreEscape(p string) string {
	var sb strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`\*?[]!# `, r) {
			sb.WriteByte('\\')
		}
		sb.WriteRune(r)
	}
	return sb.String()
}
