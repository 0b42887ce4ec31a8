package boris

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mjkoo/boris/core/toolkit/tooltest"
)

// TestCheckpointsRecorded: with checkpoints on, every change a tool
// makes is recorded by the tool that made it (a background task's once
// it ends), and a str_replace that misses text changed outside Boris
// since it was viewed says which checkpoint changed it, and how.
func TestCheckpointsRecorded(t *testing.T) {
	d := tooltest.New(t).WithCheckpoints(t)
	dir := d.Dir()
	r := tooltest.Runner{Client: tooltest.Connect(t, Tools(d, defaultOptions())), Dir: dir, Captures: map[string]*regexp.Regexp{"$TASK": taskID}}
	r.Run(t, []tooltest.Step{
		{Tool: "create_file", Args: map[string]any{"path": "a.txt", "content": "one\ntwo\nthree\n"}, Want: "Created"},
		{Tool: "str_replace", Args: map[string]any{"path": "a.txt", "old_str": "one", "new_str": "1"}, Want: "Edited"},
		{Tool: "bash", Args: map[string]any{"command": "echo b > b.txt"}, Want: "exit_code: 0"},
		{Tool: "bash", Args: map[string]any{"command": "echo c > c.txt", "run_in_background": true}, Want: "status: running"},
		{Tool: "task_output", Args: map[string]any{"task_id": "$TASK"}, Want: "status: completed"},
		{Tool: "view", Args: map[string]any{"path": "a.txt"}, Want: "two"},
		{Tool: tooltest.Outside, Args: map[string]any{"path": "a.txt", "content": "1\nTWO\nthree\n"}},
		{Tool: "str_replace", Args: map[string]any{"path": "a.txt", "old_str": "two", "new_str": "2"}, IsError: true,
			Want: "The text changed since you last viewed it: cp_"},
		{Tool: "str_replace", Args: map[string]any{"path": "a.txt", "old_str": "two", "new_str": "2"}, IsError: true,
			Want: "-two\n+TWO\n"},
	})
	ctx := context.Background()
	d.Recorder().Await(ctx)
	hist, err := d.Recorder().Store().History(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, cp := range hist {
		tools = append(tools, cp.Tool+": "+cp.Summary)
	}
	for _, want := range []string{"create_file: a.txt", "str_replace: a.txt", "bash: echo b > b.txt", "bash: background task task_", "outside: "} {
		if !slices.ContainsFunc(tools, func(s string) bool { return strings.HasPrefix(s, want) }) {
			t.Errorf("checkpoints %q: want one of %q", tools, want)
		}
	}
}
