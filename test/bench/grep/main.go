// Command grep measures boris's grep and glob tools against ripgrep in one
// run on this machine, over a large real tree (by default the Go
// toolchain's own source, $(go env GOROOT)/src).
//
// boris is driven through a real MCP client (go-sdk, CommandTransport, one
// session); each case's time is the wall time of the tools/call round
// trip. rg runs as a process with flags that make its ignore rules and
// limits equal to boris's; its time is the process's wall time. Runs
// alternate between the two, after one untimed warm-up each, and the
// median of -runs is reported.
//
// Run it from the module root with `go run ./test/bench/grep`. It prints a
// table and one verdict line per target (within 2x of ripgrep), and never
// fails on speed; it exits non-zero when the two disagree on how many
// files (or lines) match, or a call fails.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// config holds the command-line settings.
type config struct {
	runs  int    // timed runs per case and tool
	root  string // tree to search
	boris string // prebuilt boris; empty builds ./cmd/boris
	rg    string // ripgrep executable
}

// main parses flags, runs the benchmark and exits non-zero on failure.
func main() {
	cfg := parseFlags()
	os.Exit(benchkit.Run("bench/grep", os.Stderr, func(ctx context.Context) error {
		return run(ctx, cfg)
	}))
}

// parseFlags reads the command line, exiting on bad usage.
func parseFlags() config {
	var cfg config
	flag.IntVar(&cfg.runs, "runs", 5, "timed runs per case and tool; the median is reported")
	flag.StringVar(&cfg.root, "root", filepath.Join(runtime.GOROOT(), "src"), "directory tree to search")
	flag.StringVar(&cfg.boris, "boris", "", "use this boris binary instead of building ./cmd/boris")
	flag.StringVar(&cfg.rg, "rg", "rg", "ripgrep executable (installed with apt-get when missing)")
	flag.Parse()
	if cfg.runs < 1 {
		benchkit.ExitUsage("bench/grep", "-runs must be at least 1")
	}
	return cfg
}

// run prepares both tools, measures every case and prints the report.
func run(ctx context.Context, cfg config) error {
	tmp, err := os.MkdirTemp("", "boris-bench-grep-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if cfg.boris == "" {
		if cfg.boris, err = buildBoris(ctx, tmp); err != nil {
			return err
		}
	}
	if cfg.rg, err = ensureRipgrep(ctx, cfg.rg); err != nil {
		return err
	}
	env, err := describe(ctx, cfg)
	if err != nil {
		return err
	}
	b, err := startBoris(ctx, cfg.boris, cfg.root)
	if err != nil {
		return err
	}
	defer b.close()
	var results []result
	for _, c := range cases() {
		r, err := measure(ctx, cfg, b, c)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		results = append(results, r)
	}
	report(os.Stdout, cfg, env, results)
	return nil
}
