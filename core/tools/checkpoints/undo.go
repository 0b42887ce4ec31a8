package checkpoints

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/checkpoint"
	"github.com/mjkoo/boris/core/toolkit"
	"github.com/mjkoo/boris/internal/plural"
)

type undoParams struct {
	Checkpoint string `json:"checkpoint,omitempty" jsonschema:"checkpoint id (cp_N, from history) to undo; default: the latest"`
	Path       string `json:"path,omitempty" jsonschema:"undo only the checkpoint's changes to this file or below this directory; relative paths resolve against the working directory"`
	Force      bool   `json:"force,omitempty" jsonschema:"undo even where a later change made outside Boris (an outside checkpoint) touched the same files; what is overwritten stays recoverable by undoing this undo"`
}

var undoTool = &mcp.Tool{
	Name: "undo",
	Description: "Undo a checkpoint: every file it changed (or only those at path) is put back as it was just before it — " +
		"deleted files come back, created files are removed, contents and modes are restored byte for byte. " +
		"Files changed again by later checkpoints are also reset to that earlier state; where a later change made outside Boris (an outside checkpoint) touched them, " +
		"undo refuses with [CONFLICT] naming them, unless force is true. The undo is recorded as a checkpoint itself, so it can be undone.",
	Annotations: &mcp.ToolAnnotations{Title: "Undo checkpoint", DestructiveHint: toolkit.Ptr(true), OpenWorldHint: toolkit.Ptr(false)},
}

// undo implements the undo tool (docs/reference/core.md#checkpoints).
func (h tools) undo(ctx context.Context, _ *mcp.CallToolRequest, p undoParams) (*mcp.CallToolResult, error) {
	st, path, err := h.open(ctx, p.Path, true)
	if err != nil {
		return nil, err
	}
	id, restores, err := st.Plan(ctx, p.Checkpoint, path)
	if err != nil {
		return nil, err
	}
	if len(restores) == 0 {
		return nil, toolkit.Fail(toolkit.InvalidInput, "checkpoint %s changed nothing at %s; see history with that path", id, p.Path)
	}
	paths := make([]string, 0, len(restores))
	rels := make([]string, 0, len(restores))
	for _, r := range restores {
		paths = append(paths, h.treePath(r.Path))
		rels = append(rels, r.Path)
	}
	// Changes made since the last checkpoint (outside this server, since
	// beforeChange recorded the rest) are recorded first, so the undo
	// cannot lose them.
	h.d.Recorder().RecordNow(ctx, checkpoint.OutsideTool, checkpoint.OutsideSummary, paths...)
	if !p.Force {
		if err := h.undoConflict(ctx, id, rels); err != nil {
			return nil, err
		}
	}
	var done []string
	for _, r := range removalsFirst(restores) {
		if err := h.restore(r); err != nil {
			h.d.Recorder().Record("undo", "undo "+id+" (partly)", paths...)
			return nil, fmt.Errorf("undo %s: restored %d of %s, then: %w", id, len(done), plural.S(len(restores), "file"), err)
		}
		done = append(done, restoreLine(r))
	}
	cp := h.d.Recorder().RecordNow(context.WithoutCancel(ctx), "undo", "undo "+id+undoScope(p.Path), paths...)
	text := fmt.Sprintf("Undid %s: %s restored to the state before it:\n%s", id, plural.S(len(done), "file"), strings.Join(done, "\n"))
	if cp != nil {
		text += fmt.Sprintf("\nThis undo is checkpoint %s; undo it to redo.", cp.ID)
	}
	return toolkit.TextResult(text), nil
}

// undoConflict refuses to undo id where a later outside checkpoint
// changed the same files: the undo would silently discard a change the
// agent did not make.
func (h tools) undoConflict(ctx context.Context, id string, rels []string) error {
	later, err := h.d.Recorder().Store().OutsideAfter(ctx, id, rels) // open: undo planned with it
	if err != nil || len(later) == 0 {
		return err
	}
	var lines []string
	for _, cp := range later {
		what := ""
		if cp.Mixed {
			what = ", a background task's change: it may hold changes made outside Boris while the task ran"
		}
		for _, f := range cp.Files {
			lines = append(lines, fmt.Sprintf("  %s %s (%s, %s%s)", f.Status, f.Path, cp.ID, time.Unix(cp.Time, 0).UTC().Format(time.DateTime), what))
		}
	}
	return toolkit.Fail(toolkit.Conflict, "undoing %s would overwrite changes that may have been made outside Boris:\n%s\n"+
		"Undo those checkpoints first, undo only other files with path, or pass force: true to overwrite them (undoing the undo brings them back)",
		id, strings.Join(lines, "\n"))
}

func undoScope(path string) string {
	if path == "" {
		return ""
	}
	return " at " + path
}

// treePath makes a tree-relative path absolute.
func (h tools) treePath(rel string) string {
	return filepath.Join(h.ckptTree(), filepath.FromSlash(rel))
}

// ckptTree is the working tree the checkpoints are of.
func (h tools) ckptTree() string { return h.d.Recorder().Tree() }

func restoreLine(r checkpoint.Restore) string {
	if r.Remove {
		return "  removed  " + r.Path
	}
	return "  restored " + r.Path
}

// restore puts one path back through the policy: nothing is written
// outside the allowed directories or into a denied path.
func (h tools) restore(r checkpoint.Restore) error {
	abs := h.treePath(r.Path)
	if err := h.d.Policy().Check(abs); err != nil {
		return err
	}
	if r.Remove {
		if err := h.d.Policy().Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		h.removeEmptyParents(filepath.Dir(abs))
		return nil
	}
	if fi, err := os.Lstat(abs); err == nil && (r.Symlink || !fi.Mode().IsRegular()) {
		// A link, or an (emptied) directory, where the file was.
		if err := h.d.Policy().Remove(abs); err != nil {
			return fmt.Errorf("replace %s: %w", abs, err)
		}
	}
	if r.Symlink {
		// Its directory may be gone since (WriteFile makes a file's).
		if err := h.d.Policy().MkdirAll(filepath.Dir(abs)); err != nil {
			return err
		}
		return h.d.Policy().Symlink(string(r.Data), abs)
	}
	mode := fs.FileMode(0o644)
	if r.Exec {
		mode = 0o755
	}
	if err := h.d.Policy().WriteFile(abs, r.Data, mode); err != nil {
		return err
	}
	return h.d.Policy().Chmod(abs, mode)
}

// removeEmptyParents removes dir and its parents while they are empty,
// up to the tree: undoing a created file also removes directories created
// only for it.
func (h tools) removeEmptyParents(dir string) {
	tree := h.ckptTree()
	for dir != tree && strings.HasPrefix(dir, tree+string(filepath.Separator)) {
		if h.d.Policy().Remove(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// removalsFirst orders restores so that removals come first, deepest
// paths first: a directory a checkpoint created is emptied before a file
// is put back where it stood.
func removalsFirst(rs []checkpoint.Restore) []checkpoint.Restore {
	out := slices.Clone(rs)
	slices.SortStableFunc(out, func(a, b checkpoint.Restore) int {
		switch {
		case a.Remove && !b.Remove:
			return -1
		case !a.Remove && b.Remove:
			return 1
		case a.Remove:
			return strings.Count(b.Path, "/") - strings.Count(a.Path, "/")
		}
		return 0
	})
	return out
}
