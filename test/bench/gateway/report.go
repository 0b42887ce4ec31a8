package main

import (
	"fmt"
	"io"
	"time"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// The targets for boris-gateway. They are reported, never enforced.
const (
	createP50Target  = 15 * time.Millisecond  // session create+initialize p50
	callP50Target    = 1 * time.Millisecond   // small call p50 through the gateway
	callOverTarget   = 300 * time.Microsecond // small call p50 minus direct stdio's
	rawHopTarget     = 200 * time.Microsecond // the same, minimal clients on both sides
	warmCreateTarget = 5 * time.Millisecond   // session create p50 with --warm-cores 1
	perSessionTarget = 15.0                   // MB of tree RSS per open session
	bytesPerMB       = 1e6                    // the MB: decimal megabytes
)

// results is everything one run measured.
type results struct {
	env        environment
	stdio      stdioResult
	warmCreate benchkit.Stats // session create on boris-gateway --warm-cores 1
	// warmIsolation is what that gateway's /healthz says it enforces.
	warmIsolation string
	gateways      []gatewayResult // boris-gateway, then supergateway
	leftover      []string        // processes naming the fixture after the run
}

// targets evaluates the targets on boris-gateway's results.
func targets(r results) []benchkit.Target {
	bg := r.gateways[0]
	over := bg.call.P50 - r.stdio.call.P50
	mb := bg.mem.perSession() / bytesPerMB
	hop := bg.hop()
	return []benchkit.Target{
		{Name: "boris-gateway session create p50", Value: benchkit.Ms(bg.create.P50), Limit: benchkit.Ms(createP50Target), Unit: "ms", Met: bg.create.P50 <= createP50Target},
		{Name: "boris-gateway small call p50", Value: benchkit.Ms(bg.call.P50), Limit: benchkit.Ms(callP50Target), Unit: "ms", Met: bg.call.P50 <= callP50Target},
		{Name: "boris-gateway small call p50 - direct stdio p50", Value: benchkit.Ms(over), Limit: benchkit.Ms(callOverTarget), Unit: "ms", Met: over <= callOverTarget},
		{Name: "boris-gateway small call p50 - direct stdio p50, minimal clients (the hop)", Value: benchkit.Ms(hop), Limit: benchkit.Ms(rawHopTarget), Unit: "ms", Met: hop <= rawHopTarget},
		{Name: "boris-gateway --warm-cores 1 session create p50", Value: benchkit.Ms(r.warmCreate.P50), Limit: benchkit.Ms(warmCreateTarget), Unit: "ms", Met: r.warmCreate.P50 <= warmCreateTarget},
		{Name: "boris-gateway RSS per open session", Value: mb, Limit: perSessionTarget, Unit: "MB", Met: mb <= perSessionTarget},
	}
}

// report writes the results to w, as a table or, with -json, as JSON.
func report(w io.Writer, cfg config, r results) error {
	if cfg.jsonOut {
		return writeJSON(w, cfg, r)
	}
	writeTable(w, cfg, r)
	return nil
}

// writeTable prints the human-readable table, the verdict lines and the
// leak check.
func writeTable(w io.Writer, cfg config, r results) {
	bg, sg := r.gateways[0], r.gateways[1]
	fmt.Fprintf(w, "%s; supergateway %s; protocol %s\n", r.env.Environment, r.env.PeerVersion, protocolVersion)
	fmt.Fprintf(w, "%d session creates; %d calls and %d pings after %d warm-up, view of a %d-line file;\n",
		cfg.sessions, cfg.calls, cfg.calls, cfg.warmup, benchkit.FixtureLines)
	fmt.Fprintf(w, "throughput: %d sessions for %v; memory: %d open sessions (MB = 10^6 bytes)\n\n",
		cfg.workers, cfg.duration, cfg.open)
	fmt.Fprintf(w, "%-28s %14s %14s %8s %14s\n", "", bg.name, sg.name, "ratio", "direct stdio")
	lat := func(label string, b, s, stdio time.Duration) {
		fmt.Fprintf(w, "%-28s %14s %14s %8.3f %14s\n", label, fmtMs(b), fmtMs(s), benchkit.Ratio(float64(b), float64(s)), fmtMs(stdio))
	}
	num := func(label, format string, b, s float64) {
		fmt.Fprintf(w, "%-28s %14s %14s %8.3f\n", label, fmt.Sprintf(format, b), fmt.Sprintf(format, s), benchkit.Ratio(b, s))
	}
	lat("session create p50", bg.create.P50, sg.create.P50, 0)
	lat("session create p99", bg.create.P99, sg.create.P99, 0)
	fmt.Fprintf(w, "%-28s %14s\n", "  with --warm-cores 1, p50", fmtMs(r.warmCreate.P50))
	fmt.Fprintf(w, "%-28s %14s   (%s)\n", "  with --warm-cores 1, p99", fmtMs(r.warmCreate.P99), r.warmIsolation)
	lat("small call p50", bg.call.P50, sg.call.P50, r.stdio.call.P50)
	lat("small call p99", bg.call.P99, sg.call.P99, r.stdio.call.P99)
	lat("small call mean", bg.call.Mean, sg.call.Mean, r.stdio.call.Mean)
	lat("ping p50", bg.ping.P50, sg.ping.P50, r.stdio.ping.P50)
	fmt.Fprintf(w, "%-28s %14s %14s\n", "small call p50 - stdio p50",
		fmtDelta(bg.call.P50-r.stdio.call.P50), fmtDelta(sg.call.P50-r.stdio.call.P50))
	lat("minimal clients: call p50", bg.rawCall.P50, sg.rawCall.P50, bg.rawStdio.P50)
	lat("minimal clients: call p99", bg.rawCall.P99, sg.rawCall.P99, bg.rawStdio.P99)
	fmt.Fprintf(w, "%-28s %14s %14s\n", "  the hop: p50 - stdio p50", fmtDelta(bg.hop()), fmtDelta(sg.hop()))
	fmt.Fprintf(w, "%-28s %14s %14s\n", "    stdio p50, taking turns", fmtMs(bg.rawStdio.P50), fmtMs(sg.rawStdio.P50))
	num(fmt.Sprintf("throughput, %d sessions", cfg.workers), "%.0f /s", bg.throughput, sg.throughput)
	num("RSS per open session", "%.2f MB", bg.mem.perSession()/bytesPerMB, sg.mem.perSession()/bytesPerMB)
	num("PSS per open session", "%.2f MB", bg.mem.pssPerSession()/bytesPerMB, sg.mem.pssPerSession()/bytesPerMB)
	num("tree RSS, sessions open", "%.1f MB", mb(bg.mem.open.RSS), mb(sg.mem.open.RSS))
	num("tree RSS, no session", "%.1f MB", mb(bg.mem.idle.RSS), mb(sg.mem.idle.RSS))
	num("gateway process RSS", "%.1f MB", mb(bg.mem.open.GatewayRSS), mb(sg.mem.open.GatewayRSS))
	fmt.Fprintf(w, "%-28s %14s %14s\n", "processes / cores in tree",
		fmt.Sprintf("%d / %d", bg.mem.open.Procs, bg.mem.open.Cores), fmt.Sprintf("%d / %d", sg.mem.open.Procs, sg.mem.open.Cores))
	fmt.Fprintf(w, "%-28s %14s %14s\n", "exited on SIGTERM", benchkit.YesNo(bg.clean), benchkit.YesNo(sg.clean))
	fmt.Fprintln(w)
	benchkit.WriteTargets(w, targets(r))
	benchkit.WriteLeaks(w, r.leftover)
}

// jsonMemory is one gateway's memory reading, for -json.
type jsonMemory struct {
	Sessions         int                `json:"open_sessions"`
	RSSPerSessionMB  float64            `json:"rss_per_session_mb"`
	PSSPerSessionMB  float64            `json:"pss_per_session_mb"`
	Open             benchkit.TreeUsage `json:"open"`
	NoSession        benchkit.TreeUsage `json:"no_session"`
	GatewayRSSOpenMB float64            `json:"gateway_rss_mb"`
}

// jsonGateway is one gateway's result, for -json.
type jsonGateway struct {
	Name              string             `json:"name"`
	SessionCreate     benchkit.JSONStats `json:"session_create"`
	SmallCall         benchkit.JSONStats `json:"small_call"`
	Ping              benchkit.JSONStats `json:"ping"`
	CallOverStdioMs   float64            `json:"small_call_p50_minus_stdio_ms"`
	SmallCallMinimal  benchkit.JSONStats `json:"small_call_minimal_client"`
	HopMs             float64            `json:"hop_minimal_clients_ms"`
	ThroughputPerSec  float64            `json:"throughput_calls_per_s"`
	Memory            jsonMemory         `json:"memory"`
	ExitedOnSIGTERM   bool               `json:"exited_on_sigterm"`
	ConcurrentClients int                `json:"throughput_sessions"`
}

// jsonReport is the whole -json output.
type jsonReport struct {
	Environment   environment        `json:"environment"`
	Protocol      string             `json:"protocol"`
	Sessions      int                `json:"sessions"`
	Calls         int                `json:"calls"`
	Warmup        int                `json:"warmup"`
	DurationSec   float64            `json:"duration_s"`
	FixtureLines  int                `json:"fixture_lines"`
	Stdio         map[string]any     `json:"direct_stdio"`
	WarmCreate    benchkit.JSONStats `json:"session_create_warm_cores_1"`
	WarmIsolation string             `json:"warm_cores_gateway_isolation"`
	Gateways      []jsonGateway      `json:"gateways"`
	Ratios        map[string]float64 `json:"ratios_boris_gateway_over_supergateway"`
	Targets       []benchkit.Target  `json:"targets"`
	Leftover      []string           `json:"leftover_processes"`
}

// writeJSON prints the machine-readable result.
func writeJSON(w io.Writer, cfg config, r results) error {
	bg, sg := r.gateways[0], r.gateways[1]
	out := jsonReport{
		Environment: r.env, Protocol: protocolVersion,
		Sessions: cfg.sessions, Calls: cfg.calls, Warmup: cfg.warmup,
		DurationSec: cfg.duration.Seconds(), FixtureLines: benchkit.FixtureLines,
		Stdio:      map[string]any{"small_call": r.stdio.call.JSON(), "ping": r.stdio.ping.JSON(), "small_call_minimal_client": r.gateways[0].rawStdio.JSON()},
		WarmCreate: r.warmCreate.JSON(), WarmIsolation: r.warmIsolation,
		Ratios: map[string]float64{
			"session_create_p50": benchkit.Ratio(float64(bg.create.P50), float64(sg.create.P50)),
			"small_call_p50":     benchkit.Ratio(float64(bg.call.P50), float64(sg.call.P50)),
			"small_call_p99":     benchkit.Ratio(float64(bg.call.P99), float64(sg.call.P99)),
			"throughput":         benchkit.Ratio(bg.throughput, sg.throughput),
			"rss_per_session":    benchkit.Ratio(bg.mem.perSession(), sg.mem.perSession()),
		},
		Targets:  targets(r),
		Leftover: r.leftover,
	}
	if out.Leftover == nil {
		out.Leftover = []string{}
	}
	for _, g := range r.gateways {
		out.Gateways = append(out.Gateways, jsonGateway{
			Name: g.name, SessionCreate: g.create.JSON(), SmallCall: g.call.JSON(), Ping: g.ping.JSON(),
			CallOverStdioMs:  benchkit.Ms(g.call.P50 - r.stdio.call.P50),
			SmallCallMinimal: g.rawCall.JSON(), HopMs: benchkit.Ms(g.hop()),
			ThroughputPerSec: g.throughput, ConcurrentClients: cfg.workers,
			Memory: jsonMemory{
				Sessions: g.mem.sessions, RSSPerSessionMB: g.mem.perSession() / bytesPerMB,
				PSSPerSessionMB: g.mem.pssPerSession() / bytesPerMB,
				Open:            g.mem.open, NoSession: g.mem.idle, GatewayRSSOpenMB: mb(g.mem.open.GatewayRSS),
			},
			ExitedOnSIGTERM: g.clean,
		})
	}
	return benchkit.WriteJSON(w, out)
}

// mb converts bytes to decimal megabytes.
func mb(b int64) float64 { return float64(b) / bytesPerMB }

// fmtMs formats d in milliseconds with three decimals; zero is "-", for
// values not measured (session create over stdio).
func fmtMs(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return benchkit.FormatMs(d)
}

// fmtDelta formats a signed difference in milliseconds.
func fmtDelta(d time.Duration) string { return fmt.Sprintf("%+.3f ms", benchkit.Ms(d)) }
