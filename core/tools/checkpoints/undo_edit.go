package checkpoints

import (
	"context"
	"fmt"
	"regexp"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/checkpoint"
	"github.com/mjkoo/boris/core/toolkit"
)

// undo_edit (text_editor_20250124) "reverts the last edit made to the
// file at path"; each call reverts one more, as Anthropic's reference
// keeps a stack of a file's earlier contents. Boris keeps no stack of its
// own: its checkpoints (docs/reference/core.md#checkpoints) already hold every change to the path,
// and undo_edit calls the undo tool's logic on the latest checkpoint that
// changed path and that no undo has reverted yet, at that path only. So
// the undo's safety holds (it refuses with [CONFLICT] where a change made
// outside Boris came later), it is itself recorded, and the history and
// undo tools see it.

// startTool names the checkpoint of the tree as a session found it (the
// name the recorder records it under).
const startTool = "start"

// editorUndoDepth is how far back undo_edit looks for a path's change.
const editorUndoDepth = 1000

// undoneID reads the checkpoint an undo reverted from its summary
// ("undo cp_7 at path", as the undo tool writes it); compiled when first
// used, not at start.
var undoneID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^undo (cp_[0-9]+)\b`) })

// UndoEditUnavailable is undo_edit's answer where checkpoints are off or
// the undo tool is disabled.
func UndoEditUnavailable() error {
	return toolkit.Fail(toolkit.InvalidInput, "undo_edit needs Boris's checkpoints, which are off on this server (--checkpoints off, no git on PATH, or the undo tool disabled)")
}

// UndoLastEdit is the editor's undo_edit over d: the caller refuses it
// first where the undo tool is disabled.
func UndoLastEdit(ctx context.Context, d Deps, req *mcp.CallToolRequest, path string) (*mcp.CallToolResult, error) {
	h := tools{d}
	if h.d.Recorder() == nil {
		return nil, UndoEditUnavailable()
	}
	st, abs, err := h.open(ctx, path, true) // a change made outside Boris becomes a checkpoint of its own first
	if err != nil {
		return nil, err
	}
	cps, err := st.History(ctx, abs, editorUndoDepth)
	if err != nil {
		return nil, err
	}
	target := lastEdit(cps)
	if target == nil {
		return nil, toolkit.Fail(toolkit.InvalidInput, "No edit history found for %s.", path)
	}
	res, err := h.undo(ctx, req, undoParams{Checkpoint: target.ID, Path: path})
	if err != nil {
		return nil, err
	}
	lead := fmt.Sprintf("Last edit to %s undone successfully (checkpoint %s, %s: %s).\n", path, target.ID, target.Tool, target.Summary)
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		tc.Text = lead + tc.Text
	}
	return res, nil
}

// lastEdit is the newest of cps (newest first) that an undo_edit should
// revert: not a change made outside Boris (undo_edit reverts edits; the
// undo's conflict check guards those), not the state the session found
// (startTool: there is nothing before it), and not one an undo already
// reverted, counting each undo as the revert of the checkpoint it names,
// so repeated calls walk back one change at a time (an undo a later undo
// reverted counts for nothing). An undo is itself no edit to revert here:
// undoing it is redo, which the undo tool offers.
func lastEdit(cps []checkpoint.Checkpoint) *checkpoint.Checkpoint {
	undone := map[string]bool{}
	for i, cp := range cps {
		if cp.Tool == "undo" {
			// An undo that a later undo reverted (a redo) reverted nothing.
			if m := undoneID().FindStringSubmatch(cp.Summary); m != nil && !undone[cp.ID] {
				undone[m[1]] = true
			}
			continue
		}
		if cp.Tool == checkpoint.OutsideTool || cp.Tool == startTool || undone[cp.ID] {
			continue
		}
		return &cps[i]
	}
	return nil
}
