package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Time limits that turn a hung server into an error instead of a hung run.
const (
	spawnTimeout     = 30 * time.Second // one spawn, handshake and close
	callPhaseTimeout = 5 * time.Minute  // all calls on one session
	terminateAfter   = 2 * time.Second  // wait after closing stdin before SIGTERM
)

// serverResult is what was measured for one server.
type serverResult struct {
	name string
	init stats // spawn→initialized
	call stats // one small read on a warm session
	ping stats // one ping on the same session: the protocol round-trip floor
}

// stats summarizes a set of latencies.
type stats struct {
	n                        int
	mean, p50, p99, min, max time.Duration
}

// measure times cfg.spawns handshakes of s, then cfg.calls small reads of
// the fixture and cfg.calls pings on one session.
func measure(ctx context.Context, cfg config, s server, fx fixture, logw io.Writer) (serverResult, error) {
	fmt.Fprintf(logw, "bench: %s: %d spawns\n", s.name, cfg.spawns)
	initDs, err := measureInit(ctx, cfg, s, fx)
	if err != nil {
		return serverResult{}, err
	}
	fmt.Fprintf(logw, "bench: %s: %d warm-up + %d timed %s calls, then as many pings\n", s.name, cfg.warmup, cfg.calls, s.tool)
	r, err := measureSession(ctx, cfg, s, fx)
	if err != nil {
		return serverResult{}, err
	}
	r.name, r.init = s.name, summarize(initDs)
	return r, nil
}

// newClient returns a client without the roots capability, so neither
// server sends roots/list during the handshake and both see the same client.
func newClient() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "boris-bench", Version: "1"},
		&mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
}

// connect spawns s on the fixture directory and completes the handshake
// (initialize, its response, notifications/initialized). It returns the
// session, the server's captured stderr and the time from spawn to
// initialized.
func connect(ctx context.Context, cfg config, s server, fx fixture) (*mcp.ClientSession, *bytes.Buffer, time.Duration, error) {
	cmd := s.command(fx.dir)
	stderr := new(bytes.Buffer)
	cmd.Stderr = stderr
	cmd.WaitDelay = terminateAfter // don't hang on stderr held open by a grandchild
	t := &mcp.CommandTransport{Command: cmd, TerminateDuration: terminateAfter}
	opts := &mcp.ClientSessionOptions{ProtocolVersion: cfg.protocol}
	client := newClient()
	start := time.Now()
	cs, err := client.Connect(ctx, t, opts)
	elapsed := time.Since(start)
	if err != nil {
		return nil, stderr, 0, fmt.Errorf("spawn %s: %w%s", s.name, err, stderrNote(stderr))
	}
	return cs, stderr, elapsed, nil
}

// measureInit times one untimed warm-up spawn (so both servers start with
// warm file caches) and then cfg.spawns timed ones, closing each session.
func measureInit(ctx context.Context, cfg config, s server, fx fixture) ([]time.Duration, error) {
	ds := make([]time.Duration, 0, cfg.spawns)
	for i := range cfg.spawns + 1 {
		d, err := spawnOnce(ctx, cfg, s, fx)
		if err != nil {
			return nil, fmt.Errorf("spawn %d: %w", i, err)
		}
		if i > 0 {
			ds = append(ds, d)
		}
	}
	return ds, nil
}

// spawnOnce starts s, completes the handshake, closes the session (which
// waits for the server to exit) and returns the spawn→initialized time.
func spawnOnce(ctx context.Context, cfg config, s server, fx fixture) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, spawnTimeout)
	defer cancel()
	cs, stderr, d, err := connect(ctx, cfg, s, fx)
	if err != nil {
		return 0, err
	}
	if err := cs.Close(); err != nil {
		return 0, fmt.Errorf("close %s: %w%s", s.name, err, stderrNote(stderr))
	}
	return d, nil
}

// measureSession opens one session and times the small call, then ping.
func measureSession(ctx context.Context, cfg config, s server, fx fixture) (serverResult, error) {
	ctx, cancel := context.WithTimeout(ctx, callPhaseTimeout)
	defer cancel()
	cs, stderr, _, err := connect(ctx, cfg, s, fx)
	if err != nil {
		return serverResult{}, err
	}
	r, opErr := timeSession(ctx, cfg, cs, s, fx)
	closeErr := cs.Close()
	if opErr != nil {
		return serverResult{}, fmt.Errorf("%s: %w%s", s.name, opErr, stderrNote(stderr))
	}
	if closeErr != nil {
		return serverResult{}, fmt.Errorf("close %s: %w%s", s.name, closeErr, stderrNote(stderr))
	}
	return r, nil
}

// timeSession times the checked small calls and the pings on cs.
func timeSession(ctx context.Context, cfg config, cs *mcp.ClientSession, s server, fx fixture) (serverResult, error) {
	params := &mcp.CallToolParams{Name: s.tool, Arguments: s.args(fx.path)}
	call := func() error {
		res, err := cs.CallTool(ctx, params)
		return checkResult(res, err, fx)
	}
	callDs, err := timeOps(cfg, call)
	if err != nil {
		return serverResult{}, fmt.Errorf("%s: %w", s.tool, err)
	}
	pingDs, err := timeOps(cfg, func() error { return cs.Ping(ctx, nil) })
	if err != nil {
		return serverResult{}, fmt.Errorf("ping: %w", err)
	}
	return serverResult{call: summarize(callDs), ping: summarize(pingDs)}, nil
}

// timeOps runs op cfg.warmup untimed times, then cfg.calls timed times,
// and returns the timed latencies. The first error stops it.
func timeOps(cfg config, op func() error) ([]time.Duration, error) {
	ds := make([]time.Duration, 0, cfg.calls)
	for i := range cfg.warmup + cfg.calls {
		start := time.Now()
		err := op()
		d := time.Since(start)
		if err != nil {
			return nil, fmt.Errorf("call %d: %w", i, err)
		}
		if i >= cfg.warmup {
			ds = append(ds, d)
		}
	}
	return ds, nil
}

// checkResult fails unless the call succeeded, is not an isError result and
// its text holds every line of the fixture in order: proof the server
// really read the file.
func checkResult(res *mcp.CallToolResult, err error, fx fixture) error {
	if err != nil {
		return err
	}
	text := resultText(res)
	if res.IsError {
		return fmt.Errorf("isError result: %s", clip(text))
	}
	rest := text
	for n, line := range fx.lines {
		i := strings.Index(rest, line)
		if i < 0 {
			return fmt.Errorf("result lacks line %d of %s (%q); got %q", n+1, fx.path, line, clip(text))
		}
		rest = rest[i+len(line):]
	}
	return nil
}

// resultText joins the text content blocks of res.
func resultText(res *mcp.CallToolResult) string {
	var sb strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(t.Text)
		}
	}
	return sb.String()
}

// clip shortens s for an error message.
func clip(s string) string {
	const limit = 300
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "..."
}

// stderrNote formats a server's captured stderr for an error message.
func stderrNote(stderr *bytes.Buffer) string {
	s := strings.TrimSpace(stderr.String())
	if s == "" {
		return ""
	}
	return "\nserver stderr:\n" + clip(s)
}

// summarize computes count, mean, p50, p99, min and max of ds.
func summarize(ds []time.Duration) stats {
	if len(ds) == 0 {
		return stats{}
	}
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	var sum time.Duration
	for _, d := range sorted {
		sum += d
	}
	return stats{
		n:    len(sorted),
		mean: sum / time.Duration(len(sorted)),
		p50:  percentile(sorted, 50),
		p99:  percentile(sorted, 99),
		min:  sorted[0],
		max:  sorted[len(sorted)-1],
	}
}

// percentile returns the nearest-rank p-th percentile of sorted, which must
// be non-empty and ascending. With 20 samples, p99 is the maximum.
func percentile(sorted []time.Duration, p float64) time.Duration {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}
