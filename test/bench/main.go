// Command bench measures boris against the reference Node MCP server,
// @modelcontextprotocol/server-filesystem, in one run on this machine:
// the time from spawning each server to a completed initialize handshake
// (initialize request, response, notifications/initialized), and the p50/p99
// latency of a small read of the same ~50-line file (boris view, the peer's
// read_text_file) on one long-lived session.
//
// Run it from the module root with `go run ./test/bench` (or `make bench`).
// It prints a table and a verdict line per target, and never fails on a
// speed target; it exits non-zero only when a server misbehaves: a spawn or
// call fails, a call returns isError, or a result lacks the file's content.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// config holds the command-line settings.
type config struct {
	spawns   int    // timed spawn→initialized runs per server
	calls    int    // timed small calls per server
	warmup   int    // untimed calls before the timed ones
	jsonOut  bool   // print JSON instead of the table
	boris    string // prebuilt boris binary; empty means build ./cmd/boris
	node     string // node executable for the peer server
	protocol string // MCP protocol version the client asks for
}

// main parses flags, runs the benchmark and exits non-zero on failure.
func main() {
	cfg := parseFlags(os.Args[1:])
	os.Exit(benchkit.Run("bench", os.Stderr, func(ctx context.Context) error {
		return run(ctx, cfg, os.Stdout, os.Stderr)
	}))
}

// parseFlags reads the command line into a config, exiting on bad usage.
func parseFlags(args []string) config {
	var cfg config
	fs := flag.NewFlagSet("bench", flag.ExitOnError)
	fs.IntVar(&cfg.spawns, "spawns", 20, "timed spawn→initialized runs per server")
	fs.IntVar(&cfg.calls, "calls", 1000, "timed small calls per server, on one session")
	fs.IntVar(&cfg.warmup, "warmup", 50, "untimed warm-up calls before the timed ones")
	fs.BoolVar(&cfg.jsonOut, "json", false, "print the result as JSON instead of a table")
	fs.StringVar(&cfg.boris, "boris", "", "use this boris binary instead of building ./cmd/boris")
	fs.StringVar(&cfg.node, "node", "node", "node executable that runs the peer server")
	fs.StringVar(&cfg.protocol, "protocol", "2025-11-25",
		"MCP protocol version the client requests; empty means the go-sdk default (may use server/discover instead of initialize)")
	_ = fs.Parse(args) // ExitOnError: Parse exits on error
	if cfg.spawns < 1 || cfg.calls < 1 || cfg.warmup < 0 {
		benchkit.ExitUsage("bench", "-spawns and -calls must be at least 1, -warmup at least 0")
	}
	return cfg
}

// run prepares both servers and the fixture, measures each server and
// writes the report to out; progress goes to logw.
func run(ctx context.Context, cfg config, out, logw io.Writer) error {
	ws, err := benchkit.NewWorkspace(ctx, "boris-bench-", "boris bench")
	if err != nil {
		return err
	}
	defer ws.Close()
	servers, env, err := prepare(ctx, cfg, ws, logw)
	if err != nil {
		return err
	}
	results := make([]serverResult, 0, len(servers))
	for _, s := range servers {
		r, err := measure(ctx, cfg, s, ws.Fixture, logw)
		if err != nil {
			return err
		}
		results = append(results, r)
	}
	return report(out, cfg, env, results[0], results[1])
}

// prepare builds (or locates) boris into ws, installs the peer if needed
// and returns both server definitions, boris first, with the run's
// environment.
func prepare(ctx context.Context, cfg config, ws *benchkit.Workspace, logw io.Writer) ([]server, environment, error) {
	bin := cfg.boris
	if bin == "" {
		fmt.Fprintln(logw, "bench: building boris")
		var err error
		if bin, err = benchkit.Build(ctx, ws.Root, ws.Dir, "boris"); err != nil {
			return nil, environment{}, err
		}
	}
	peer := benchkit.NodePackage{Dir: filepath.Join(ws.Root, "test", "bench"), Name: peerPackage}
	peerJS, err := peer.Ensure(ctx, "bench", logw)
	if err != nil {
		return nil, environment{}, err
	}
	env, err := describeEnvironment(ctx, cfg, peer)
	if err != nil {
		return nil, environment{}, err
	}
	return []server{borisServer(bin), peerServer(cfg.node, peerJS)}, env, nil
}
