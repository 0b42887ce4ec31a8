// Command startup measures what a client waits for when it starts boris:
// spawn to initialized (the initialize request answered and
// notifications/initialized sent, as go-sdk's client connects), and spawn
// to its first tools/list answered, against the floor, a bare go-sdk
// server (test/bench/floor/server) built from this module, so on the same
// SDK version: of one tool, of as many tools as boris lists, and of
// boris's own tool definitions (what its tools/list lists, registered
// with the SDK's Server.AddTool, their schemas as JSON), with the
// CPU time each server used until its tools were listed. Spawns
// are interleaved (boris, boris without checkpoints and sandbox, the
// floors, boris, ...) so that a change in the machine's load hits all
// alike. It prints p50 and mean per server, the binaries' sizes, and the
// verdicts on the targets: boris's initialized p50 within 1 ms of the
// one-tool floor's, its first tools/list p50 within 3 ms of the floor of
// as many tools (the tool definitions are generated at build time, so a
// session spends no CPU on schemas), and, as the floor of as many tools
// lists a tenth of the bytes, within 3 ms of the floor of its own
// definitions. It never fails on a speed target,
// only when a server misbehaves.
//
// Run it from the module root with `make bench-startup`.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// The issues' goals: boris's spawn → initialized p50 within 1 ms of the
// one-tool floor's, its spawn → first tools/list p50 within 3 ms of the
// floor of as many tools.
const (
	targetMs      = 1.0
	targetToolsMs = 3.0
)

// server is one server under test and what was measured of it.
type server struct {
	name     string
	role     string // "boris", "floor-n", "floor-defs", "floor-1"; "" for the others
	argv     []string
	init     []time.Duration // spawn → initialized
	firstUse []time.Duration // spawn → first tools/list answered
	cpu      []time.Duration // the server's CPU time until then, which a busy host inflates less than wall time
}

func main() {
	spawns := flag.Int("spawns", 40, "timed spawns per server, interleaved (after 3 untimed ones)")
	baseline := flag.String("baseline", "", "also measure this boris binary (an earlier build), beside the one built from the tree")
	flag.Parse()
	if *spawns < 1 {
		benchkit.ExitUsage("startup", "-spawns must be at least 1")
	}
	os.Exit(benchkit.Run("startup", os.Stderr, func(ctx context.Context) error {
		return run(ctx, *spawns, *baseline, os.Stdout, os.Stderr)
	}))
}

// run builds boris and the floor server, measures them and writes the
// report.
func run(ctx context.Context, spawns int, baseline string, out, logw io.Writer) error {
	ws, err := benchkit.NewWorkspace(ctx, "boris-startup-", "boris startup")
	if err != nil {
		return err
	}
	defer ws.Close()
	fmt.Fprintln(logw, "startup: building boris and the floor server")
	boris, floor, err := benchkit.BuildWithFloor(ctx, ws)
	if err != nil {
		return err
	}
	tools, err := listTools(ctx, []string{boris, "--workdir", ws.Fixture.Dir}, ws.Fixture.Dir)
	if err != nil {
		return fmt.Errorf("boris: %w", err)
	}
	defs := filepath.Join(ws.Dir, "boris-tools.json")
	if err := os.WriteFile(defs, tools, 0o644); err != nil {
		return err
	}
	var list []json.RawMessage
	if err := json.Unmarshal(tools, &list); err != nil {
		return fmt.Errorf("boris's tools: %w", err)
	}
	n := len(list)
	servers := []*server{
		{name: "boris", role: "boris", argv: []string{boris, "--workdir", ws.Fixture.Dir}},
		{name: "boris, no checkpoints/sandbox", argv: []string{boris, "--workdir", ws.Fixture.Dir, "--checkpoints", "off", "--sandbox", "off"}},
		{name: fmt.Sprintf("floor (go-sdk, %d tools)", n), role: "floor-n", argv: []string{floor, "typed", ws.Fixture.Path, strconv.Itoa(n)}},
		{name: "floor (go-sdk, boris's definitions)", role: "floor-defs", argv: []string{floor, "defs", ws.Fixture.Path, defs}},
		{name: "floor (go-sdk, 1 tool)", role: "floor-1", argv: []string{floor, "typed", ws.Fixture.Path}},
	}
	if baseline != "" {
		servers = append([]*server{{name: "baseline boris", argv: []string{baseline, "--workdir", ws.Fixture.Dir}}}, servers...)
	}
	fmt.Fprintf(logw, "startup: 3 untimed + %d timed spawns per server, interleaved\n", spawns)
	for i := range spawns + 3 {
		for _, s := range servers {
			initD, useD, cpu, err := spawnOnce(ctx, s.argv, ws.Fixture.Dir)
			if err != nil {
				return fmt.Errorf("%s: spawn %d: %w", s.name, i, err)
			}
			if i >= 3 {
				s.init, s.firstUse, s.cpu = append(s.init, initD), append(s.firstUse, useD), append(s.cpu, cpu)
			}
		}
	}
	return report(out, servers, map[string]string{"boris": boris, "floor": floor})
}

// listTools is the JSON array of the tools argv lists, started in dir.
func listTools(ctx context.Context, argv []string, dir string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cs, err := benchkit.NewClient("boris-startup").Connect(ctx, benchkit.CommandTransport(cmd), nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("tools/list: %w", err)
	}
	if len(res.Tools) == 0 {
		return nil, fmt.Errorf("tools/list: no tools")
	}
	return json.Marshal(res.Tools)
}

// spawnOnce starts argv in dir, connects go-sdk's client (initialize,
// notifications/initialized), lists the tools and closes the session,
// which ends the process. It returns the time from spawn to initialized
// and to the tools listed, and the CPU time the process (every thread)
// had used by then.
func spawnOnce(ctx context.Context, argv []string, dir string) (initD, useD, cpu time.Duration, err error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	start := time.Now()
	cs, err := benchkit.NewClient("boris-startup").Connect(ctx, benchkit.CommandTransport(cmd), nil)
	if err != nil {
		return 0, 0, 0, err
	}
	defer cs.Close()
	initD = time.Since(start)
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("tools/list: %w", err)
	}
	if len(res.Tools) == 0 {
		return 0, 0, 0, fmt.Errorf("tools/list: no tools")
	}
	useD = time.Since(start)
	return initD, useD, processCPU(cmd.Process.Pid), nil
}

// processCPU is the CPU time pid's threads have used, from
// /proc/PID/task/*/schedstat (nanoseconds on a CPU); 0 where it cannot be read.
func processCPU(pid int) time.Duration {
	files, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "schedstat"))
	var total time.Duration
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if fields := strings.Fields(string(b)); len(fields) > 0 {
			ns, _ := strconv.ParseInt(fields[0], 10, 64)
			total += time.Duration(ns)
		}
	}
	return total
}

// report prints the latencies, the sizes and the target's verdict.
func report(out io.Writer, servers []*server, bins map[string]string) error {
	fmt.Fprintf(out, "%-32s %12s %12s %14s %14s %14s\n", "server", "init p50", "init mean", "tools p50", "tools mean", "cpu p50")
	stats, uses := make([]benchkit.Stats, len(servers)), make([]benchkit.Stats, len(servers))
	for i, s := range servers {
		stats[i], uses[i] = benchkit.Summarize(s.init), benchkit.Summarize(s.firstUse)
		fmt.Fprintf(out, "%-32s %12s %12s %14s %14s %14s\n", s.name, benchkit.FormatMs(stats[i].P50), benchkit.FormatMs(stats[i].Mean),
			benchkit.FormatMs(uses[i].P50), benchkit.FormatMs(uses[i].Mean), benchkit.FormatMs(benchkit.Summarize(s.cpu).P50))
	}
	for _, name := range []string{"boris", "floor"} {
		fi, err := os.Stat(bins[name])
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "binary %s: %.1f MB\n", name, float64(fi.Size())/(1<<20))
	}
	at := map[string]int{}
	for i, s := range servers {
		at[s.role] = i
	}
	over := benchkit.Ms(stats[at["boris"]].P50 - stats[at["floor-1"]].P50)
	toolsOver := benchkit.Ms(uses[at["boris"]].P50 - uses[at["floor-n"]].P50)
	defsOver := benchkit.Ms(uses[at["boris"]].P50 - uses[at["floor-defs"]].P50)
	benchkit.WriteTargets(out, []benchkit.Target{
		{Name: "boris init p50 - floor init p50", Value: over, Limit: targetMs, Unit: "ms", Met: over <= targetMs},
		{Name: "boris tools/list p50 - floor of as many tools", Value: toolsOver, Limit: targetToolsMs, Unit: "ms", Met: toolsOver <= targetToolsMs},
		{Name: "boris tools/list p50 - floor of boris's own definitions", Value: defsOver, Limit: targetToolsMs, Unit: "ms", Met: defsOver <= targetToolsMs},
	})
	return nil
}
