package benchkit

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Target is one of an issue's speed or memory goals with its measured
// value. Targets are reported, never enforced: a missed one does not fail
// the run.
type Target struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Limit float64 `json:"limit"`
	Unit  string  `json:"unit"` // "ms", "MB", or "ratio" for a bare number
	Met   bool    `json:"met"`
}

// WriteTargets prints one verdict line per target:
// "target NAME <= LIMIT: VALUE  MET".
func WriteTargets(w io.Writer, targets []Target) {
	for _, t := range targets {
		fmt.Fprintf(w, "target %s <= %s: %s  %s\n", t.Name, formatValue(t.Limit, t.Unit), formatValue(t.Value, t.Unit), Verdict(t.Met))
	}
}

// formatValue formats a target's value or limit with three decimals and its
// unit; a ratio has none.
func formatValue(v float64, unit string) string {
	if unit == "ratio" {
		return fmt.Sprintf("%.3f", v)
	}
	return fmt.Sprintf("%.3f %s", v, unit)
}

// Verdict words a target's outcome: "MET" or "NOT MET".
func Verdict(met bool) string {
	if met {
		return "MET"
	}
	return "NOT MET"
}

// WriteLeaks prints the leak check's outcome: the processes left after a
// run, if any.
func WriteLeaks(w io.Writer, left []string) {
	if len(left) == 0 {
		fmt.Fprintln(w, "leak check: no boris process left")
		return
	}
	fmt.Fprintf(w, "leak check: %d process(es) left  FAIL\n", len(left))
	for _, p := range left {
		fmt.Fprintln(w, "  ", p)
	}
}

// YesNo words a boolean.
func YesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// Ms converts d to fractional milliseconds.
func Ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// FormatMs formats d in milliseconds with three decimals: "0.412 ms".
func FormatMs(d time.Duration) string { return fmt.Sprintf("%.3f ms", Ms(d)) }

// Ratio returns a / b, or 0 when b is zero (nothing was measured).
func Ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// WriteJSON writes v to w as indented JSON: a report's -json output.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write JSON report: %w", err)
	}
	return nil
}
