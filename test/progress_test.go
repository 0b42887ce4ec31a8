package test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestProgressLeadingEdge checks through the built core that the first
// notifications/progress goes out as soon as a command prints (issue 10,
// item 7), not a second later: the command prints its second line 0.8 s
// after its first and then ends, so a core that waits for its first tick
// sends nothing at all, and one that reports the leading edge sends
// "first" while the second line is still due. Arrival times are measured
// against the call's own end.
func TestProgressLeadingEdge(t *testing.T) {
	type arrival struct {
		at  time.Time
		msg string
	}
	var mu sync.Mutex
	var got []arrival
	c := startCoreWith(t, coreOptions{
		args: []string{"--workdir", realTempDir(t)},
		progress: func(req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, arrival{time.Now(), req.Params.Message})
		},
	})
	params := &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "echo first; sleep 0.8; echo second"}}
	params.SetProgressToken("lead")
	res, err := c.session.CallTool(context.Background(), params)
	ended := time.Now()
	if err != nil || res.IsError {
		t.Fatalf("call: %v %v", err, res)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) == 0 {
		t.Fatal("no progress notification for a command printing a line 0.8 s before it ends, want one at its first line")
	}
	if got[0].msg != "first" {
		t.Errorf("first notification's message = %q, want %q (sent before the second line was due)", got[0].msg, "first")
	}
	if early := ended.Sub(got[0].at); early < 500*time.Millisecond {
		t.Errorf("first notification came %v before the call ended, want at least 500ms (the second line was 800ms away)", early)
	}
}
