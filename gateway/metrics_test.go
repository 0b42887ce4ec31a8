package gateway

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mjkoo/boris/auth/authtest"
	"github.com/mjkoo/boris/gateway/metrics"
)

// scrape reads /metrics with the headers kv, returning the status and,
// for a 200, the families parsed by Prometheus's own text parser.
func scrape(t *testing.T, g *testGateway, kv ...string) (int, map[string]*dto.MetricFamily) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, strings.TrimSuffix(g.url, "/mcp")+"/metrics", nil)
	for i := 0; i+1 < len(kv); i += 2 {
		req.Header.Set(kv[i], kv[i+1])
	}
	resp, err := g.client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, nil
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return resp.StatusCode, families
}

// value is the value of the series of family name whose labels are kv
// (name=value pairs), or -1 when there is none.
func value(families map[string]*dto.MetricFamily, name string, kv ...string) float64 {
	f := families[name]
	if f == nil {
		return -1
	}
next:
	for _, m := range f.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		for i := 0; i+1 < len(kv); i += 2 {
			if labels[kv[i]] != kv[i+1] {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue()
		case m.Gauge != nil:
			return m.GetGauge().GetValue()
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount())
		}
	}
	return -1
}

// TestMetricsAuth: /metrics needs an operator's token or the metrics
// token; a principal's own token, a wrong one or none gets 401; and the
// metrics token opens nothing else.
func TestMetricsAuth(t *testing.T) {
	const scrapeToken = "scrape-token-0123456789abcdef"
	g := newDashGateway(t, "--metrics-token-file", authtest.WriteFile(t, "metrics", []byte(scrapeToken+"\n")))
	tests := []struct {
		name  string
		token string
		want  int
	}{
		{"no token", "", http.StatusUnauthorized},
		{"principal", dashAlice, http.StatusUnauthorized},
		{"wrong", scrapeToken + "x", http.StatusUnauthorized},
		{"operator", dashOps, http.StatusOK},
		{"metrics token", scrapeToken, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var kv []string
			if tt.token != "" {
				kv = []string{"Authorization", "Bearer " + tt.token}
			}
			if got, _ := scrape(t, g.testGateway, kv...); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
	resp, _ := g.do(http.MethodPost, authHeader(scrapeToken, ""), initializeBody(1))
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("initialize with the metrics token: got %d, want 401", resp.StatusCode)
	}
	if resp := g.browser(t).post("/dashboard/login", map[string][]string{"token": {scrapeToken}}); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("dashboard login with the metrics token: got %d, want 401", resp.StatusCode)
	}
	open := newDashGateway(t, "--metrics-auth", "none")
	if got, _ := scrape(t, open.testGateway); got != http.StatusOK {
		t.Errorf("--metrics-auth none: got %d, want 200", got)
	}
}

// TestMetricsCount: the exposition parses, and the gauges, the call
// counters and histogram move with what clients do. Tool names a core
// never accepted count as "other", so no client can grow the label set.
func TestMetricsCount(t *testing.T) {
	g := newDashGateway(t)
	ops := []string{"Authorization", "Bearer " + dashOps}
	_, before := scrape(t, g.testGateway, ops...)
	if got := value(before, "boris_gateway_sessions"); got != 0 {
		t.Errorf("sessions before: got %v, want 0", got)
	}
	for _, reason := range []string{"size", "age", "budget", "streams"} {
		// Present before the first eviction, as docs/gateway.md#dashboard-and-metrics lists it.
		if got := value(before, "boris_gateway_replay_evictions_total", "reason", reason); got != 0 {
			t.Errorf("boris_gateway_replay_evictions_total{reason=%q} at start: got %v, want 0 (-1: absent)", reason, got)
		}
	}
	sid := g.initializeAs(dashAlice)
	g.callAs(dashAlice, sid, "create_task", map[string]any{"description": "counted"})
	g.callAs(dashAlice, sid, "get_task", map[string]any{"id": "W-99"})
	for i := range 3 {
		resp, _ := g.do(http.MethodPost, authHeader(dashAlice, sid), callBody(10+i, fmt.Sprintf("no_such_tool_%d", i), nil, ""))
		resp.Body.Close()
	}
	_, after := scrape(t, g.testGateway, ops...)
	checks := []struct {
		name string
		kv   []string
		want float64
	}{
		{"boris_gateway_sessions", nil, 1},
		{"boris_gateway_principal_cores", nil, 0},
		{"boris_gateway_cores_started_total", nil, 1},
		{"boris_gateway_core_spawn_failures_total", nil, 0},
		{"boris_gateway_tool_calls_total", []string{"tool", "create_task", "outcome", "ok"}, 1},
		{"boris_gateway_tool_calls_total", []string{"tool", "get_task", "outcome", "tool_error"}, 1},
		{"boris_gateway_tool_calls_total", []string{"tool", metrics.OtherTool, "outcome", "error"}, 3},
		{"boris_gateway_tool_call_duration_seconds", []string{"tool", "create_task"}, 1},
	}
	for _, c := range checks {
		if got := value(after, c.name, c.kv...); got != c.want {
			t.Errorf("%s%v: got %v, want %v", c.name, c.kv, got, c.want)
		}
	}
	for _, m := range after["boris_gateway_tool_calls_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if strings.HasPrefix(l.GetValue(), "no_such_tool") {
				t.Errorf("label %s=%q: want unknown tools counted as %q", l.GetName(), l.GetValue(), metrics.OtherTool)
			}
		}
	}
	for name := range after {
		if strings.Contains(name, "alice") {
			t.Errorf("metric %s names a principal", name)
		}
	}
}

// TestMetricsSpawnFailures: a core that cannot start is counted.
func TestMetricsSpawnFailures(t *testing.T) {
	g := newTestGateway(t, func(o *Options) { o.Core = "/nonexistent/boris" })
	resp, _ := g.do(http.MethodPost, postHeader(""), initializeBody(1))
	if resp.StatusCode != http.StatusInternalServerError {
		t.Fatalf("initialize with no core: got %d, want 500", resp.StatusCode)
	}
	_, families := scrape(t, g)
	if got := value(families, "boris_gateway_core_spawn_failures_total"); got != 1 {
		t.Errorf("spawn failures: got %v, want 1", got)
	}
}
