// Command isolation measures the cost of Boris's isolation in one run on
// this machine: a bash `echo hi` round trip and a session create through
// boris-gateway, with the core's Landlock sandbox (--sandbox auto|off) and
// the gateway's per-session cgroups (--cgroups auto|off) on and off, in all
// four combinations, beside the same bash call made to boris directly over
// stdio with the sandbox on and off.
//
//   - session create: the time for a go-sdk client to connect over
//     Streamable HTTP (initialize, its response, notifications/initialized),
//     p50/p99 over -sessions new sessions per configuration, each then
//     closed with DELETE (whose time is reported too);
//   - bash call: p50/p99 of -calls `bash {"command": "echo hi"}` calls on
//     one warm session per configuration.
//
// Two more gateways run with the sandbox and cgroups on and each session in
// namespaces of its own (--sandbox-net none, and proxy with the egress
// proxy), measured against the same gateway with the host's network; and
// a 100 MB download by curl inside a session, directly (net host) and
// through the egress proxy (plain HTTP and a CONNECT tunnel), median of 5.
//
// All configurations run at once, and the measurements are taken in
// -rounds rounds that visit every configuration in a rotating order, so
// that drift in the machine's load does not favour one.
//
// Run it from the module root with `go run ./test/bench/isolation`. It
// prints a table, what each gateway's /healthz says it enforces, and one
// verdict line per target of the issue; it never fails on a speed target.
// It exits non-zero when something misbehaves: a gateway does not start, a
// call fails, returns isError or lacks "hi", or a boris process outlives
// the run.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// prog names the command in progress lines and errors.
const prog = "bench-isolation"

// protocolVersion is the MCP revision the client asks for, as in the
// gateway benchmark: one boris-gateway speaks with initialize.
const protocolVersion = "2025-11-25"

// config holds the command-line settings.
type config struct {
	sessions int  // timed session creates per gateway configuration
	calls    int  // timed bash calls per configuration
	warmup   int  // untimed bash calls per warm session before the timed ones
	rounds   int  // rounds the timed work is split into
	jsonOut  bool // print JSON instead of the table
}

// main parses flags, runs the benchmark and exits non-zero on failure.
func main() {
	cfg := parseFlags(os.Args[1:])
	os.Exit(benchkit.Run(prog, os.Stderr, func(ctx context.Context) error {
		return run(ctx, cfg, os.Stdout, os.Stderr)
	}))
}

// parseFlags reads the command line into a config, exiting on bad usage.
func parseFlags(args []string) config {
	var cfg config
	fs := flag.NewFlagSet(prog, flag.ExitOnError)
	fs.IntVar(&cfg.sessions, "sessions", 30, "timed session creates (connect, then DELETE) per gateway configuration")
	fs.IntVar(&cfg.calls, "calls", 300, "timed bash `echo hi` calls per configuration, on one warm session")
	fs.IntVar(&cfg.warmup, "warmup", 20, "untimed bash calls on each warm session before the timed ones")
	fs.IntVar(&cfg.rounds, "rounds", 5, "rounds the timed work is split into, each visiting every configuration")
	fs.BoolVar(&cfg.jsonOut, "json", false, "print the result as JSON instead of a table")
	_ = fs.Parse(args) // ExitOnError: Parse exits on error
	if cfg.sessions < 1 || cfg.calls < 1 || cfg.rounds < 1 || cfg.warmup < 0 {
		benchkit.ExitUsage(prog, "-sessions, -calls and -rounds must be at least 1, -warmup at least 0")
	}
	return cfg
}

// run builds the binaries, starts every configuration, measures them in
// rounds, stops them, checks that no boris process is left, and writes
// the report to out; progress goes to logw.
func run(ctx context.Context, cfg config, out, logw io.Writer) error {
	ws, err := benchkit.NewWorkspace(ctx, "boris-bench-isolation-", "boris isolation bench")
	if err != nil {
		return err
	}
	defer ws.Close()
	fmt.Fprintf(logw, "%s: building boris and boris-gateway\n", prog)
	bins, err := build(ctx, ws)
	if err != nil {
		return err
	}
	res := results{}
	if res.env, err = describeEnvironment(ctx, bins.boris, ws.Fixture.Dir); err != nil {
		return err
	}
	if res.configs, res.download, err = measureAll(ctx, cfg, bins, ws, logw); err != nil {
		return err
	}
	if res.leftover, err = benchkit.AwaitGone(ctx, ws.Fixture.Dir, leakWait, pollEvery); err != nil {
		return err
	}
	if err := report(out, cfg, res); err != nil {
		return err
	}
	return benchkit.LeftoverError(res.leftover)
}
