package boris

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit"
)

// TestBashExecError covers EXEC_ERROR, which a live core only reaches when
// its shell cannot run a command: here, a shell already closed by shutdown.
func TestBashExecError(t *testing.T) {
	b := newTestTools(t, t.TempDir())
	b.d.Shell().Close()
	_, err := b.bash(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "bash"}}, bashParams{Command: "true"})
	if got := toolkit.Classify(err).Error(); !strings.HasPrefix(got, "[EXEC_ERROR] ") {
		t.Errorf("bash after shutdown: got %q, want [EXEC_ERROR]", got)
	}
}
