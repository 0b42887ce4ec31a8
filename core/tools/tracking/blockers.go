package tracking

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/board"
	"github.com/mjkoo/boris/core/toolkit"
)

// The work-tracking tools on blockers: add_blocker, remove_blocker and
// get_blockers (docs/reference/core.md#work-tracking).

type blockerParams struct {
	TaskID      string `json:"task_id" jsonschema:"the task that must wait (W-12)"`
	BlockedByID string `json:"blocked_by_id" jsonschema:"the task it waits for: it is not ready while this one is open (W-7)"`
}

type getBlockersParams struct {
	TaskID string `json:"task_id" jsonschema:"the task whose blockers to read (W-12)"`
}

type blockerResult struct {
	Task    board.Task `json:"task" jsonschema:"the waiting task as it now is"`
	Changed bool       `json:"changed" jsonschema:"false when the blocker was already there"`
}

var addBlockerTool = &mcp.Tool{
	Name: "add_blocker",
	Description: "Say that a task cannot start before another is closed (done or cancelled): task_id waits for blocked_by_id. " +
		"A blocker that would close a cycle is refused ([BLOCKER_CYCLE] shows the chain). Adding one that exists changes nothing.",
	Annotations: &mcp.ToolAnnotations{Title: "Add blocker", DestructiveHint: toolkit.Ptr(false), IdempotentHint: true, OpenWorldHint: toolkit.Ptr(false)},
}

var removeBlockerTool = &mcp.Tool{
	Name:        "remove_blocker",
	Description: "Undo add_blocker: task_id no longer waits for blocked_by_id.",
	Annotations: &mcp.ToolAnnotations{Title: "Remove blocker", DestructiveHint: toolkit.Ptr(false), OpenWorldHint: toolkit.Ptr(false)},
}

var getBlockersTool = &mcp.Tool{
	Name:        "get_blockers",
	Description: "Read what a task waits for and what waits for it, with each one's status; a task is ready once none of what it waits for is open.",
	Annotations: &mcp.ToolAnnotations{Title: "Get blockers", ReadOnlyHint: true, OpenWorldHint: toolkit.Ptr(false)},
}

func (tr tools) addBlocker(ctx context.Context, _ *mcp.CallToolRequest, p blockerParams) (*mcp.CallToolResult, error) {
	s, err := tr.d.Board(ctx)
	if err != nil {
		return nil, err
	}
	t, added, err := s.AddBlocker(ctx, p.TaskID, p.BlockedByID)
	if err != nil {
		return nil, boardError(err)
	}
	text := t.ID + " now waits for " + board.Line(mustLine(ctx, s, p.BlockedByID))
	if !added {
		text = t.ID + " already waited for " + board.CanonicalID(p.BlockedByID) + "; nothing changed"
	}
	return toolkit.Structured(text+"\n"+board.Line(t), blockerResult{Task: t, Changed: added}), nil
}

// mustLine is the task id names, or a bare task with that id if it went
// in the meantime.
func mustLine(ctx context.Context, s *board.Store, id string) board.Task {
	t, err := s.Get(ctx, id)
	if err != nil {
		return board.Task{ID: id}
	}
	return t
}

func (tr tools) removeBlocker(ctx context.Context, _ *mcp.CallToolRequest, p blockerParams) (*mcp.CallToolResult, error) {
	s, err := tr.d.Board(ctx)
	if err != nil {
		return nil, err
	}
	t, err := s.RemoveBlocker(ctx, p.TaskID, p.BlockedByID)
	if err != nil {
		return nil, boardError(err)
	}
	return toolkit.Structured(t.ID+" no longer waits for "+board.CanonicalID(p.BlockedByID)+"\n"+board.Line(t), blockerResult{Task: t, Changed: true}), nil
}

func (tr tools) getBlockers(ctx context.Context, _ *mcp.CallToolRequest, p getBlockersParams) (*mcp.CallToolResult, error) {
	s, err := tr.d.Board(ctx)
	if err != nil {
		return nil, err
	}
	bl, err := s.GetBlockers(ctx, p.TaskID)
	if err != nil {
		return nil, boardError(err)
	}
	return toolkit.Structured(board.BlockersText(bl), bl), nil
}
