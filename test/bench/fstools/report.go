package main

import (
	"fmt"
	"io"
	"time"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// speedup is the target for every figure: boris at least 3× faster
// than server-filesystem, i.e. boris's p50 at most a third of the peer's.
const speedup = 3.0

// row is one figure of the report.
type row struct{ key, label string }

// rows lists the report's figures: start-up, then the timed calls.
func rows(cfg config) []row {
	rs := []row{{startup, "start-up"}}
	for _, f := range figures(cfg) {
		rs = append(rs, row{f.key, f.label})
	}
	return rs
}

// report writes the results to w, as a table or, with -json, as JSON.
func report(w io.Writer, cfg config, env environment, servers []*server, r results) error {
	boris, peer := servers[0], servers[1]
	if cfg.jsonOut {
		return writeJSON(w, cfg, env, boris, peer, r)
	}
	writeTable(w, cfg, env, boris, peer, r)
	return nil
}

// measured reports whether both servers have stats for key.
func measured(boris, peer *server, key string) bool {
	_, b := boris.stats[key]
	_, p := peer.stats[key]
	return b && p
}

// targets evaluates the 3× target on the p50 of every measured figure.
func targets(cfg config, boris, peer *server) []benchkit.Target {
	var ts []benchkit.Target
	for _, r := range rows(cfg) {
		if !measured(boris, peer, r.key) {
			continue
		}
		v := benchkit.Ratio(float64(boris.stats[r.key].P50), float64(peer.stats[r.key].P50))
		ts = append(ts, benchkit.Target{
			Name:  fmt.Sprintf("%s p50, boris / server-filesystem (%g× faster)", r.label, speedup),
			Value: v, Limit: 1 / speedup, Unit: "ratio", Met: v <= 1/speedup,
		})
	}
	return ts
}

// writeTable prints the human-readable table and one verdict line per target.
func writeTable(w io.Writer, cfg config, env environment, boris, peer *server, r results) {
	st := boris.fx.Stats
	fmt.Fprintf(w, "%s; server-filesystem %s; protocol %s; client %s\n", env.Environment, env.PeerVersion, cfg.protocol, cfg.client)
	fmt.Fprintf(w, "boris --toolset filesystem --allow-dir DIR --checkpoints %s vs node dist/index.js DIR, on twin fixtures, taking turns in runs of up to %d calls\n", cfg.checkpoints, cfg.block)
	fmt.Fprintf(w, "%d spawns per server (after 1 warm-up); %d read_text_file of a %d-line file and %d edit_file dryRun of 1 line in %d (after %d warm-up);\n",
		cfg.spawns, cfg.reads, benchkit.FixtureLines, cfg.edits, cfg.editLines, cfg.warmup)
	fmt.Fprintf(w, "%d directory_tree and %d search_files %q (after %d warm-up) on a tree of %d files, %d directories, %d matches\n\n",
		cfg.treeCalls, cfg.treeCalls, searchPattern, cfg.treeWarmup, st.Files, st.Dirs, st.Matches)
	fmt.Fprintf(w, "%-22s %12s %20s %10s\n", "", boris.name, peer.name, "peer/boris")
	line := func(label string, b, p time.Duration) {
		fmt.Fprintf(w, "%-22s %12s %20s %10.1f\n", label, benchkit.FormatMs(b), benchkit.FormatMs(p), benchkit.Ratio(float64(p), float64(b)))
	}
	for _, rw := range rows(cfg) {
		if !measured(boris, peer, rw.key) {
			fmt.Fprintf(w, "%-22s %12s %20s %10s\n", rw.label, "-", "-", "-")
			continue
		}
		b, p := boris.stats[rw.key], peer.stats[rw.key]
		line(rw.label+" p50", b.P50, p.P50)
		line(rw.label+" p99", b.P99, p.P99)
	}
	fmt.Fprintln(w)
	for _, s := range r.skipped {
		fmt.Fprintf(w, "not measured: %s\n", s)
	}
	benchkit.WriteTargets(w, targets(cfg, boris, peer))
}

// jsonServer is one server's result, for -json: stats per figure key.
type jsonServer struct {
	Name    string                        `json:"name"`
	Figures map[string]benchkit.JSONStats `json:"figures"`
}

// jsonReport is the whole -json output.
type jsonReport struct {
	Environment   environment        `json:"environment"`
	Protocol      string             `json:"protocol"`
	Client        string             `json:"client"`
	Checkpoints   string             `json:"boris_checkpoints"`
	Spawns        int                `json:"spawns"`
	Reads         int                `json:"reads"`
	Edits         int                `json:"edits"`
	Warmup        int                `json:"warmup"`
	Block         int                `json:"block"`
	TreeCalls     int                `json:"tree_calls"`
	TreeWarmup    int                `json:"tree_warmup"`
	Tree          treeStats          `json:"tree"`
	SearchPattern string             `json:"search_pattern"`
	EditLines     int                `json:"edit_lines"`
	Servers       []jsonServer       `json:"servers"`
	Speedups      map[string]float64 `json:"speedups_p50"` // peer p50 / boris p50
	Targets       []benchkit.Target  `json:"targets"`
	Skipped       []string           `json:"not_measured,omitempty"`
}

// writeJSON prints the machine-readable result.
func writeJSON(w io.Writer, cfg config, env environment, boris, peer *server, r results) error {
	rep := jsonReport{
		Environment: env, Protocol: cfg.protocol, Client: cfg.client, Checkpoints: cfg.checkpoints,
		Spawns: cfg.spawns, Reads: cfg.reads, Edits: cfg.edits, Warmup: cfg.warmup, Block: cfg.block,
		TreeCalls: cfg.treeCalls, TreeWarmup: cfg.treeWarmup, Tree: boris.fx.Stats,
		SearchPattern: searchPattern, EditLines: cfg.editLines,
		Speedups: map[string]float64{}, Targets: targets(cfg, boris, peer), Skipped: r.skipped,
	}
	for _, s := range []*server{boris, peer} {
		js := jsonServer{Name: s.name, Figures: map[string]benchkit.JSONStats{}}
		for k, st := range s.stats {
			js.Figures[k] = st.JSON()
		}
		rep.Servers = append(rep.Servers, js)
	}
	for _, rw := range rows(cfg) {
		if measured(boris, peer, rw.key) {
			rep.Speedups[rw.key] = benchkit.Ratio(float64(peer.stats[rw.key].P50), float64(boris.stats[rw.key].P50))
		}
	}
	return benchkit.WriteJSON(w, rep)
}
