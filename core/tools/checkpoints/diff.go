package checkpoints

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit"
)

type diffParams struct {
	Checkpoint string `json:"checkpoint,omitempty" jsonschema:"checkpoint id (cp_N, from history) whose change to show; omitted: what changed in the working tree since the latest checkpoint"`
	Path       string `json:"path,omitempty" jsonschema:"only changes to this file or below this directory; relative paths resolve against the working directory"`
}

var diffTool = &mcp.Tool{
	Name: "diff",
	Description: "Show a unified diff: the change one checkpoint recorded (checkpoint: cp_N from history), " +
		"or with no checkpoint the working tree against the latest checkpoint (changes not yet recorded, e.g. made outside this server).",
	Annotations: &mcp.ToolAnnotations{Title: "Diff checkpoint", ReadOnlyHint: true, OpenWorldHint: toolkit.Ptr(false)},
}

// diff implements the diff tool (docs/reference/core.md#checkpoints).
func (h tools) diff(ctx context.Context, _ *mcp.CallToolRequest, p diffParams) (*mcp.CallToolResult, error) {
	st, path, err := h.open(ctx, p.Path, false)
	if err != nil {
		return nil, err
	}
	out, err := st.Diff(ctx, p.Checkpoint, path)
	if err != nil {
		return nil, err
	}
	if out == "" {
		if p.Checkpoint == "" {
			return toolkit.TextResult("No changes since the latest checkpoint."), nil
		}
		return toolkit.TextResult("Checkpoint " + p.Checkpoint + " changed nothing there."), nil
	}
	return toolkit.TextResult(out), nil
}
