// Command grep measures boris's grep and glob tools against ripgrep in one
// run on this machine, over large real trees: the Go toolchain's own
// source ($(go env GOROOT)/src, -corpus go, the default) and the Linux
// kernel sources of Debian's linux-source package (-corpus linux, about
// 78,000 files, installed and extracted into a cache directory by the
// first run).
//
// boris is driven by benchkit's minimal JSON-RPC client over its pipes
// (one session); each case's time runs from the tools/call request written
// to the response's last byte read, the result decoded after. rg runs as a process with flags that make its ignore rules and
// limits equal to boris's; its time is the process's wall time. Runs
// alternate between the two, after one untimed warm-up each, and the
// median is reported, with a warm page cache and, for the kernel tree
// (or with -cold), a cold-ish one: the page cache dropped before every
// timed run of either tool.
//
// Run it from the module root with `go run ./test/bench/grep`. It prints a
// table per corpus and cache state and one verdict line per case (at or
// below ripgrep's time), and never fails on speed; it exits non-zero when
// the two disagree on how many files (or lines) match, or a call fails.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// config holds the command-line settings.
type config struct {
	runs     int    // timed runs per case and tool, warm page cache
	coldRuns int    // timed runs per case and tool, cold-ish page cache
	corpus   string // go, linux or all
	root     string // the go corpus's tree
	cache    string // where the Linux sources are extracted
	cold     bool   // also measure the go corpus with a cold-ish cache
	boris    string // prebuilt boris; empty builds ./cmd/boris
	rg       string // ripgrep executable
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
	cacheDir, err := os.UserCacheDir()
	if err != nil {
		cacheDir = os.TempDir()
	}
	flag.IntVar(&cfg.runs, "runs", 5, "timed runs per case and tool with a warm page cache; the median is reported")
	flag.IntVar(&cfg.coldRuns, "cold-runs", 3, "timed runs per case and tool with a cold-ish page cache")
	flag.StringVar(&cfg.corpus, "corpus", "go", "trees to search: go (the Go sources), linux (the kernel sources of Debian's linux-source) or all")
	flag.StringVar(&cfg.root, "root", filepath.Join(benchkit.GoRoot(), "src"), "the go corpus's tree (any directory)")
	flag.StringVar(&cfg.cache, "cache", filepath.Join(cacheDir, "boris-bench"), "where the kernel sources are extracted and kept between runs")
	flag.BoolVar(&cfg.cold, "cold", false, "also measure the go corpus with a cold-ish page cache (the linux corpus always is)")
	flag.StringVar(&cfg.boris, "boris", "", "use this boris binary instead of building ./cmd/boris")
	flag.StringVar(&cfg.rg, "rg", "rg", "ripgrep executable (installed with apt-get when missing)")
	flag.Parse()
	switch {
	case cfg.runs < 1 || cfg.coldRuns < 1:
		benchkit.ExitUsage("bench/grep", "-runs and -cold-runs must be at least 1")
	case cfg.corpus != "go" && cfg.corpus != "linux" && cfg.corpus != "all":
		benchkit.ExitUsage("bench/grep", "-corpus must be go, linux or all, got "+cfg.corpus)
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
	trees, err := corpora(ctx, cfg)
	if err != nil {
		return err
	}
	for _, t := range trees {
		if err := runCorpus(ctx, cfg, env, t); err != nil {
			return fmt.Errorf("%s corpus: %w", t.name, err)
		}
	}
	return nil
}

// runCorpus measures one tree's cases with a warm page cache, then (when
// asked) with a cold-ish one, and prints a table for each.
func runCorpus(ctx context.Context, cfg config, env environment, t corpus) error {
	files, err := countFiles(t.root)
	if err != nil {
		return err
	}
	b, err := startBoris(ctx, cfg.boris, t.root)
	if err != nil {
		return err
	}
	defer b.close()
	for _, cold := range []bool{false, true} {
		if cold && !t.cold {
			break
		}
		tb := table{env: env, root: t.root, files: files, runs: cfg.runs}
		if cold {
			tb.runs, tb.cold = cfg.coldRuns, true
			if err := dropCaches(); err != nil {
				fmt.Fprintf(os.Stdout, "Cold-ish page cache on %s: skipped, the page cache cannot be dropped here (%v); run as root with a writable /proc/sys/vm/drop_caches.\n\n", t.name, err)
				break
			}
		}
		fmt.Fprintf(os.Stderr, "bench/grep: %s corpus, %s page cache\n", t.name, tb.cache())
		for _, c := range t.cases {
			r, err := measure(ctx, cfg, b, t.root, c, tb.runs, cold)
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			tb.results = append(tb.results, r)
		}
		tb.report(os.Stdout)
	}
	return nil
}
