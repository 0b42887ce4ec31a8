package tracking

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjkoo/boris/core/toolkit/tooltest"
)

// step is one call of a work-tracking scenario and what its result says.
type step struct {
	tool    string
	args    map[string]any
	isError bool
	want    string // in the result's text: a line, or the error's code
}

// TestTools: the work-tracking tools, called by a real client against a
// real board, in sequences whose later steps depend on the earlier ones:
// tasks are made, listed, read, changed, blocked and deleted, and each
// refusal carries its code and leaves the board as it was.
func TestTools(t *testing.T) {
	scenarios := []struct {
		name  string
		steps []step
	}{
		{"a task's life", []step{
			{"create_task", map[string]any{"description": "write the parser", "priority": 2, "context": "see parse.go"}, false, "Created W-1"},
			{"create_task", map[string]any{"description": "test the parser", "parent_id": "W-1"}, false, "Created W-2"},
			{"list_tasks", map[string]any{}, false, "write the parser"},
			{"list_tasks", map[string]any{"parent_id": "W-1"}, false, "test the parser"},
			{"get_task", map[string]any{"id": "W-1"}, false, "see parse.go"},
			{"update_task", map[string]any{"id": "W-1", "status": "in_progress"}, false, "Updated W-1"},
			{"list_tasks", map[string]any{"status": "in_progress"}, false, "W-1"},
			{"update_task", map[string]any{"id": "W-1", "status": "done", "result": "parse.go parses"}, false, "Updated W-1"},
			{"get_task", map[string]any{"id": "W-1"}, false, "parse.go parses"},
			{"delete_task", map[string]any{"id": "W-2"}, false, "Deleted W-2"},
			{"get_task", map[string]any{"id": "W-2"}, true, "[BOARD_TASK_NOT_FOUND]"},
		}},
		{"blockers", []step{
			{"create_task", map[string]any{"description": "ship"}, false, "Created W-1"},
			{"create_task", map[string]any{"description": "build"}, false, "Created W-2"},
			{"add_blocker", map[string]any{"task_id": "W-1", "blocked_by_id": "W-2"}, false, "W-1 now waits for W-2"},
			{"add_blocker", map[string]any{"task_id": "W-1", "blocked_by_id": "W-2"}, false, "nothing changed"},
			{"add_blocker", map[string]any{"task_id": "W-2", "blocked_by_id": "W-1"}, true, "[BLOCKER_CYCLE]"},
			{"get_blockers", map[string]any{"task_id": "W-1"}, false, "W-2"},
			{"list_tasks", map[string]any{"ready": true}, false, "build"},
			{"delete_task", map[string]any{"id": "W-2"}, true, "[BOARD_TASK_IN_USE]"},
			{"remove_blocker", map[string]any{"task_id": "W-1", "blocked_by_id": "W-2"}, false, "W-1 no longer waits for W-2"},
			{"remove_blocker", map[string]any{"task_id": "W-1", "blocked_by_id": "W-2"}, true, "[BLOCKER_NOT_FOUND]"},
			{"delete_task", map[string]any{"id": "W-2"}, false, "Deleted W-2"},
		}},
		{"refusals", []step{
			{"get_task", map[string]any{"id": "W-9"}, true, "[BOARD_TASK_NOT_FOUND]"},
			{"update_task", map[string]any{"id": "W-9", "status": "done"}, true, "[BOARD_TASK_NOT_FOUND]"},
			{"delete_task", map[string]any{"id": "W-9"}, true, "[BOARD_TASK_NOT_FOUND]"},
			{"get_blockers", map[string]any{"task_id": "W-9"}, true, "[BOARD_TASK_NOT_FOUND]"},
			{"create_task", map[string]any{"description": ""}, true, "[INVALID_INPUT]"},
			{"create_task", map[string]any{"description": "x", "priority": 9}, true, "[INVALID_INPUT]"},
			{"create_task", map[string]any{"description": "orphan", "parent_id": "W-9"}, true, "[BOARD_TASK_NOT_FOUND]"},
			{"list_tasks", map[string]any{"status": "finished"}, true, "[INVALID_INPUT]"},
			{"list_tasks", map[string]any{}, false, "No tasks."},
		}},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			cs := tooltest.Connect(t, Tools(tooltest.New(t)))
			for i, s := range sc.steps {
				res := tooltest.Call(t, cs, s.tool, s.args)
				got := tooltest.Text(res)
				if res.IsError != s.isError || !strings.Contains(got, s.want) {
					t.Fatalf("step %d, %s %v: got isError=%v %q, want isError=%v and %q", i+1, s.tool, s.args, res.IsError, got, s.isError, s.want)
				}
			}
		})
	}
}

// TestBoardOpensOnFirstUse: the core's board opens its file on the first
// call that needs it, keeps it open, and says the board is unavailable,
// with its code, when the file cannot be made; a later call tries again.
func TestBoardOpensOnFirstUse(t *testing.T) {
	dir := t.TempDir()
	b := NewBoard(filepath.Join(dir, "sub", "board.db"), slog.New(slog.DiscardHandler))
	defer b.Close()
	if err := os.WriteFile(filepath.Join(dir, "sub"), []byte("a file where the directory goes"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := tooltest.Connect(t, Tools(b))
	if res := tooltest.Call(t, cs, "list_tasks", nil); !res.IsError || !strings.Contains(tooltest.Text(res), "[BOARD_UNAVAILABLE]") {
		t.Fatalf("list_tasks with no place for the board: got isError=%v %q, want [BOARD_UNAVAILABLE]", res.IsError, tooltest.Text(res))
	}
	if err := os.Remove(filepath.Join(dir, "sub")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if res := tooltest.Call(t, cs, "create_task", map[string]any{"description": "now it opens"}); res.IsError {
		t.Fatalf("create_task once the directory is there: %q", tooltest.Text(res))
	}
	s1, err := b.Board(context.Background())
	if err != nil {
		t.Fatalf("Board: %v", err)
	}
	if s2, _ := b.Board(context.Background()); s2 != s1 {
		t.Errorf("Board opened the database a second time")
	}
	if _, err := os.Stat(filepath.Join(dir, "sub", "board.db")); err != nil {
		t.Errorf("the board's file: %v", err)
	}
}
