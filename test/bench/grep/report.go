package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// ratioTarget is the goal: boris within 2x of ripgrep's wall time.
const ratioTarget = 2.0

// report prints the environment, the table and one verdict per case.
func report(w io.Writer, cfg config, env environment, results []result) {
	fmt.Fprintf(w, "%s, %d CPUs; %s; tree %s (%d files); median of %d runs\n\n",
		env.goVersion, env.cpus, env.rg, cfg.root, env.files, cfg.runs)
	fmt.Fprintf(w, "| %-48s | %9s | %9s | %6s | %-14s |\n", "case", "boris", "rg", "ratio", "matches (both)")
	fmt.Fprintf(w, "|%s|%s|%s|%s|%s|\n", dashes(50), dashes(11), dashes(11), dashes(8), dashes(16))
	for _, r := range results {
		fmt.Fprintf(w, "| %-48s | %9s | %9s | %5.2fx | %-14s |\n", r.c.name, msString(r.boris), msString(r.rg),
			ratio(r), fmt.Sprintf("%d %s", r.matches, r.c.unit))
	}
	fmt.Fprintln(w)
	met := 0
	for _, r := range results {
		ok := ratio(r) <= ratioTarget
		if ok {
			met++
		}
		fmt.Fprintf(w, "%-7s within %.0fx of ripgrep: %s (%.2fx)\n", benchkit.Verdict(ok), ratioTarget, r.c.name, ratio(r))
	}
	fmt.Fprintf(w, "\n%d of %d targets met.\n", met, len(results))
}

// ratio is boris's median over rg's.
func ratio(r result) float64 { return float64(r.boris) / float64(r.rg) }

// msString formats a duration in milliseconds.
func msString(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

// dashes returns a table rule of n dashes.
func dashes(n int) string { return strings.Repeat("-", n) }
