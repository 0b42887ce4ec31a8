// Command floor measures what a small boris view costs against the floor:
// a bare go-sdk server (test/bench/floor/server, built from this module,
// so on the same SDK version) whose one tool returns the same text as a
// constant. Both are driven by the go-sdk client over stdio in one run, the
// calls interleaved (boris, floor, raw floor, boris, ...) so that a change
// in the machine's load hits all alike.
//
// Run it from the module root with `go run ./test/bench/floor`. It prints
// p50 and mean latency per server and the ratios, with a verdict on the
// issue's target (boris p50 <= 1.15 x the typed floor's); it never fails on
// a speed target, only when a server misbehaves.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/internal/procstat"
	"github.com/mjkoo/boris/test/bench/benchkit"
)

// targetRatio is the goal: boris's small view within 1.15 x the floor.
const targetRatio = 1.15

// config holds the command-line settings.
type config struct {
	calls, warmup int
	jsonOut       bool
}

// server is one server under test.
type server struct {
	name string
	cmd  func(ws *benchkit.Workspace) *exec.Cmd
	proc *exec.Cmd
	cs   *mcp.ClientSession
	ds   []time.Duration
	cpu  time.Duration // the process's CPU time over the timed calls
}

func main() {
	var cfg config
	fs := flag.NewFlagSet("floor", flag.ExitOnError)
	fs.IntVar(&cfg.calls, "calls", 3000, "timed small views per server, interleaved")
	fs.IntVar(&cfg.warmup, "warmup", 200, "untimed calls per server first")
	fs.BoolVar(&cfg.jsonOut, "json", false, "print the result as JSON instead of a table")
	_ = fs.Parse(os.Args[1:])
	if cfg.calls < 1 || cfg.warmup < 0 {
		benchkit.ExitUsage("floor", "-calls must be at least 1, -warmup at least 0")
	}
	os.Exit(benchkit.Run("floor", os.Stderr, func(ctx context.Context) error {
		return run(ctx, cfg, os.Stdout, os.Stderr)
	}))
}

// run builds both servers, measures them and writes the report.
func run(ctx context.Context, cfg config, out, logw io.Writer) error {
	ws, err := benchkit.NewWorkspace(ctx, "boris-floor-", "boris floor")
	if err != nil {
		return err
	}
	defer ws.Close()
	fmt.Fprintln(logw, "floor: building boris and the floor server")
	boris, floor, err := benchkit.BuildWithFloor(ctx, ws)
	if err != nil {
		return err
	}
	servers := []*server{
		{name: "boris view", cmd: func(ws *benchkit.Workspace) *exec.Cmd {
			return exec.Command(boris, "--workdir", ws.Fixture.Dir)
		}},
		{name: "floor (mcp.AddTool)", cmd: func(ws *benchkit.Workspace) *exec.Cmd { return exec.Command(floor, "typed", ws.Fixture.Path) }},
		{name: "floor (Server.AddTool)", cmd: func(ws *benchkit.Workspace) *exec.Cmd { return exec.Command(floor, "raw", ws.Fixture.Path) }},
	}
	for _, s := range servers {
		s.proc = s.cmd(ws)
		if s.cs, err = benchkit.NewClient("boris-floor").Connect(ctx, benchkit.CommandTransport(s.proc), nil); err != nil {
			return fmt.Errorf("start %s: %w", s.name, err)
		}
		defer s.cs.Close()
	}
	fmt.Fprintf(logw, "floor: %d warm-up + %d timed views per server, interleaved\n", cfg.warmup, cfg.calls)
	if err := measure(ctx, cfg, servers, ws.Fixture); err != nil {
		return err
	}
	return report(out, cfg, servers)
}

// measure times cfg.calls checked views on every server, one server after
// the other in turn, after cfg.warmup untimed ones.
func measure(ctx context.Context, cfg config, servers []*server, fx benchkit.Fixture) error {
	calls := make([]func() error, len(servers))
	for i, s := range servers {
		read := benchkit.ReadCall{Tool: "view", Args: map[string]any{"path": fx.Path}, Fixture: fx}
		calls[i] = read.On(ctx, s.cs)
	}
	cpu0 := make([]time.Duration, len(servers))
	for i := range cfg.warmup + cfg.calls {
		if i == cfg.warmup {
			for j, s := range servers {
				cpu0[j] = cpuTime(s.proc.Process.Pid)
			}
		}
		for j, s := range servers {
			start := time.Now()
			if err := calls[j](); err != nil {
				return fmt.Errorf("%s: call %d: %w", s.name, i, err)
			}
			if i >= cfg.warmup {
				s.ds = append(s.ds, time.Since(start))
			}
		}
	}
	for j, s := range servers {
		s.cpu = cpuTime(s.proc.Process.Pid) - cpu0[j]
	}
	return nil
}

// cpuTime returns the user and system CPU time process pid has used, from
// /proc/PID/stat (Linux); 0 where that cannot be read.
func cpuTime(pid int) time.Duration {
	st, _ := procstat.Read(pid)
	return st.CPU
}

// jsonReport is the -json output.
type jsonReport struct {
	Servers map[string]benchkit.JSONStats `json:"servers"`
	CPUUs   map[string]float64            `json:"cpu_us_per_call"`
	Targets []benchkit.Target             `json:"targets"`
}

// report prints the latencies, the ratios and the target's verdict.
func report(out io.Writer, cfg config, servers []*server) error {
	stats := make([]benchkit.Stats, len(servers))
	for i, s := range servers {
		stats[i] = benchkit.Summarize(s.ds)
	}
	ratio := benchkit.Ratio(float64(stats[0].P50), float64(stats[1].P50))
	targets := []benchkit.Target{{Name: "boris view p50 / floor (mcp.AddTool) p50", Value: ratio, Limit: targetRatio, Unit: "ratio", Met: ratio <= targetRatio}}
	if cfg.jsonOut {
		r := jsonReport{Servers: map[string]benchkit.JSONStats{}, CPUUs: map[string]float64{}, Targets: targets}
		for i, s := range servers {
			r.Servers[s.name] = stats[i].JSON()
			r.CPUUs[s.name] = cpuPerCall(s)
		}
		return benchkit.WriteJSON(out, r)
	}
	fmt.Fprintf(out, "%-24s %10s %10s %10s %16s\n", "server", "p50", "mean", "p99", "server CPU/call")
	for i, s := range servers {
		fmt.Fprintf(out, "%-24s %10s %10s %10s %13.1f us\n", s.name, benchkit.FormatMs(stats[i].P50), benchkit.FormatMs(stats[i].Mean), benchkit.FormatMs(stats[i].P99), cpuPerCall(s))
	}
	fmt.Fprintf(out, "boris / floor (mcp.AddTool): p50 %.3f, mean %.3f; boris / floor (Server.AddTool): p50 %.3f, mean %.3f\n",
		ratio, benchkit.Ratio(float64(stats[0].Mean), float64(stats[1].Mean)),
		benchkit.Ratio(float64(stats[0].P50), float64(stats[2].P50)), benchkit.Ratio(float64(stats[0].Mean), float64(stats[2].Mean)))
	fmt.Fprintf(out, "server CPU per call, boris / floor (mcp.AddTool): %.3f\n", benchkit.Ratio(cpuPerCall(servers[0]), cpuPerCall(servers[1])))
	benchkit.WriteTargets(out, targets)
	return nil
}

// cpuPerCall is the server's CPU time per timed call, in microseconds.
func cpuPerCall(s *server) float64 {
	if len(s.ds) == 0 {
		return 0
	}
	return float64(s.cpu) / float64(time.Microsecond) / float64(len(s.ds))
}
