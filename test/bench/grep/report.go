package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// ratioTarget is the goal: boris at or below ripgrep's wall time.
const ratioTarget = 1.0

// table is one corpus measured in one page cache state.
type table struct {
	env     environment
	root    string
	files   int
	runs    int
	cold    bool
	results []result
}

// cache names the table's page cache state.
func (t table) cache() string {
	if t.cold {
		return "cold-ish"
	}
	return "warm"
}

// report prints the environment, the table and one verdict per case.
func (t table) report(w io.Writer) {
	fmt.Fprintf(w, "%s, %d CPUs; %s; tree %s (%d files); %s page cache; median of %d runs\n\n",
		t.env.goVersion, t.env.cpus, t.env.rg, t.root, t.files, t.cache(), t.runs)
	fmt.Fprintf(w, "| %-48s | %9s | %9s | %6s | %-14s |\n", "case", "boris", "rg", "ratio", "matches (both)")
	fmt.Fprintf(w, "|%s|%s|%s|%s|%s|\n", dashes(50), dashes(11), dashes(11), dashes(8), dashes(16))
	for _, r := range t.results {
		fmt.Fprintf(w, "| %-48s | %9s | %9s | %5.2fx | %-14s |\n", r.c.name, msString(r.boris), msString(r.rg),
			ratio(r), fmt.Sprintf("%d %s", r.matches, r.c.unit))
	}
	fmt.Fprintln(w)
	met := 0
	for _, r := range t.results {
		ok := ratio(r) <= ratioTarget
		if ok {
			met++
		}
		fmt.Fprintf(w, "%-7s at or below ripgrep's time: %s (%.2fx)\n", benchkit.Verdict(ok), r.c.name, ratio(r))
	}
	fmt.Fprintf(w, "\n%d of %d targets met.\n\n", met, len(t.results))
}

// ratio is boris's median over rg's.
func ratio(r result) float64 { return float64(r.boris) / float64(r.rg) }

// msString formats a duration in milliseconds.
func msString(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

// dashes returns a table rule of n dashes.
func dashes(n int) string { return strings.Repeat("-", n) }
