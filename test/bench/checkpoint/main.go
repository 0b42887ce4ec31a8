// Command checkpoint measures what checkpoints (SPEC §7) add to a tool
// call, in one run on this machine: a str_replace and a bash `true` on a
// core with --checkpoints on beside one with --checkpoints off, on a
// generated tree of 10,000 files and on a small tree of 20, reporting
// p50/p99 and the added latency against the targets (≤ 15 ms on
// the large tree, ≤ 3 ms on the small one).
//
// The four cores run at once and are measured in rounds that visit each in
// turn, so drift in the machine's load favours none. Each str_replace
// changes the file (so a checkpoint is recorded every time); bash `true`
// changes nothing, so it measures the scan that finds nothing to record.
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
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

const prog = "bench-checkpoint"

// config holds the command-line settings.
type config struct {
	calls  int // timed calls of each kind per core
	warmup int // untimed calls of each kind per core first
	files  int // files in the large tree
}

func main() {
	var cfg config
	flag.IntVar(&cfg.calls, "calls", 100, "timed calls of each kind per configuration")
	flag.IntVar(&cfg.warmup, "warmup", 10, "untimed calls of each kind per configuration first")
	flag.IntVar(&cfg.files, "files", 10000, "files in the large tree")
	flag.Parse()
	if cfg.calls < 1 || cfg.files < 100 {
		benchkit.ExitUsage(prog, "-calls must be at least 1 and -files at least 100")
	}
	os.Exit(benchkit.Run(prog, os.Stderr, func(ctx context.Context) error { return run(ctx, cfg) }))
}

// target is one core being measured.
type target struct {
	tree, mode string
	cs         *mcp.ClientSession
	edit, bash []time.Duration
	flip       bool // which way the next str_replace goes
}

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
	var targets []*target
	for _, name := range []string{"10k files", "small"} {
		for _, mode := range []string{"off", "on"} {
			dir := filepath.Join(ws.Dir, name+"-"+mode)
			if err := generate(dir, trees[name]); err != nil {
				return err
			}
			cs, err := connect(ctx, boris, dir, mode, filepath.Join(ws.Dir, "state"))
			if err != nil {
				return err
			}
			defer cs.Close()
			targets = append(targets, &target{tree: name, mode: mode, cs: cs})
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
	return nil
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

// connect starts boris on dir with checkpoints mode and its state under state.
func connect(ctx context.Context, boris, dir, mode, state string) (*mcp.ClientSession, error) {
	cmd := exec.Command(boris, "--workdir", dir, "--checkpoints", mode)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
	cs, err := benchkit.NewClient(prog).Connect(ctx, benchkit.CommandTransport(cmd), nil)
	if err != nil {
		return nil, fmt.Errorf("start boris on %s: %w", dir, err)
	}
	// The first call waits for the tree's first recording; keep it untimed.
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "true"}})
	return cs, err
}

// round makes one str_replace and one bash call, recording their times if timed.
func (t *target) round(ctx context.Context, timed bool) error {
	from, to := "alpha", "beta"
	if t.flip {
		from, to = to, from
	}
	t.flip = !t.flip
	d, err := call(ctx, t.cs, "str_replace", map[string]any{"path": "edit.txt", "old_str": from, "new_str": to})
	if err != nil {
		return err
	}
	b, err := call(ctx, t.cs, "bash", map[string]any{"command": "true"})
	if err != nil {
		return err
	}
	if timed {
		t.edit, t.bash = append(t.edit, d), append(t.bash, b)
	}
	return nil
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
		e, b := benchkit.Summarize(t.edit), benchkit.Summarize(t.bash)
		fmt.Printf("%-10s %-5s %-12s %12s %12s\n", t.tree, t.mode, "str_replace", benchkit.FormatMs(e.P50), benchkit.FormatMs(e.P99))
		fmt.Printf("%-10s %-5s %-12s %12s %12s\n", t.tree, t.mode, "bash true", benchkit.FormatMs(b.P50), benchkit.FormatMs(b.P99))
	}
	var targets []benchkit.Target
	for i := 0; i+1 < len(ts); i += 2 {
		off, on := ts[i], ts[i+1]
		limit := 3.0
		if on.tree == "10k files" {
			limit = 15
		}
		for _, k := range []struct {
			name    string
			off, on []time.Duration
		}{{"str_replace", off.edit, on.edit}, {"bash true", off.bash, on.bash}} {
			added := benchkit.Ms(benchkit.Summarize(k.on).P50 - benchkit.Summarize(k.off).P50)
			targets = append(targets, benchkit.Target{Name: fmt.Sprintf("added p50 %s (%s)", k.name, on.tree), Value: added, Limit: limit, Unit: "ms", Met: added <= limit})
		}
	}
	benchkit.WriteTargets(os.Stdout, targets)
}
