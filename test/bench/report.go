package main

import (
	"fmt"
	"io"
	"time"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// The targets. They are reported, never enforced.
const (
	initP50Target   = 20 * time.Millisecond // boris spawn→initialized p50
	callRatioTarget = 0.25                  // boris small-call p50 / peer's
)

// jsonServer is one server's result, for -json.
type jsonServer struct {
	Name       string             `json:"name"`
	Tool       string             `json:"tool"`
	Initialize benchkit.JSONStats `json:"initialize"`
	SmallCall  benchkit.JSONStats `json:"small_call"`
	Ping       benchkit.JSONStats `json:"ping"`
}

// jsonReport is the whole -json output.
type jsonReport struct {
	Environment  environment        `json:"environment"`
	Protocol     string             `json:"protocol"`
	Spawns       int                `json:"spawns"`
	Calls        int                `json:"calls"`
	Warmup       int                `json:"warmup"`
	FixtureLines int                `json:"fixture_lines"`
	Servers      []jsonServer       `json:"servers"`
	Ratios       map[string]float64 `json:"ratios"`
	Targets      []benchkit.Target  `json:"targets"`
}

// report writes the results of boris and its peer to w, as a table or,
// with -json, as JSON.
func report(w io.Writer, cfg config, env environment, boris, peer serverResult) error {
	if cfg.jsonOut {
		return writeJSON(w, cfg, env, boris, peer)
	}
	writeTable(w, cfg, env, boris, peer)
	return nil
}

// targets evaluates the targets on the results.
func targets(boris, peer serverResult) []benchkit.Target {
	initMs := benchkit.Ms(boris.init.P50)
	ratio := ratio(boris.call.P50, peer.call.P50)
	return []benchkit.Target{
		{Name: "boris initialize p50", Value: initMs, Limit: benchkit.Ms(initP50Target), Unit: "ms", Met: initMs <= benchkit.Ms(initP50Target)},
		{Name: "small call p50 ratio (boris / server-filesystem)", Value: ratio, Limit: callRatioTarget, Unit: "ratio", Met: ratio <= callRatioTarget},
	}
}

// writeTable prints the human-readable table and one verdict line per target.
func writeTable(w io.Writer, cfg config, env environment, boris, peer serverResult) {
	fmt.Fprintf(w, "%s; server-filesystem %s; protocol %s\n", env.Environment, env.PeerVersion, protocolName(cfg.protocol))
	fmt.Fprintf(w, "%d spawns per server; %d calls and %d pings (each after %d warm-up) reading a %d-line file\n\n",
		cfg.spawns, cfg.calls, cfg.calls, cfg.warmup, benchkit.FixtureLines)
	fmt.Fprintf(w, "%-16s %12s %20s %8s\n", "", boris.name, peer.name, "ratio")
	row := func(label string, b, p time.Duration) {
		fmt.Fprintf(w, "%-16s %12s %20s %8.3f\n", label, benchkit.FormatMs(b), benchkit.FormatMs(p), ratio(b, p))
	}
	row("initialize p50", boris.init.P50, peer.init.P50)
	row("initialize p99", boris.init.P99, peer.init.P99)
	row("initialize mean", boris.init.Mean, peer.init.Mean)
	row("small call p50", boris.call.P50, peer.call.P50)
	row("small call p99", boris.call.P99, peer.call.P99)
	row("small call mean", boris.call.Mean, peer.call.Mean)
	row("ping p50", boris.ping.P50, peer.ping.P50)
	row("ping p99", boris.ping.P99, peer.ping.P99)
	fmt.Fprintln(w)
	benchkit.WriteTargets(w, targets(boris, peer))
}

// writeJSON prints the machine-readable result.
func writeJSON(w io.Writer, cfg config, env environment, boris, peer serverResult) error {
	return benchkit.WriteJSON(w, jsonReport{
		Environment:  env,
		Protocol:     protocolName(cfg.protocol),
		Spawns:       cfg.spawns,
		Calls:        cfg.calls,
		Warmup:       cfg.warmup,
		FixtureLines: benchkit.FixtureLines,
		Servers: []jsonServer{
			{Name: boris.name, Tool: "view", Initialize: boris.init.JSON(), SmallCall: boris.call.JSON(), Ping: boris.ping.JSON()},
			{Name: peer.name, Tool: "read_text_file", Initialize: peer.init.JSON(), SmallCall: peer.call.JSON(), Ping: peer.ping.JSON()},
		},
		Ratios: map[string]float64{
			"initialize_p50": ratio(boris.init.P50, peer.init.P50),
			"initialize_p99": ratio(boris.init.P99, peer.init.P99),
			"small_call_p50": ratio(boris.call.P50, peer.call.P50),
			"small_call_p99": ratio(boris.call.P99, peer.call.P99),
			"ping_p50":       ratio(boris.ping.P50, peer.ping.P50),
		},
		Targets: targets(boris, peer),
	})
}

// ratio returns boris's duration over the peer's, or 0 when the peer's is
// zero.
func ratio(a, b time.Duration) float64 { return benchkit.Ratio(float64(a), float64(b)) }

// protocolName names the requested protocol version for the report.
func protocolName(p string) string {
	if p == "" {
		return "go-sdk default"
	}
	return p
}
