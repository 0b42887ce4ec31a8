package boris

import (
	"strings"
	"testing"
	"time"

	"github.com/mjkoo/boris/core/shell"
)

// TestBash: bash runs commands in the working directory, which cd moves
// for the next call, and reports their streams and exit code in the
// documented layout; a command over its timeout is ended and says so.
func TestBash(t *testing.T) {
	runScenarios(t, []scenario{
		{name: "streams and exit codes", files: map[string]string{"sub/f.txt": "in sub\n"}, steps: []step{
			{tool: "bash", args: map[string]any{"command": "echo hi"}, want: "stdout:\nhi\nexit_code: 0"},
			{tool: "bash", args: map[string]any{"command": "printf x; printf y >&2; exit 3", "description": "both streams"}, want: "stdout:\nx\nstderr:\ny\nexit_code: 3"},
			{tool: "bash", args: map[string]any{"command": "true"}, want: "exit_code: 0", not: "stdout"},
			{tool: "bash", args: map[string]any{"command": "cd sub"}, want: "exit_code: 0"},
			{tool: "bash", args: map[string]any{"command": "pwd; cat f.txt"}, want: "stdout:\n$DIR/sub\nin sub\n"},
			{tool: "bash", args: map[string]any{"command": "echo made > made.txt"}, want: "exit_code: 0"},
		}, after: map[string]string{"sub/made.txt": "made\n"}},
		{name: "timeout", steps: []step{
			{tool: "bash", args: map[string]any{"command": "echo started; sleep 30", "timeout": 200}, want: "stdout:\nstarted\ntimed_out: after 200 ms, process group terminated\nexit_code: "},
		}},
		{name: "refusals", steps: []step{
			{tool: "bash", args: map[string]any{"command": "  "}, isError: true, want: "[INVALID_INPUT] command must not be empty"},
			{tool: "bash", args: map[string]any{"command": "touch t.txt", "timeout": -5}, isError: true, want: "[INVALID_INPUT] timeout must be a positive number of milliseconds, got -5"},
		}, after: map[string]string{"t.txt": absent}},
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
		{name: "finishes on its own", steps: []step{
			{tool: "bash", args: map[string]any{"command": "echo bg; echo warn >&2", "run_in_background": true}, want: "status: running\nUse task_output with this task_id", not: "killed if still running"},
			{tool: "task_output", args: map[string]any{"task_id": "$TASK"}, want: "task_id: $TASK\nstatus: completed\nstdout:\nbg\nstderr:\nwarn\nexit_code: 0"},
			{tool: "task_output", args: map[string]any{"task_id": "$TASK"}, isError: true, want: "[TASK_NOT_FOUND] task $TASK has finished and its final output was already returned"},
			{tool: "task_stop", args: map[string]any{"task_id": "$TASK"}, isError: true, want: "[TASK_NOT_FOUND]"},
		}},
		{name: "stopped while running", steps: []step{
			{tool: "bash", args: map[string]any{"command": "echo up; sleep 60", "run_in_background": true}, want: "status: running"},
			{tool: "task_output", args: map[string]any{"task_id": "$TASK", "block": true, "timeout": 100}, want: "task_id: $TASK\nstatus: running\nstdout:\nup", not: "exit_code"},
			{tool: "task_output", args: map[string]any{"task_id": "$TASK", "block": false}, want: "status: running"},
			{tool: "task_output", args: map[string]any{"task_id": "task_ffffffff"}, isError: true, want: "[TASK_NOT_FOUND] no background task task_ffffffff; known tasks: $TASK (running: echo up; sleep 60)"},
			{tool: "task_stop", args: map[string]any{"task_id": "$TASK"}, want: "task_id: $TASK\nstatus: killed\nstdout:\nup\nexit_code: "},
			{tool: "task_output", args: map[string]any{"task_id": "$TASK"}, isError: true, want: "[TASK_NOT_FOUND]"},
		}},
		{name: "the limit", opt: func(o *Options) { o.BackgroundTaskLimit = 1 }, steps: []step{
			{tool: "bash", args: map[string]any{"command": "sleep 60\necho never", "run_in_background": true}, want: "status: running"},
			{tool: "bash", args: map[string]any{"command": "touch second.txt", "run_in_background": true}, isError: true,
				want: "[TASK_LIMIT] 1 background task is already running (--background-task-limit is 1); wait for one to finish (task_output with block: true) or end one with task_stop. Running: $TASK (sleep 60 …)"},
			{tool: "task_stop", args: map[string]any{"task_id": "$TASK"}, want: "status: killed"},
		}, after: map[string]string{"second.txt": absent}},
		{name: "disabled", opt: func(o *Options) { o.BackgroundTaskLimit = 0 }, steps: []step{
			{tool: "bash", args: map[string]any{"command": "touch t.txt", "run_in_background": true}, isError: true, want: "[TASK_LIMIT] background tasks are disabled on this server (--background-task-limit 0)"},
		}, after: map[string]string{"t.txt": absent}},
		{name: "lifetime", opt: func(o *Options) { o.BackgroundTaskTimeout = 1 }, steps: []step{
			{tool: "bash", args: map[string]any{"command": "sleep 60", "run_in_background": true}, want: "It will be killed if still running after 1 s (--background-task-timeout)."},
			{tool: "task_output", args: map[string]any{"task_id": "$TASK", "timeout": 60000}, want: "status: timed_out\nexit_code: "},
		}},
		{name: "unknown ids", steps: []step{
			{tool: "task_output", args: map[string]any{"task_id": " "}, isError: true, want: "[INVALID_INPUT] task_id must not be empty"},
			{tool: "task_output", args: map[string]any{"task_id": "task_00000000"}, isError: true, want: "[TASK_NOT_FOUND] no background task task_00000000; no tasks are running"},
			{tool: "task_output", args: map[string]any{"task_id": "W-3"}, isError: true, want: "is the id of a task on the task board, not of a background command; read it with get_task"},
			{tool: "task_output", args: map[string]any{"task_id": "task_00000000", "timeout": -1}, isError: true, want: "[INVALID_INPUT] timeout must be a positive number of milliseconds, got -1"},
			{tool: "task_stop", args: map[string]any{"task_id": ""}, isError: true, want: "[INVALID_INPUT] task_id must not be empty"},
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
