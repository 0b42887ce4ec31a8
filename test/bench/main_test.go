package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPercentile checks nearest-rank percentiles on small samples.
func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 20; i++ {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	for _, tc := range []struct {
		p    float64
		want time.Duration
	}{{50, 10 * time.Millisecond}, {99, 20 * time.Millisecond}, {0, time.Millisecond}, {100, 20 * time.Millisecond}} {
		if got := percentile(ds, tc.p); got != tc.want {
			t.Errorf("percentile(1..20 ms, %v) = %v, want %v", tc.p, got, tc.want)
		}
	}
	if got := percentile(ds[:1], 99); got != time.Millisecond {
		t.Errorf("percentile of one sample = %v, want 1ms", got)
	}
}

// TestCheckResult checks that only a successful result holding every
// fixture line in order passes.
func TestCheckResult(t *testing.T) {
	fx := fixture{path: "/f", lines: []string{"alpha", "beta"}}
	text := func(s string, isErr bool) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}, IsError: isErr}
	}
	if err := checkResult(text("     1\talpha\n     2\tbeta\n", false), nil, fx); err != nil {
		t.Errorf("good result: %v", err)
	}
	for name, res := range map[string]*mcp.CallToolResult{
		"isError":   text("alpha beta", true),
		"missing":   text("alpha", false),
		"reordered": text("beta alpha", false),
	} {
		if err := checkResult(res, nil, fx); err == nil {
			t.Errorf("%s result passed, want an error", name)
		}
	}
	if err := checkResult(nil, errors.New("boom"), fx); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("call error = %v, want it passed through", err)
	}
}
