package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// The targets. They are reported, never enforced.
const (
	initP50Target   = 20 * time.Millisecond // boris spawn→initialized p50
	callRatioTarget = 0.25                  // boris small-call p50 / peer's
)

// target is one speed goal with its measured value.
type target struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Limit float64 `json:"limit"`
	Unit  string  `json:"unit"`
	Met   bool    `json:"met"`
}

// jsonStats is stats in milliseconds, for -json.
type jsonStats struct {
	N      int     `json:"n"`
	MeanMs float64 `json:"mean_ms"`
	P50Ms  float64 `json:"p50_ms"`
	P99Ms  float64 `json:"p99_ms"`
	MinMs  float64 `json:"min_ms"`
	MaxMs  float64 `json:"max_ms"`
}

// jsonServer is one server's result, for -json.
type jsonServer struct {
	Name       string    `json:"name"`
	Tool       string    `json:"tool"`
	Initialize jsonStats `json:"initialize"`
	SmallCall  jsonStats `json:"small_call"`
	Ping       jsonStats `json:"ping"`
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
	Targets      []target           `json:"targets"`
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
func targets(boris, peer serverResult) []target {
	initMs := ms(boris.init.p50)
	ratio := ratio(boris.call.p50, peer.call.p50)
	return []target{
		{Name: "boris initialize p50", Value: initMs, Limit: ms(initP50Target), Unit: "ms", Met: initMs <= ms(initP50Target)},
		{Name: "small call p50 ratio (boris / server-filesystem)", Value: ratio, Limit: callRatioTarget, Unit: "ratio", Met: ratio <= callRatioTarget},
	}
}

// writeTable prints the human-readable table and one verdict line per target.
func writeTable(w io.Writer, cfg config, env environment, boris, peer serverResult) {
	fmt.Fprintf(w, "%s %s/%s, %d CPUs; node %s; server-filesystem %s; protocol %s\n",
		env.GoVersion, env.OS, env.Arch, env.CPUs, env.Node, env.PeerVersion, protocolName(cfg.protocol))
	fmt.Fprintf(w, "%d spawns per server; %d calls and %d pings (each after %d warm-up) reading a %d-line file\n\n",
		cfg.spawns, cfg.calls, cfg.calls, cfg.warmup, fixtureLines)
	fmt.Fprintf(w, "%-16s %12s %20s %8s\n", "", boris.name, peer.name, "ratio")
	row := func(label string, b, p time.Duration) {
		fmt.Fprintf(w, "%-16s %12s %20s %8.3f\n", label, fmtMs(b), fmtMs(p), ratio(b, p))
	}
	row("initialize p50", boris.init.p50, peer.init.p50)
	row("initialize p99", boris.init.p99, peer.init.p99)
	row("initialize mean", boris.init.mean, peer.init.mean)
	row("small call p50", boris.call.p50, peer.call.p50)
	row("small call p99", boris.call.p99, peer.call.p99)
	row("small call mean", boris.call.mean, peer.call.mean)
	row("ping p50", boris.ping.p50, peer.ping.p50)
	row("ping p99", boris.ping.p99, peer.ping.p99)
	fmt.Fprintln(w)
	for _, t := range targets(boris, peer) {
		fmt.Fprintf(w, "target %s <= %s: %s  %s\n", t.Name, fmtValue(t.Limit, t.Unit), fmtValue(t.Value, t.Unit), verdict(t.Met))
	}
}

// writeJSON prints the machine-readable result.
func writeJSON(w io.Writer, cfg config, env environment, boris, peer serverResult) error {
	r := jsonReport{
		Environment:  env,
		Protocol:     protocolName(cfg.protocol),
		Spawns:       cfg.spawns,
		Calls:        cfg.calls,
		Warmup:       cfg.warmup,
		FixtureLines: fixtureLines,
		Servers: []jsonServer{
			{Name: boris.name, Tool: "view", Initialize: toJSON(boris.init), SmallCall: toJSON(boris.call), Ping: toJSON(boris.ping)},
			{Name: peer.name, Tool: "read_text_file", Initialize: toJSON(peer.init), SmallCall: toJSON(peer.call), Ping: toJSON(peer.ping)},
		},
		Ratios: map[string]float64{
			"initialize_p50": ratio(boris.init.p50, peer.init.p50),
			"initialize_p99": ratio(boris.init.p99, peer.init.p99),
			"small_call_p50": ratio(boris.call.p50, peer.call.p50),
			"small_call_p99": ratio(boris.call.p99, peer.call.p99),
			"ping_p50":       ratio(boris.ping.p50, peer.ping.p50),
		},
		Targets: targets(boris, peer),
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("write JSON report: %w", err)
	}
	return nil
}

// toJSON converts stats to milliseconds.
func toJSON(s stats) jsonStats {
	return jsonStats{N: s.n, MeanMs: ms(s.mean), P50Ms: ms(s.p50), P99Ms: ms(s.p99), MinMs: ms(s.min), MaxMs: ms(s.max)}
}

// ms converts d to fractional milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// ratio returns a / b, or 0 when b is zero.
func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// fmtMs formats d in milliseconds with three decimals.
func fmtMs(d time.Duration) string { return fmt.Sprintf("%.3f ms", ms(d)) }

// fmtValue formats a target's value or limit with its unit.
func fmtValue(v float64, unit string) string {
	if unit == "ratio" {
		return fmt.Sprintf("%.3f", v)
	}
	return fmt.Sprintf("%.3f %s", v, unit)
}

// verdict words a target's outcome.
func verdict(met bool) string {
	if met {
		return "MET"
	}
	return "NOT MET"
}

// protocolName names the requested protocol version for the report.
func protocolName(p string) string {
	if p == "" {
		return "go-sdk default"
	}
	return p
}
