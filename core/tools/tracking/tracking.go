// Package tracking is the work-tracking toolset (docs/reference/core.md#work-tracking): create_task,
// list_tasks, get_task, update_task, delete_task, add_blocker,
// remove_blocker and get_blockers keep work items on the board in
// --tasks-db (package board), which every core, the `boris tasks` CLI and
// the dashboard share. These tasks are not the background commands of
// bash's run_in_background: their ids look like W-12, and their error
// codes name the board. It imports the shared kit (toolkit) and the
// board, never another toolset or the core.
package tracking

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/board"
	"github.com/mjkoo/boris/core/toolkit"
)

// Deps is what the work-tracking tools need: the board, opened on first
// use.
type Deps interface {
	Board(ctx context.Context) (board.Board, error)
}

// tools are the work-tracking tools over their dependencies.
type tools struct{ d Deps }

// ID names the work-tracking toolset.
const ID toolkit.ID = "tracking"

// Tools are the work-tracking tools; --read-only
// keeps the reading ones.
func Tools(d Deps) []toolkit.Tool {
	tr := tools{d}
	return toolkit.Set(ID,
		toolkit.NewFrom(listTasksTool.Name, boardDef[listTasksResult](listTasksTool), tr.listTasks),
		toolkit.NewFrom(getTaskTool.Name, boardDef[taskResult](getTaskTool), tr.getTask),
		toolkit.NewFrom(getBlockersTool.Name, boardDef[board.Blockers](getBlockersTool), tr.getBlockers),
		toolkit.NewFrom(createTaskTool.Name, boardDef[taskResult](createTaskTool), tr.createTask).Writing(),
		toolkit.NewFrom(updateTaskTool.Name, boardDef[taskResult](updateTaskTool), tr.updateTask).Writing(),
		toolkit.NewFrom(deleteTaskTool.Name, boardDef[taskResult](deleteTaskTool), tr.deleteTask).Writing(),
		toolkit.NewFrom(addBlockerTool.Name, boardDef[blockerResult](addBlockerTool), tr.addBlocker).Writing(),
		toolkit.NewFrom(removeBlockerTool.Name, boardDef[blockerResult](removeBlockerTool), tr.removeBlocker).Writing(),
	)
}

// Board is the board database, opened by the first tool call that needs
// it: a session that never tracks work never touches the file, and
// start-up pays nothing for it. It is the Deps of a core.
type Board struct {
	path  string // --tasks-db: a file's path or a PostgreSQL URL
	pg    board.PGOptions
	log   *slog.Logger
	mu    sync.Mutex
	store board.Board
}

// NewBoard is the board at path (--tasks-db), not opened yet; pg says how
// to reach it when path is a PostgreSQL URL.
func NewBoard(path string, pg board.PGOptions, log *slog.Logger) *Board {
	return &Board{path: path, pg: pg, log: log}
}

// Board returns the open board, opening it first if need be. A failure is
// not remembered: the next call tries again (the disk may have been full).
func (b *Board) Board(ctx context.Context) (board.Board, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.store != nil {
		return b.store, nil
	}
	// The configuration resolved the path's links once, in the part that
	// is the operator's (board.ExpandPath); resolving them again here
	// would follow a link a principal made below it since. A path still
	// starting with "~" had no HOME to expand against: ExpandPath says so.
	path, err := b.path, error(nil)
	if !filepath.IsAbs(path) {
		path, err = board.ExpandPath(path, "")
	}
	if err == nil {
		b.store, err = board.OpenBoard(ctx, path, b.pg)
	}
	if err != nil {
		return nil, toolkit.Fail(toolkit.BoardUnavailable, "the task board cannot be opened: %v (the operator sets its place with --tasks-db)", err)
	}
	b.log.Debug("task board opened", "where", b.store.Where())
	return b.store, nil
}

// Close closes the board if a call opened it.
func (b *Board) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.store != nil {
		b.store.Close()
		b.store = nil
	}
}

// boardError gives a board refusal its stable code; the board's message
// already says what to do.
func boardError(err error) error {
	code := toolkit.IOError
	switch {
	case errors.Is(err, board.ErrNotFound):
		return &toolkit.Error{Code: toolkit.BoardTaskNotFound, Msg: err.Error() + " (list_tasks lists the board's tasks)"}
	case errors.Is(err, board.ErrNoBlocker):
		code = toolkit.BlockerNotFound
	case errors.Is(err, board.ErrCycle):
		code = toolkit.BlockerCycle
	case errors.Is(err, board.ErrInUse):
		code = toolkit.BoardTaskInUse
	case errors.Is(err, board.ErrInvalid):
		code = toolkit.InvalidInput
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return &toolkit.Error{Code: code, Msg: err.Error()}
}

// boardDef is t with Out's output schema, its status fields tuned like
// the input ones, made when the tool is registered.
func boardDef[Out any](t *mcp.Tool) toolkit.Def {
	return toolkit.TunedOutputDef[Out](t, toolkit.OutputTune{Name: "board", Tune: tuneBoardSchema})
}

// tuneBoardSchema makes a work-tracking schema what code-generating clients
// want (docs/reference/core.md#work-tracking): every status an enum, every priority bounded, optional
// fields a plain type rather than "null or type" (omit one to leave it
// alone), and nothing but the named properties.
func tuneBoardSchema(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if s.Type == "" && len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	if s.Type == "object" && s.AdditionalProperties == nil {
		s.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
	}
	for name, p := range s.Properties {
		tuneBoardSchema(p)
		switch name {
		case "status":
			p.Enum = anySlice(board.Statuses)
		case "priority":
			p.Minimum, p.Maximum = toolkit.Ptr(float64(board.MinPriority)), toolkit.Ptr(float64(board.MaxPriority))
		}
	}
	tuneBoardSchema(s.Items)
}

// anySlice converts names for a schema's enum.
func anySlice(names []string) []any {
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = n
	}
	return out
}
