package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stats summarizes a set of latencies.
type stats struct {
	n                        int
	mean, p50, p99, min, max time.Duration
}

// checkResult fails unless the call succeeded, is not an isError result and
// its text holds every line of the fixture in order: proof that the core
// behind the gateway really read the file.
func checkResult(res *mcp.CallToolResult, err error, fx fixture) error {
	if err != nil {
		return err
	}
	text := resultText(res)
	if res.IsError {
		return fmt.Errorf("isError result: %s", clip(text))
	}
	rest := text
	for n, line := range fx.lines {
		i := strings.Index(rest, line)
		if i < 0 {
			return fmt.Errorf("result lacks line %d of %s (%q); got %q", n+1, fx.path, line, clip(text))
		}
		rest = rest[i+len(line):]
	}
	return nil
}

// resultText joins the text content blocks of res.
func resultText(res *mcp.CallToolResult) string {
	var sb strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(t.Text)
		}
	}
	return sb.String()
}

// clip shortens s for an error message.
func clip(s string) string {
	const limit = 300
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "..."
}

// summarize computes count, mean, p50, p99, min and max of ds.
func summarize(ds []time.Duration) stats {
	if len(ds) == 0 {
		return stats{}
	}
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	var sum time.Duration
	for _, d := range sorted {
		sum += d
	}
	return stats{
		n:    len(sorted),
		mean: sum / time.Duration(len(sorted)),
		p50:  percentile(sorted, 50),
		p99:  percentile(sorted, 99),
		min:  sorted[0],
		max:  sorted[len(sorted)-1],
	}
}

// percentile returns the nearest-rank p-th percentile of sorted, which must
// be non-empty and ascending. With 30 samples, p99 is the maximum.
func percentile(sorted []time.Duration, p float64) time.Duration {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}
