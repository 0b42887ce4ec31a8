// Command fstools measures boris's filesystem toolset (`boris --toolset
// filesystem`) against the server it replaces,
// @modelcontextprotocol/server-filesystem, in one run on this machine:
// start-up to initialized, read_text_file of a small file, directory_tree
// and search_files on a generated tree of 10,000 files, and edit_file with
// dryRun on a 2,000-line file. Each server works on its own twin copy of
// the fixture; the two are measured side by side, their calls interleaved,
// so the machine's load drifts onto neither.
//
// Run it from the module root with `go run ./test/bench/fstools` (or `make
// bench-fstools`). It prints a table (ratio = server-filesystem / boris:
// how many times faster boris is) and one verdict line per target (3×
// faster), which is never enforced. It exits non-zero when a server
// misbehaves: a spawn or call fails, a call returns isError, a tool is
// missing, or a result is not what the fixture says it must be.
package main

import (
	"context"
	"flag"
	"io"
	"os"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// prog names the command in messages.
const prog = "fstools"

// config holds the command-line settings.
type config struct {
	spawns      int    // timed spawn→initialized runs per server
	reads       int    // timed read_text_file calls per server
	treeCalls   int    // timed directory_tree and search_files calls each per server
	edits       int    // timed edit_file dryRun calls per server
	warmup      int    // untimed calls before the timed ones (reads and edits)
	block       int    // calls one server makes before the other's turn (benchkit.RunLength)
	treeWarmup  int    // untimed directory_tree and search_files calls
	files       int    // files in the generated tree
	editLines   int    // lines of the file edit_file edits
	jsonOut     bool   // print JSON instead of the table
	partial     bool   // measure what both servers have instead of failing on a missing tool
	boris       string // prebuilt boris binary; empty means build ./cmd/boris
	node        string // node executable for the peer server
	protocol    string // MCP protocol version the client asks for
	checkpoints string // boris's --checkpoints
	client      string // raw (benchkit.RawSession) or sdk (the go-sdk client)
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
	fs.IntVar(&cfg.spawns, "spawns", 20, "timed spawn→initialized runs per server")
	fs.IntVar(&cfg.reads, "reads", 500, "timed read_text_file calls of the small file per server")
	fs.IntVar(&cfg.treeCalls, "tree-calls", 20, "timed directory_tree and as many search_files calls per server")
	fs.IntVar(&cfg.edits, "edits", 200, "timed edit_file dryRun calls per server")
	fs.IntVar(&cfg.warmup, "warmup", 20, "untimed read_text_file and edit_file calls before the timed ones")
	fs.IntVar(&cfg.block, "block", 25, "calls of a figure one server makes before the other takes its turn (at most a tenth of the figure's calls; 1 takes turns call by call)")
	fs.IntVar(&cfg.treeWarmup, "tree-warmup", 2, "untimed directory_tree and search_files calls before the timed ones")
	fs.IntVar(&cfg.files, "files", 10000, "files in the generated tree (directories of 100)")
	fs.IntVar(&cfg.editLines, "edit-lines", 2000, "lines of the file edit_file edits")
	fs.BoolVar(&cfg.jsonOut, "json", false, "print the result as JSON instead of a table")
	fs.BoolVar(&cfg.partial, "partial", false, "measure only the tools both servers have, instead of failing when one lacks a tool")
	fs.StringVar(&cfg.boris, "boris", "", "use this boris binary instead of building ./cmd/boris")
	fs.StringVar(&cfg.node, "node", "node", "node executable that runs the peer server")
	fs.StringVar(&cfg.protocol, "protocol", "2025-11-25", "MCP protocol version the client requests of both servers")
	fs.StringVar(&cfg.checkpoints, "checkpoints", "off", "boris's --checkpoints (on records the served tree in the background at every start)")
	fs.StringVar(&cfg.client, "client", "raw", "client that times the calls: raw (a minimal JSON-RPC client; the times are the servers' and the pipes') or sdk (the go-sdk client; its decoding of each result is included)")
	_ = fs.Parse(args) // ExitOnError: Parse exits on error
	if cfg.spawns < 1 || cfg.reads < 1 || cfg.treeCalls < 1 || cfg.edits < 1 || cfg.warmup < 0 || cfg.treeWarmup < 0 || cfg.block < 1 {
		benchkit.ExitUsage(prog, "-spawns, -reads, -tree-calls, -edits and -block must be at least 1, -warmup and -tree-warmup at least 0")
	}
	if cfg.client != "raw" && cfg.client != "sdk" {
		benchkit.ExitUsage(prog, "-client must be raw or sdk")
	}
	if cfg.files < 1 || cfg.editLines < 10 {
		benchkit.ExitUsage(prog, "-files must be at least 1 and -edit-lines at least 10")
	}
	return cfg
}

// run prepares both servers and their fixtures, measures them and writes
// the report to out; progress goes to logw.
func run(ctx context.Context, cfg config, out, logw io.Writer) error {
	ws, err := benchkit.NewWorkspace(ctx, "boris-bench-fstools-", "fstools")
	if err != nil {
		return err
	}
	defer ws.Close()
	servers, env, err := prepare(ctx, cfg, ws, logw)
	if err != nil {
		return err
	}
	res, err := measure(ctx, cfg, servers, logw)
	if err != nil {
		return err
	}
	if err := checkUnchanged(servers); err != nil {
		return err
	}
	return report(out, cfg, env, servers, res)
}
