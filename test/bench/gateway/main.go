// Command gateway measures boris-gateway against supergateway
// (`supergateway --stateful --outputTransport streamableHttp`, from npm)
// wrapping the same boris core, in one run on this machine:
//
//   - session create: the time for a go-sdk client to connect over
//     Streamable HTTP (initialize, its response, notifications/initialized),
//     p50/p99 over -sessions new sessions, each then closed with DELETE;
//   - small call: p50/p99 of a view of a 50-line file on one warm session,
//     beside the same call made directly to boris over stdio;
//   - throughput: calls per second from 8 sessions calling at once;
//   - memory: resident memory of the gateway's whole process tree with 50
//     sessions open, divided by 50.
//
// Run it from the module root with `go run ./test/bench/gateway`. It prints
// a table and a verdict line per target of the issue, and never fails on a
// speed or memory target. It exits non-zero when something misbehaves: a
// gateway does not start, a call fails, returns isError or lacks the file's
// content, or a boris process outlives the run.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// protocolVersion is the MCP revision the client asks for: one both
// gateways speak with initialize (newer go-sdk defaults try server/discover).
const protocolVersion = "2025-11-25"

// config holds the command-line settings.
type config struct {
	sessions int           // timed session creates per gateway
	calls    int           // timed small calls per transport
	warmup   int           // untimed calls before the timed ones
	block    int           // calls one transport makes before the other's turn (hop)
	workers  int           // concurrent sessions in the throughput phase
	duration time.Duration // length of the throughput phase
	open     int           // sessions held open for the memory reading
	jsonOut  bool          // print JSON instead of the table
	node     string        // node executable that runs supergateway
}

// main parses flags, runs the benchmark and exits non-zero on failure.
func main() {
	cfg := parseFlags(os.Args[1:])
	os.Exit(benchkit.Run("bench-gateway", os.Stderr, func(ctx context.Context) error {
		return run(ctx, cfg, os.Stdout, os.Stderr)
	}))
}

// parseFlags reads the command line into a config, exiting on bad usage.
func parseFlags(args []string) config {
	var cfg config
	fs := flag.NewFlagSet("bench-gateway", flag.ExitOnError)
	fs.IntVar(&cfg.sessions, "sessions", 30, "timed session creates (connect, then DELETE) per gateway")
	fs.IntVar(&cfg.calls, "calls", 1000, "timed small calls (and as many pings) per transport, on one session")
	fs.IntVar(&cfg.warmup, "warmup", 50, "untimed warm-up calls before the timed ones")
	fs.IntVar(&cfg.block, "block", 25, "for the hop, calls one client makes before the other takes its turn (at most a tenth of the calls; 1 takes turns call by call)")
	fs.IntVar(&cfg.workers, "concurrency", 8, "sessions calling at once in the throughput phase")
	fs.DurationVar(&cfg.duration, "duration", 5*time.Second, "length of the throughput phase")
	fs.IntVar(&cfg.open, "open", 50, "sessions held open for the memory reading")
	fs.BoolVar(&cfg.jsonOut, "json", false, "print the result as JSON instead of a table")
	fs.StringVar(&cfg.node, "node", "node", "node executable that runs supergateway (v20 or newer)")
	_ = fs.Parse(args) // ExitOnError: Parse exits on error
	if cfg.sessions < 1 || cfg.calls < 1 || cfg.warmup < 0 || cfg.block < 1 || cfg.workers < 1 || cfg.duration <= 0 || cfg.open < 1 {
		benchkit.ExitUsage("bench-gateway", "-sessions, -calls, -block, -concurrency and -open must be at least 1, -warmup at least 0, -duration positive")
	}
	return cfg
}

// run builds and installs what it needs, measures direct stdio and then
// each gateway, checks that no boris process is left, and writes the
// report to out; progress goes to logw.
func run(ctx context.Context, cfg config, out, logw io.Writer) error {
	ws, err := benchkit.NewWorkspace(ctx, "boris-bench-gateway-", "boris gateway bench")
	if err != nil {
		return err
	}
	defer ws.Close()
	bins, env, err := prepare(ctx, cfg, ws, logw)
	if err != nil {
		return err
	}
	fx := ws.Fixture
	res := results{env: env}
	fmt.Fprintf(logw, "bench-gateway: direct stdio: %d warm-up + %d timed view calls, then as many pings\n", cfg.warmup, cfg.calls)
	if res.stdio, err = measureStdio(ctx, cfg, bins.boris, fx); err != nil {
		return err
	}
	for _, spec := range []gatewaySpec{borisGateway(bins, fx, cfg), superGateway(cfg.node, bins, fx)} {
		r, err := measureGateway(ctx, cfg, spec, bins, fx, logw)
		if err != nil {
			return err
		}
		res.gateways = append(res.gateways, r)
	}
	if res.warmCreate, res.warmIsolation, err = measureWarmCreate(ctx, cfg, borisGateway(bins, fx, cfg, "--warm-cores", "1"), logw); err != nil {
		return err
	}
	res.leftover, err = benchkit.AwaitGone(ctx, fx.Dir, leakWait, pollEvery)
	if err != nil {
		return err
	}
	if err := report(out, cfg, res); err != nil {
		return err
	}
	return benchkit.LeftoverError(res.leftover)
}
