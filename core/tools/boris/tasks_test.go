package boris

import (
	"strings"
	"testing"
	"time"

	"github.com/mjkoo/boris/core/shell"
	"github.com/mjkoo/boris/core/toolkit/tooltest"
)

// TestBash: bash runs commands in the working directory, which cd moves
// for the next call, and reports their streams and exit code in the
// documented layout; a command over its timeout is ended and says so.
func TestBash(t *testing.T) {
	runScenarios(t, []scenario{
		{name: "streams and exit codes", files: map[string]string{"sub/f.txt": "in sub\n"}, steps: []tooltest.Step{
			{Tool: "bash", Args: map[string]any{"command": "echo hi"}, Want: "stdout:\nhi\nexit_code: 0"},
			{Tool: "bash", Args: map[string]any{"command": "printf x; printf y >&2; exit 3", "description": "both streams"}, Want: "stdout:\nx\nstderr:\ny\nexit_code: 3"},
			{Tool: "bash", Args: map[string]any{"command": "true"}, Want: "exit_code: 0", Not: "stdout"},
			{Tool: "bash", Args: map[string]any{"command": "cd sub"}, Want: "exit_code: 0"},
			{Tool: "bash", Args: map[string]any{"command": "pwd; cat f.txt"}, Want: "stdout:\n$DIR/sub\nin sub\n"},
			{Tool: "bash", Args: map[string]any{"command": "echo made > made.txt"}, Want: "exit_code: 0"},
		}, after: map[string]string{"sub/made.txt": "made\n"}},
		{name: "timeout", steps: []tooltest.Step{
			{Tool: "bash", Args: map[string]any{"command": "echo started; sleep 30", "timeout": 200}, Want: "stdout:\nstarted\ntimed_out: after 200 ms, process group terminated\nexit_code: "},
		}},
		{name: "refusals", steps: []tooltest.Step{
			{Tool: "bash", Args: map[string]any{"command": "  "}, IsError: true, Want: "[INVALID_INPUT] command must not be empty"},
			{Tool: "bash", Args: map[string]any{"command": "touch t.txt", "timeout": -5}, IsError: true, Want: "[INVALID_INPUT] timeout must be a positive number of milliseconds, got -5"},
		}, after: map[string]string{"t.txt": tooltest.Absent}},
	})
}

// TestBashTimeout: the timeout parameter falls back to --timeout and is
// clamped to ten minutes.
func TestBashTimeout(t *testing.T) {
	b := &tools{opt: Options{Timeout: 7}}
	for _, tt := range []struct {
		ms   int
		want time.Duration
	}{
		{0, 7 * time.Second},
		{1500, 1500 * time.Millisecond},
		{maxTimeoutMs + 1, 10 * time.Minute},
	} {
		if got, err := b.bashTimeout(tt.ms); err != nil || got != tt.want {
			t.Errorf("bashTimeout(%d) = %v, %v; want %v", tt.ms, got, err, tt.want)
		}
	}
}

// TestBackgroundTasks: a background command's id reads its output while
// it runs and once it ends, after which the id is forgotten; task_stop
// kills it; the limit and the lifetime hold; unknown ids are explained.
func TestBackgroundTasks(t *testing.T) {
	runScenarios(t, []scenario{
		{name: "finishes on its own", steps: []tooltest.Step{
			{Tool: "bash", Args: map[string]any{"command": "echo bg; echo warn >&2", "run_in_background": true}, Want: "status: running\nUse task_output with this task_id", Not: "killed if still running"},
			{Tool: "task_output", Args: map[string]any{"task_id": "$TASK"}, Want: "task_id: $TASK\nstatus: completed\nstdout:\nbg\nstderr:\nwarn\nexit_code: 0"},
			{Tool: "task_output", Args: map[string]any{"task_id": "$TASK"}, IsError: true, Want: "[TASK_NOT_FOUND] task $TASK has finished and its final output was already returned"},
			{Tool: "task_stop", Args: map[string]any{"task_id": "$TASK"}, IsError: true, Want: "[TASK_NOT_FOUND]"},
		}},
		{name: "stopped while running", steps: []tooltest.Step{
			{Tool: "bash", Args: map[string]any{"command": "echo up; sleep 60", "run_in_background": true}, Want: "status: running"},
			{Tool: "task_output", Args: map[string]any{"task_id": "$TASK", "block": true, "timeout": 100}, Want: "task_id: $TASK\nstatus: running\nstdout:\nup", Not: "exit_code"},
			{Tool: "task_output", Args: map[string]any{"task_id": "$TASK", "block": false}, Want: "status: running"},
			{Tool: "task_output", Args: map[string]any{"task_id": "task_ffffffff"}, IsError: true, Want: "[TASK_NOT_FOUND] no background task task_ffffffff; known tasks: $TASK (running: echo up; sleep 60)"},
			{Tool: "task_stop", Args: map[string]any{"task_id": "$TASK"}, Want: "task_id: $TASK\nstatus: killed\nstdout:\nup\nexit_code: "},
			{Tool: "task_output", Args: map[string]any{"task_id": "$TASK"}, IsError: true, Want: "[TASK_NOT_FOUND]"},
		}},
		{name: "the limit", opt: func(o *Options) { o.BackgroundTaskLimit = 1 }, steps: []tooltest.Step{
			{Tool: "bash", Args: map[string]any{"command": "sleep 60\necho never", "run_in_background": true}, Want: "status: running"},
			{Tool: "bash", Args: map[string]any{"command": "touch second.txt", "run_in_background": true}, IsError: true,
				Want: "[TASK_LIMIT] 1 background task is already running (--background-task-limit is 1); wait for one to finish (task_output with block: true) or end one with task_stop. Running: $TASK (sleep 60 …)"},
			{Tool: "task_stop", Args: map[string]any{"task_id": "$TASK"}, Want: "status: killed"},
		}, after: map[string]string{"second.txt": tooltest.Absent}},
		{name: "disabled", opt: func(o *Options) { o.BackgroundTaskLimit = 0 }, steps: []tooltest.Step{
			{Tool: "bash", Args: map[string]any{"command": "touch t.txt", "run_in_background": true}, IsError: true, Want: "[TASK_LIMIT] background tasks are disabled on this server (--background-task-limit 0)"},
		}, after: map[string]string{"t.txt": tooltest.Absent}},
		{name: "lifetime", opt: func(o *Options) { o.BackgroundTaskTimeout = 1 }, steps: []tooltest.Step{
			{Tool: "bash", Args: map[string]any{"command": "sleep 60", "run_in_background": true}, Want: "It will be killed if still running after 1 s (--background-task-timeout)."},
			{Tool: "task_output", Args: map[string]any{"task_id": "$TASK", "timeout": 60000}, Want: "status: timed_out\nexit_code: "},
		}},
		{name: "unknown ids", steps: []tooltest.Step{
			{Tool: "task_output", Args: map[string]any{"task_id": " "}, IsError: true, Want: "[INVALID_INPUT] task_id must not be empty"},
			{Tool: "task_output", Args: map[string]any{"task_id": "task_00000000"}, IsError: true, Want: "[TASK_NOT_FOUND] no background task task_00000000; no tasks are running"},
			{Tool: "task_output", Args: map[string]any{"task_id": "W-3"}, IsError: true, Want: "is the id of a task on the task board, not of a background command; read it with get_task"},
			{Tool: "task_output", Args: map[string]any{"task_id": "task_00000000", "timeout": -1}, IsError: true, Want: "[INVALID_INPUT] timeout must be a positive number of milliseconds, got -1"},
			{Tool: "task_stop", Args: map[string]any{"task_id": ""}, IsError: true, Want: "[INVALID_INPUT] task_id must not be empty"},
		}},
	})
}

// TestBlockTimeout: task_output waits 30 s by default, not at all
// without block, and at most ten minutes.
func TestBlockTimeout(t *testing.T) {
	no, yes := false, true
	for _, tt := range []struct {
		p    taskOutputParams
		want time.Duration
	}{
		{taskOutputParams{}, 30 * time.Second},
		{taskOutputParams{Block: &yes, Timeout: 250}, 250 * time.Millisecond},
		{taskOutputParams{Block: &no, Timeout: 250}, 0},
		{taskOutputParams{Timeout: maxBlockMs * 2}, 10 * time.Minute},
	} {
		if got, err := blockTimeout(tt.p); err != nil || got != tt.want {
			t.Errorf("blockTimeout(%+v) = %v, %v; want %v", tt.p, got, err, tt.want)
		}
	}
}

// TestDescribeTasks: task lists name each task by its command's first
// line, at most 60 characters.
func TestDescribeTasks(t *testing.T) {
	for _, tt := range []struct{ command, want string }{
		{"npm run dev", "npm run dev"},
		{"  make\nmake test", "make …"},
		{strings.Repeat("abcdefghij", 6) + "XYZ", strings.Repeat("abcdefghij", 6) + "…"},
	} {
		if got := shortCommand(tt.command); got != tt.want {
			t.Errorf("shortCommand(%q) = %q, want %q", tt.command, got, tt.want)
		}
	}
	if got := describeTasks([]*shell.Task{}, true); got != "none" {
		t.Errorf("describeTasks of no tasks = %q, want none", got)
	}
}
