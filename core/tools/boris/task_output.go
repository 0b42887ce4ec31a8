package boris

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit"
)

// Defaults of task_output's wait, as Claude Code's TaskOutput has them.
const (
	defaultBlockMs = 30000
	maxBlockMs     = 600000
)

type taskOutputParams struct {
	TaskID  string `json:"task_id" jsonschema:"the task_id bash returned for a command run with run_in_background"`
	Block   *bool  `json:"block,omitempty" jsonschema:"wait for the task to finish, up to timeout, before returning; default true. false returns the output so far at once"`
	Timeout int    `json:"timeout,omitempty" jsonschema:"how long to wait when block is true, in milliseconds; default 30000, at most 600000 (larger values are clamped). The task keeps running when the wait ends"`
}

var taskOutputTool = &mcp.Tool{
	Name: "task_output",
	Description: "Read the output of a background task started with bash and run_in_background. " +
		"By default waits up to 30 s (block, timeout) for the task to finish. " +
		"The result starts with task_id and status: running (output so far), or completed, killed (by task_stop) or timed_out (by the server's --background-task-timeout), " +
		"followed by stdout and stderr as bash shows them (each capped at 30000 characters, head and tail kept), and exit_code once finished. " +
		"Once a finished task's final output has been returned, its task_id is forgotten. " +
		"Progress notifications with the latest output line are sent while waiting when the request has a progress token.",
	Annotations: &mcp.ToolAnnotations{Title: "Read background task output", ReadOnlyHint: true, OpenWorldHint: toolkit.Ptr(false)},
}

// taskOutput implements the task_output tool (docs/reference/tools.md#background-tasks).
func (b *tools) taskOutput(ctx context.Context, req *mcp.CallToolRequest, p taskOutputParams) (*mcp.CallToolResult, error) {
	wait, err := blockTimeout(p)
	if err != nil {
		return nil, err
	}
	t, err := b.lookupTask(p.TaskID)
	if err != nil {
		return nil, err
	}
	if wait > 0 {
		waitCtx, cancel := context.WithTimeout(ctx, wait)
		defer cancel()
		t.Wait(waitCtx, progressFunc(ctx, req, wait))
	}
	if ctx.Err() != nil {
		// Cancelled: the result will not be delivered, so it must not
		// collect the task's final output either.
		return nil, ctx.Err()
	}
	res, finished := t.Snapshot()
	if finished {
		// What it changed is captured before anyone hears it ended: a
		// change made after this answer is not the task's.
		b.d.Recorder().AwaitFinishedTasks(ctx)
		b.d.Shell().Collect(t)
	}
	return toolkit.TextResult(formatTask(t.ID(), res, finished)), nil
}

// blockTimeout is how long task_output waits: 0 without block, else the
// timeout parameter (default 30 s, clamped to 10 min).
func blockTimeout(p taskOutputParams) (time.Duration, error) {
	switch {
	case p.Timeout < 0:
		return 0, toolkit.Fail(toolkit.InvalidInput, "timeout must be a positive number of milliseconds, got %d", p.Timeout)
	case p.Block != nil && !*p.Block:
		return 0, nil
	case p.Timeout == 0:
		p.Timeout = defaultBlockMs
	}
	return time.Duration(min(p.Timeout, maxBlockMs)) * time.Millisecond, nil
}
