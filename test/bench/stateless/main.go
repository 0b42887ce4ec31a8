// Command stateless measures what the 2026-07-28 (stateless) path of
// boris-gateway costs over its session path, in one run on this machine:
// a go-sdk client pinned to 2025-11-25 (initialize, Mcp-Session-Id) and
// one pinned to 2026-07-28 (server/discover, then per-request _meta and
// headers, one core for the principal) make the same small call (a view
// of a 50-line file) against one gateway, in alternating rounds so both
// see the same machine; the same calls go straight to a core over stdio
// at each revision, so what the revision costs client and core shows
// apart from what the gateway's stateless path costs. It prints p50/p99
// of each and the differences, and
// a verdict line for issue 14's target (the stateless path adds at most
// 0.2 ms); it never fails on speed. It exits non-zero when a call fails or
// returns the wrong content, or a boris process outlives the run.
//
// Run it from the module root: `go run ./test/bench/stateless` (or
// `make bench-stateless`).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

func main() {
	calls := flag.Int("calls", 2000, "timed calls per client")
	rounds := flag.Int("rounds", 20, "alternating rounds the calls are split into")
	warmup := flag.Int("warmup", 100, "untimed calls per client first")
	flag.Parse()
	if *calls < *rounds || *rounds < 1 || *warmup < 0 {
		benchkit.ExitUsage("bench-stateless", "-calls must be at least -rounds, which must be at least 1; -warmup at least 0")
	}
	os.Exit(benchkit.Run("bench-stateless", os.Stderr, func(ctx context.Context) error {
		return run(ctx, *calls, *rounds, *warmup, os.Stdout)
	}))
}

func run(ctx context.Context, calls, rounds, warmup int, out io.Writer) error {
	ws, err := benchkit.NewWorkspace(ctx, "boris-bench-stateless-", "boris stateless bench")
	if err != nil {
		return err
	}
	defer ws.Close()
	if _, err := benchkit.Build(ctx, ws.Root, ws.Dir, "boris"); err != nil {
		return err
	}
	gw, err := benchkit.Build(ctx, ws.Root, ws.Dir, "boris-gateway")
	if err != nil {
		return err
	}
	fx := ws.Fixture
	g, err := benchkit.StartGateway(ctx, gw, "--listen", "127.0.0.1:0", "--auth", "none", "--", "--workdir", fx.Dir)
	if err != nil {
		return err
	}
	defer g.Stop()
	url := g.URL()
	hc := &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 16}}
	connect := func(version string) (*mcp.ClientSession, error) {
		t := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}
		return benchkit.NewClient("boris-bench-stateless").Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: version})
	}
	session, err := connect("2025-11-25")
	if err != nil {
		return fmt.Errorf("2025-11-25 client: %w", err)
	}
	stateless, err := connect("2026-07-28")
	if err != nil {
		return fmt.Errorf("2026-07-28 client: %w", err)
	}
	if v := stateless.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		return fmt.Errorf("the 2026-07-28 client negotiated %q", v)
	}
	// The same two revisions straight to a core over stdio: what the
	// revision costs the client and the core, without the gateway.
	stdio := func(version string) (*mcp.ClientSession, error) {
		t := benchkit.CommandTransport(exec.CommandContext(ctx, ws.Dir+"/boris", "--workdir", fx.Dir))
		return benchkit.NewClient("boris-bench-stateless").Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: version})
	}
	stdio2025, err := stdio("2025-11-25")
	if err != nil {
		return fmt.Errorf("stdio 2025-11-25: %w", err)
	}
	stdio2026, err := stdio("2026-07-28")
	if err != nil {
		return fmt.Errorf("stdio 2026-07-28: %w", err)
	}
	read := benchkit.ReadCall{Tool: "view", Args: map[string]any{"path": fx.Path}, Fixture: fx}
	clients := []struct {
		name string
		call func() error
		ds   []time.Duration
	}{
		{name: "gateway, 2025-11-25", call: read.On(ctx, session)},
		{name: "gateway, 2026-07-28", call: read.On(ctx, stateless)},
		{name: "stdio, 2025-11-25", call: read.On(ctx, stdio2025)},
		{name: "stdio, 2026-07-28", call: read.On(ctx, stdio2026)},
	}
	for i := range clients {
		for range warmup {
			if err := clients[i].call(); err != nil {
				return fmt.Errorf("%s: warm-up: %w", clients[i].name, err)
			}
		}
	}
	per := calls / rounds
	for range rounds {
		for i := range clients {
			for range per {
				start := time.Now()
				err := clients[i].call()
				clients[i].ds = append(clients[i].ds, time.Since(start))
				if err != nil {
					return fmt.Errorf("%s: %w", clients[i].name, err)
				}
			}
		}
	}
	for _, cs := range []*mcp.ClientSession{session, stateless, stdio2025, stdio2026} {
		_ = cs.Close()
	}

	fmt.Fprintf(out, "boris-gateway, small call (view of a %d-line file), %d calls per client in %d alternating rounds\n\n", benchkit.FixtureLines, per*rounds, rounds)
	fmt.Fprintf(out, "%-22s %10s %10s %10s\n", "path, client", "p50", "p99", "mean")
	var stats []benchkit.Stats
	for _, c := range clients {
		s := benchkit.Summarize(c.ds)
		stats = append(stats, s)
		fmt.Fprintf(out, "%-22s %10s %10s %10s\n", c.name, benchkit.FormatMs(s.P50), benchkit.FormatMs(s.P99), benchkit.FormatMs(s.Mean))
	}
	added := stats[1].P50 - stats[0].P50
	hop := (stats[1].P50 - stats[3].P50) - (stats[0].P50 - stats[2].P50)
	fmt.Fprintf(out, "\nthrough the gateway, 2026-07-28 − 2025-11-25 p50: %s (p99 %s)\n", benchkit.FormatMs(added), benchkit.FormatMs(stats[1].P99-stats[0].P99))
	fmt.Fprintf(out, "the gateway's stateless hop − its session hop, p50 (each: gateway − stdio at that revision): %s\n\n", benchkit.FormatMs(hop))
	benchkit.WriteTargets(out, []benchkit.Target{{Name: "stateless path added p50", Value: benchkit.Ms(added), Limit: 0.2, Unit: "ms", Met: benchkit.Ms(added) <= 0.2}})

	g.Stop()
	return benchkit.CheckNoneLeft(ctx, fx.Dir)
}
