package tracking

import (
	"context"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/board"
	"github.com/mjkoo/boris/core/toolkit"
)

// The work-tracking tools on tasks themselves: create_task, list_tasks,
// get_task, update_task and delete_task (docs/reference/core.md#work-tracking). board_tools.go
// registers them; package board holds the logic.

type createTaskParams struct {
	Description string `json:"description" jsonschema:"what is to be done, in one line or a short paragraph (at most 4096 bytes)"`
	ParentID    string `json:"parent_id,omitempty" jsonschema:"id of the task this one is part of (W-12); omit for a top-level task"`
	Priority    int    `json:"priority,omitempty" jsonschema:"1 (most urgent) to 5 (least); 3 when omitted"`
	Context     string `json:"context,omitempty" jsonschema:"notes for whoever picks it up: files, links, constraints (at most 65536 bytes)"`
}

type listTasksParams struct {
	Status   string `json:"status,omitempty" jsonschema:"only tasks of this status; omit for all"`
	ParentID string `json:"parent_id,omitempty" jsonschema:"only the subtasks of this task (W-12)"`
	Ready    bool   `json:"ready,omitempty" jsonschema:"only open tasks (pending or in_progress) none of whose blockers is open: what can be worked on now"`
	Limit    int    `json:"limit,omitempty" jsonschema:"most tasks to return, 1 to 1000; 100 when omitted"`
}

func (listTasksParams) TuneSchema(s *jsonschema.Schema) {
	tuneBoardSchema(s)
	s.Properties["limit"].Minimum, s.Properties["limit"].Maximum = toolkit.Ptr(1.0), toolkit.Ptr(float64(board.MaxLimit))
}

func (createTaskParams) TuneSchema(s *jsonschema.Schema) { tuneBoardSchema(s) }

type taskIDParams struct {
	ID string `json:"id" jsonschema:"the task's id (W-12)"`
}

type updateTaskParams struct {
	ID          string  `json:"id" jsonschema:"the task's id (W-12)"`
	Description *string `json:"description,omitempty" jsonschema:"new description; omit to keep it"`
	Priority    *int    `json:"priority,omitempty" jsonschema:"new priority, 1 (most urgent) to 5 (least); omit to keep it"`
	Status      *string `json:"status,omitempty" jsonschema:"new status: in_progress when starting, done or cancelled when finished; omit to keep it"`
	Context     *string `json:"context,omitempty" jsonschema:"new context, replacing the old; omit to keep it"`
	Result      *string `json:"result,omitempty" jsonschema:"what came of it (what changed, where, what is left), replacing any earlier result; omit to keep it"`
}

func (updateTaskParams) TuneSchema(s *jsonschema.Schema) { tuneBoardSchema(s) }

type taskResult struct {
	Task board.Task `json:"task" jsonschema:"the task"`
}

type listTasksResult struct {
	Tasks []board.Task `json:"tasks" jsonschema:"the tasks, open first, then by priority (most urgent first), then oldest first"`
	More  bool         `json:"more" jsonschema:"true when more tasks match than limit allowed"`
}

var createTaskTool = &mcp.Tool{
	Name: "create_task",
	Description: "Write down a work item on the task board, which other agents and people on this host share. " +
		"It starts pending; its id (W-12) is what the other task tools take. " +
		"Use add_blocker to say it must wait for another task, and parent_id to make it part of a larger one.",
	Annotations: &mcp.ToolAnnotations{Title: "Create task", DestructiveHint: toolkit.Ptr(false), OpenWorldHint: toolkit.Ptr(false)},
}

var listTasksTool = &mcp.Tool{
	Name: "list_tasks",
	Description: "List tasks on the task board: open ones first, then by priority, then oldest first. " +
		"ready: true lists what can be worked on now (open, no open blocker); with status: pending, what nobody has started. " +
		"Each line: id, status, priority, and ready or what blocks it.",
	Annotations: &mcp.ToolAnnotations{Title: "List tasks", ReadOnlyHint: true, OpenWorldHint: toolkit.Ptr(false)},
}

var getTaskTool = &mcp.Tool{
	Name:        "get_task",
	Description: "Read one task of the task board in full: description, status, priority, parent, blockers, context and result.",
	Annotations: &mcp.ToolAnnotations{Title: "Get task", ReadOnlyHint: true, OpenWorldHint: toolkit.Ptr(false)},
}

var updateTaskTool = &mcp.Tool{
	Name: "update_task",
	Description: "Change a task on the task board: only the fields given change, so two agents changing different fields lose nothing. " +
		"Set status in_progress when you start one, done with a result when you finish it, cancelled when it is no longer needed.",
	Annotations: &mcp.ToolAnnotations{Title: "Update task", DestructiveHint: toolkit.Ptr(false), IdempotentHint: true, OpenWorldHint: toolkit.Ptr(false)},
}

var deleteTaskTool = &mcp.Tool{
	Name: "delete_task",
	Description: "Delete a task from the task board, with the blockers it waits for. " +
		"A task that blocks others or has subtasks is refused ([BOARD_TASK_IN_USE] names them); to keep the record, set its status to cancelled instead.",
	Annotations: &mcp.ToolAnnotations{Title: "Delete task", DestructiveHint: toolkit.Ptr(true), OpenWorldHint: toolkit.Ptr(false)},
}

func (tr tools) createTask(ctx context.Context, _ *mcp.CallToolRequest, p createTaskParams) (*mcp.CallToolResult, error) {
	s, err := tr.d.Board(ctx)
	if err != nil {
		return nil, err
	}
	t, err := s.Create(ctx, board.NewTask{Description: p.Description, ParentID: p.ParentID, Priority: p.Priority, Context: p.Context})
	if err != nil {
		return nil, boardError(err)
	}
	return toolkit.Structured("Created "+board.Line(t), taskResult{Task: t}), nil
}

func (tr tools) listTasks(ctx context.Context, _ *mcp.CallToolRequest, p listTasksParams) (*mcp.CallToolResult, error) {
	s, err := tr.d.Board(ctx)
	if err != nil {
		return nil, err
	}
	f := board.Filter{Status: board.Status(p.Status), ParentID: p.ParentID, Ready: p.Ready, Limit: p.Limit}
	tasks, more, err := s.List(ctx, f)
	if err != nil {
		return nil, boardError(err)
	}
	if tasks == nil {
		tasks = []board.Task{}
	}
	return toolkit.Structured(board.List(tasks, more), listTasksResult{Tasks: tasks, More: more}), nil
}

func (tr tools) getTask(ctx context.Context, _ *mcp.CallToolRequest, p taskIDParams) (*mcp.CallToolResult, error) {
	s, err := tr.d.Board(ctx)
	if err != nil {
		return nil, err
	}
	t, err := s.Get(ctx, p.ID)
	if err != nil {
		return nil, boardError(err)
	}
	return toolkit.Structured(board.Detail(t), taskResult{Task: t}), nil
}

func (tr tools) updateTask(ctx context.Context, _ *mcp.CallToolRequest, p updateTaskParams) (*mcp.CallToolResult, error) {
	s, err := tr.d.Board(ctx)
	if err != nil {
		return nil, err
	}
	c := board.Change{Description: p.Description, Priority: p.Priority, Context: p.Context, Result: p.Result}
	if p.Status != nil {
		c.Status = toolkit.Ptr(board.Status(*p.Status))
	}
	t, err := s.Update(ctx, p.ID, c)
	if err != nil {
		return nil, boardError(err)
	}
	return toolkit.Structured("Updated "+board.Line(t), taskResult{Task: t}), nil
}

func (tr tools) deleteTask(ctx context.Context, _ *mcp.CallToolRequest, p taskIDParams) (*mcp.CallToolResult, error) {
	s, err := tr.d.Board(ctx)
	if err != nil {
		return nil, err
	}
	t, err := s.Delete(ctx, p.ID)
	if err != nil {
		return nil, boardError(err)
	}
	return toolkit.Structured(fmt.Sprintf("Deleted %s", board.Line(t)), taskResult{Task: t}), nil
}
