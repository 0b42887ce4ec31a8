package benchkit

import (
	"context"
	"fmt"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TerminateAfter is how long a stdio server gets to exit after its stdin
// is closed, before SIGTERM.
const TerminateAfter = 2 * time.Second

// NewClient returns a client named name without the roots capability, so
// no server sends roots/list during the handshake and every server sees
// the same client.
func NewClient(name string) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"},
		&mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
}

// CommandTransport returns a stdio transport that runs cmd, ends it with
// SIGTERM TerminateAfter after closing its stdin, and does not hang on
// output held open by a grandchild (cmd.WaitDelay).
func CommandTransport(cmd *exec.Cmd) *mcp.CommandTransport {
	cmd.WaitDelay = TerminateAfter
	return &mcp.CommandTransport{Command: cmd, TerminateDuration: TerminateAfter}
}

// ReadCall is the tool call a benchmark times: one read of the fixture,
// whose result CheckResult checks.
type ReadCall struct {
	Tool    string         // the server's tool that reads a file
	Args    map[string]any // its arguments, naming Fixture.Path
	Fixture Fixture        // what every result must hold
}

// On returns one checked call of r on cs.
func (r ReadCall) On(ctx context.Context, cs *mcp.ClientSession) func() error {
	params := &mcp.CallToolParams{Name: r.Tool, Arguments: r.Args}
	return func() error {
		res, err := cs.CallTool(ctx, params)
		return CheckResult(res, err, r.Fixture)
	}
}

// TimeSession times checked calls of r on cs, then pings (the protocol's
// round-trip floor): warmup untimed and then timed timed ones of each.
func TimeSession(ctx context.Context, cs *mcp.ClientSession, r ReadCall, warmup, timed int) (call, ping Stats, err error) {
	callDs, err := timeOps(warmup, timed, r.On(ctx, cs))
	if err != nil {
		return call, ping, fmt.Errorf("%s: %w", r.Tool, err)
	}
	pingDs, err := timeOps(warmup, timed, func() error { return cs.Ping(ctx, nil) })
	if err != nil {
		return call, ping, fmt.Errorf("ping: %w", err)
	}
	return Summarize(callDs), Summarize(pingDs), nil
}

// timeOps runs op warmup untimed times, then timed timed times, and
// returns the timed latencies. The first error stops it.
func timeOps(warmup, timed int, op func() error) ([]time.Duration, error) {
	ds := make([]time.Duration, 0, timed)
	for i := range warmup + timed {
		start := time.Now()
		err := op()
		d := time.Since(start)
		if err != nil {
			return nil, fmt.Errorf("call %d: %w", i, err)
		}
		if i >= warmup {
			ds = append(ds, d)
		}
	}
	return ds, nil
}
