package main

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// report writes boris-gateway's table and the verdicts on the issue's
// targets.
func report(out io.Writer, cfg config, m measurement) error {
	pace := "back to back"
	if cfg.pace > 0 {
		pace = "a call every " + cfg.pace.String()
	}
	fmt.Fprintf(out, "%d sessions of %d principals, %d calling for %s (each %s)\n\n", cfg.sessions, cfg.principals, cfg.callers, cfg.duration, pace)
	fmt.Fprintln(out, "boris-gateway (isolation on: sandbox, cgroups where it can make them, network namespaces)")
	stats := writeTable(out, cfg, m)
	benchkit.WriteLeaks(out, m.left)
	mb := func(b int64) float64 { return float64(b) / (1 << 20) }
	gatewayRSS := max(mb(m.idle.tree.GatewayRSS), mb(m.loaded.tree.GatewayRSS))
	pss := mb(m.idle.tree.PSS) / float64(cfg.sessions)
	createLimit, createName := 15.0, "session create p50, 10 a second, cold"
	if cfg.warmCores > 0 {
		createLimit, createName = 5.0, "session create p50, 10 a second, with --warm-cores"
	}
	errs := len(m.load.errs)
	targets := []benchkit.Target{
		{Name: createName, Value: benchkit.Ms(m.paced.P50), Limit: createLimit, Unit: "ms", Met: benchkit.Ms(m.paced.P50) <= createLimit && m.failed == ""},
		{Name: "errors", Value: float64(errs), Limit: 0, Unit: "ratio", Met: errs == 0 && m.failed == ""},
		{Name: "first call of each tool p50", Value: benchkit.Ms(stats[firstRow].P50), Limit: targetFirstP50Ms, Unit: "ms", Met: benchkit.Ms(stats[firstRow].P50) <= targetFirstP50Ms && stats[firstRow].N > 0},
		{Name: "first call of each tool p99", Value: benchkit.Ms(stats[firstRow].P99), Limit: targetFirstP99Ms, Unit: "ms", Met: benchkit.Ms(stats[firstRow].P99) <= targetFirstP99Ms && stats[firstRow].N > 0},
		{Name: "view p99 (loaded)", Value: benchkit.Ms(stats["view"].P99), Limit: targetViewP99Ms, Unit: "ms", Met: benchkit.Ms(stats["view"].P99) <= targetViewP99Ms && stats["view"].N > 0},
		{Name: "tree PSS per idle session", Value: pss, Limit: targetPSSPerSession, Unit: "MB", Met: pss <= targetPSSPerSession && m.failed == ""},
		{Name: "gateway RSS", Value: gatewayRSS, Limit: targetGatewayRSS, Unit: "MB", Met: gatewayRSS <= targetGatewayRSS && m.failed == ""},
	}
	benchkit.WriteTargets(out, targets)
	if len(m.left) > 0 {
		return benchkit.LeftoverError(m.left)
	}
	return nil
}

// firstRow keys the first calls' statistics among writeTable's.
const firstRow = "\x00first"

// writeTable writes one gateway's latencies, memory, descriptors, the
// tail's sources and errors, and returns the tools' statistics. A
// gateway that did not survive says where; the rows after are empty.
func writeTable(out io.Writer, cfg config, m measurement) map[string]benchkit.Stats {
	fmt.Fprintf(out, "%-28s %8s %12s %12s\n", "", "count", "p50", "p99")
	row := func(name string, s benchkit.Stats) {
		fmt.Fprintf(out, "%-28s %8d %12s %12s\n", name, s.N, benchkit.FormatMs(s.P50), benchkit.FormatMs(s.P99))
	}
	row(fmt.Sprintf("create, 10/s (warm-cores %d)", cfg.warmCores), m.paced)
	row("session create (idle host)", m.opens)
	load := m.load
	tools := slices.Sorted(func(yield func(string) bool) {
		for t := range load.calls {
			if !yield(t) {
				return
			}
		}
	})
	stats := map[string]benchkit.Stats{}
	for _, t := range tools {
		stats[t] = benchkit.Summarize(load.calls[t])
		row(t+" (loaded)", stats[t])
	}
	var firsts []time.Duration
	for _, c := range loadCalls {
		firsts = append(firsts, load.first[c.tool]...)
	}
	stats[firstRow] = benchkit.Summarize(firsts)
	row("first call of each tool", stats[firstRow])
	for _, c := range loadCalls { // which tool's first call the time goes to
		row("  first "+c.tool, benchkit.Summarize(load.first[c.tool]))
	}
	var alone []time.Duration
	for _, c := range loadCalls {
		alone = append(alone, load.firstAlone[c.tool]...)
	}
	if len(alone) > 0 {
		row("first calls, one at a time", benchkit.Summarize(alone))
		for _, c := range loadCalls {
			row("  first "+c.tool, benchkit.Summarize(load.firstAlone[c.tool]))
		}
	}
	row("session create (loaded)", benchkit.Summarize(load.creates))
	row("session close (loaded)", benchkit.Summarize(load.closes))
	fmt.Fprintln(out)
	if m.failed != "" {
		fmt.Fprintf(out, "did not survive the run: %s\n", m.failed)
		return stats
	}
	mb := func(b int64) float64 { return float64(b) / (1 << 20) }
	for _, u := range []struct {
		name string
		u    usage
	}{{"sessions open, idle", m.idle}, {"under load", m.loaded}} {
		fmt.Fprintf(out, "%-20s cores %4d  processes %5d  gateway RSS %7.1f MB  tree PSS %8.1f MB (%.2f MB per session)  fds %6d\n",
			u.name, u.u.tree.Cores, u.u.tree.Procs, mb(u.u.tree.GatewayRSS), mb(u.u.tree.PSS), mb(u.u.tree.PSS)/float64(cfg.sessions), u.u.fds)
	}
	writeRoles(out, cfg.sessions, m.roles[0], m.roles[1])
	writeTail(out, load, stats["view"].N)
	fmt.Fprintf(out, "errors: %d\n", len(load.errs))
	for _, e := range load.errs {
		if e != "" {
			fmt.Fprintf(out, "  %s\n", e)
		}
	}
	return stats
}

// writeTail says where the view calls' tail comes from: how busy the
// host's CPUs were (with every other process on it), how late this
// client itself woke from short sleeps, and how many of the slow views
// overlapped a session create or close.
func writeTail(out io.Writer, load loadResult, views int) {
	stalled := "unknown (no /proc/pressure/cpu)"
	if load.host.stalled >= 0 {
		stalled = fmt.Sprintf("%.0f%% of the time", 100*load.host.stalled)
	}
	fmt.Fprintf(out, "host during the load: CPUs %.0f%% busy (every process on the host), some task waiting for a CPU %s\n",
		100*load.host.busy, stalled)
	firstStalled := "unknown"
	if load.firstHost.stalled >= 0 {
		firstStalled = fmt.Sprintf("%.0f%% of the time", 100*load.firstHost.stalled)
	}
	fmt.Fprintf(out, "host during the first calls (%s, every caller's at once): CPUs %.0f%% busy, some task waiting for a CPU %s\n",
		benchkit.FormatMs(load.firstSpan), 100*load.firstHost.busy, firstStalled)
	fmt.Fprintf(out, "this client's 2 ms sleeps woke late by: p50 %s, p99 %s (no Boris code on that path)\n",
		benchkit.FormatMs(load.probe.P50), benchkit.FormatMs(load.probe.P99))
	n, covered := overlapping(load.slowViews, load.churn, load.started, load.finished)
	fmt.Fprintf(out, "view calls over %.0f ms: %d of %d; %d of those overlapped a session create or close, which covered %.0f%% of the load's time\n",
		targetViewP99Ms, len(load.slowViews), views, n, 100*covered)
}
