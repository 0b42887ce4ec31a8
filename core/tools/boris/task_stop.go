package boris

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit"
)

type taskStopParams struct {
	TaskID string `json:"task_id" jsonschema:"the task_id bash returned for a command run with run_in_background"`
}

var taskStopTool = &mcp.Tool{
	Name: "task_stop",
	Description: "End a background task started with bash and run_in_background: its whole process group gets SIGTERM, then SIGKILL 5 s later. " +
		"Returns the task's final output in task_output's layout (status: killed, or its own status if it had already finished); the task_id is then forgotten.",
	Annotations: &mcp.ToolAnnotations{Title: "Stop background task", DestructiveHint: toolkit.Ptr(true), OpenWorldHint: toolkit.Ptr(false)},
}

// taskStop implements the task_stop tool (docs/reference/tools.md#background-tasks). It waits for the task
// to end so that the output it returns is final, and collects it.
func (b *tools) taskStop(ctx context.Context, _ *mcp.CallToolRequest, p taskStopParams) (*mcp.CallToolResult, error) {
	t, err := b.lookupTask(p.TaskID)
	if err != nil {
		return nil, err
	}
	res := t.Stop()
	b.d.Recorder().AwaitFinishedTasks(ctx) // its change captured before the answer
	b.d.Shell().Collect(t)
	b.opt.Log.Debug("task stopped", "task_id", t.ID(), "exit_code", res.ExitCode)
	return toolkit.TextResult(formatTask(t.ID(), res, true)), nil
}
