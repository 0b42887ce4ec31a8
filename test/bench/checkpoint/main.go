// Command checkpoint measures what checkpoints (docs/reference/core.md#checkpoints) add to a tool
// call, in one run on this machine: cores with --checkpoints on beside
// cores with --checkpoints off, on a generated tree of 10,000 files and
// on a small tree of 20 and, with -linux, on the Linux kernel sources
// (about 78,000 files, extracted once into -cache), reporting p50/p99 and
// the added latency against the targets: the call right after an edit adds
// at most 5 ms on the large trees; every other call at most 15 ms on the
// large trees and 3 ms on the small one.
//
// A file tool's change is recorded in process before the call answers; a
// command's is recorded just after it answers, by the core's recorder,
// and the next call that changes files (or reads the history) waits for
// that recording. So each round measures, with every earlier recording
// settled first (an untimed call):
//
//   - str_replace: the edit's own latency, its recording included;
//   - bash true: a command that changes nothing, so what finding nothing
//     to record costs;
//   - bash edit: a command that appends to a file (recorded after);
//   - next call: a bash true sent the moment a str_replace has answered:
//     what an edit's recording costs when calls come back to back.
//
// The four cores run at once and are measured in rounds that visit each in
// turn, so drift in the machine's load favours none.
//
// Then the cold rows (cold.go): the first str_replace and the first bash
// of a session right after initialize, with a fresh state directory and
// no warm-up, checkpoints on and off, on trees of about 10,000, 40,000
// and 80,000 files (-cold-sizes), with the wall time and CPU seconds the
// starting checkpoint took and the shadow's size.
//
// Run it from the module root with `go run ./test/bench/checkpoint`. It
// never fails on a speed target; it exits non-zero when a call fails.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

const prog = "bench-checkpoint"

// config holds the command-line settings.
type config struct {
	calls  int    // timed calls of each kind per core
	warmup int    // untimed calls of each kind per core first
	files  int    // files in the large tree
	linux  bool   // also measure on the kernel sources
	cache  string // where the kernel sources are extracted
	// the cold rows
	coldSizes []int // files in each tree (rounded to copies of Go's src); none: no cold rows
	coldRuns  int   // fresh cores per row, the median reported
}

func main() {
	var cfg config
	flag.IntVar(&cfg.calls, "calls", 100, "timed calls of each kind per configuration")
	flag.IntVar(&cfg.warmup, "warmup", 10, "untimed calls of each kind per configuration first")
	flag.IntVar(&cfg.files, "files", 10000, "files in the large tree")
	flag.BoolVar(&cfg.linux, "linux", false, "also measure on the Linux kernel sources (Debian's linux-source, installed and extracted the first time)")
	cacheDir, err := os.UserCacheDir()
	if err != nil {
		cacheDir = os.TempDir()
	}
	flag.StringVar(&cfg.cache, "cache", filepath.Join(cacheDir, "boris-bench"), "where the kernel sources are extracted and kept between runs")
	sizes := flag.String("cold-sizes", "10000,40000,80000", "files in the trees of the cold rows (copies of Go's src), comma-separated; empty: no cold rows")
	flag.IntVar(&cfg.coldRuns, "cold-runs", 3, "fresh cores per cold row (the median is reported)")
	flag.Parse()
	for _, f := range strings.FieldsFunc(*sizes, func(r rune) bool { return r == ',' }) {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			benchkit.ExitUsage(prog, "-cold-sizes must list positive numbers of files")
		}
		cfg.coldSizes = append(cfg.coldSizes, n)
	}
	if cfg.calls < 1 || cfg.files < 100 || cfg.coldRuns < 1 {
		benchkit.ExitUsage(prog, "-calls and -cold-runs must be at least 1 and -files at least 100")
	}
	os.Exit(benchkit.Run(prog, os.Stderr, func(ctx context.Context) error { return run(ctx, cfg) }))
}

// target is one core being measured.
type target struct {
	tree, mode string
	cs         *mcp.ClientSession
	times      map[string][]time.Duration // by kind of call
	flip       bool                       // which way the next str_replace goes
}

// kinds are the measured calls, in the table's order.
var kinds = []string{"str_replace", "bash true", "bash edit", "next call"}

func run(ctx context.Context, cfg config) error {
	ws, err := benchkit.NewWorkspace(ctx, "bench-checkpoint-", prog)
	if err != nil {
		return err
	}
	defer ws.Close()
	boris, err := benchkit.Build(ctx, ws.Root, ws.Dir, "boris")
	if err != nil {
		return err
	}
	trees := map[string]int{"10k files": cfg.files, "small": 20}
	names := []string{"10k files", "small"}
	linux := ""
	if cfg.linux {
		if linux, err = benchkit.LinuxSources(ctx, cfg.cache); err != nil {
			return err
		}
		names = append(names, "linux")
	}
	var targets []*target
	for _, name := range names {
		for _, mode := range []string{"off", "on"} {
			dir := filepath.Join(ws.Dir, name+"-"+mode)
			if name == "linux" {
				err = linkTree(ctx, linux, dir)
			} else {
				err = generate(dir, trees[name])
			}
			if err != nil {
				return err
			}
			cs, err := connect(ctx, boris, dir, mode, filepath.Join(ws.Dir, "state"))
			if err != nil {
				return err
			}
			defer cs.Close()
			targets = append(targets, &target{tree: name, mode: mode, cs: cs, times: map[string][]time.Duration{}})
		}
	}
	fmt.Fprintf(os.Stderr, "%s: %d+%d calls of each kind on %d cores\n", prog, cfg.warmup, cfg.calls, len(targets))
	for i := range cfg.warmup + cfg.calls {
		for _, t := range targets {
			if err := t.round(ctx, i >= cfg.warmup); err != nil {
				return fmt.Errorf("%s, checkpoints %s: %w", t.tree, t.mode, err)
			}
		}
	}
	report(targets)
	return cold(ctx, cfg, boris, ws.Dir)
}

// generate writes n small files in directories of 100 under dir, and the
// file every str_replace edits.
func generate(dir string, n int) error {
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("d%03d", i/100), fmt.Sprintf("f%03d.go", i%100))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, fmt.Appendf(nil, "package p\n\n// file %d\nvar x = %d\n", i, i), 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "edit.txt"), []byte("alpha\n"), 0o644)
}

// linkTree makes dir a copy of the tree at src whose files are hard links
// (no copy of a kernel's worth of bytes), with its own edit.txt.
func linkTree(ctx context.Context, src, dir string) error {
	if out, err := exec.CommandContext(ctx, "cp", "-al", src, dir).CombinedOutput(); err != nil {
		return fmt.Errorf("link %s to %s: %w: %s", src, dir, err, out)
	}
	return os.WriteFile(filepath.Join(dir, "edit.txt"), []byte("alpha\n"), 0o644)
}

// connect starts boris on dir with checkpoints mode and its state under state.
func connect(ctx context.Context, boris, dir, mode, state string) (*mcp.ClientSession, error) {
	cmd := exec.Command(boris, "--workdir", dir, "--checkpoints", mode)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
	cs, err := benchkit.NewClient(prog).Connect(ctx, benchkit.CommandTransport(cmd), nil)
	if err != nil {
		return nil, fmt.Errorf("start boris on %s: %w", dir, err)
	}
	// The first call is measured by the cold rows; keep it untimed here.
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "true"}})
	return cs, err
}

// round makes each kind of call once, recording their times if timed.
func (t *target) round(ctx context.Context, timed bool) error {
	edit := func() (time.Duration, error) {
		from, to := "alpha", "beta"
		if t.flip {
			from, to = to, from
		}
		t.flip = !t.flip
		return call(ctx, t.cs, "str_replace", map[string]any{"path": "edit.txt", "old_str": from, "new_str": to})
	}
	bash := func(command string) func() (time.Duration, error) {
		return func() (time.Duration, error) {
			return call(ctx, t.cs, "bash", map[string]any{"command": command})
		}
	}
	steps := []struct {
		kind   string
		settle bool // wait for earlier recordings first
		do     func() (time.Duration, error)
	}{
		{"str_replace", true, edit},
		{"bash true", true, bash("true")},
		{"bash edit", true, bash("echo x >> log.txt")},
		{"", true, edit},
		{"next call", false, bash("true")},
	}
	for _, st := range steps {
		if st.settle {
			if err := t.settle(ctx); err != nil {
				return err
			}
		}
		d, err := st.do()
		if err != nil {
			return err
		}
		if timed && st.kind != "" {
			t.times[st.kind] = append(t.times[st.kind], d)
		}
	}
	return nil
}

// settle waits until every recording of the core is done: history waits
// for them. A core with checkpoints off has nothing to wait for.
func (t *target) settle(ctx context.Context) error {
	if t.mode == "off" {
		return nil
	}
	_, err := call(ctx, t.cs, "history", map[string]any{"limit": 1})
	return err
}

// call times one tool call that must succeed.
func call(ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) (time.Duration, error) {
	start := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	d := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", tool, err)
	}
	if res.IsError {
		return 0, fmt.Errorf("%s: %s", tool, benchkit.Clip(benchkit.ResultText(res)))
	}
	return d, nil
}

// report prints the table and the verdicts.
func report(ts []*target) {
	fmt.Printf("%-10s %-5s %-12s %12s %12s\n", "tree", "ckpt", "call", "p50", "p99")
	for _, t := range ts {
		for _, k := range kinds {
			sum := benchkit.Summarize(t.times[k])
			fmt.Printf("%-10s %-5s %-12s %12s %12s\n", t.tree, t.mode, k, benchkit.FormatMs(sum.P50), benchkit.FormatMs(sum.P99))
		}
	}
	var targets []benchkit.Target
	for i := 0; i+1 < len(ts); i += 2 {
		off, on := ts[i], ts[i+1]
		for _, k := range kinds {
			limit := 3.0
			switch {
			case on.tree != "small" && k == "next call":
				limit = 5
			case on.tree != "small":
				limit = 15
			}
			added := benchkit.Ms(benchkit.Summarize(on.times[k]).P50 - benchkit.Summarize(off.times[k]).P50)
			targets = append(targets, benchkit.Target{Name: fmt.Sprintf("added p50 %s (%s)", k, on.tree), Value: added, Limit: limit, Unit: "ms", Met: added <= limit})
		}
	}
	benchkit.WriteTargets(os.Stdout, targets)
}
