package gateway

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// maxToolLabels bounds the tool names /metrics keeps series for: a client
// chooses the name it calls, so only names a core accepted become labels
// (see metrics.label), and at most this many; the rest count as "other".
const maxToolLabels = 256

// otherTool is the tool label of calls of names beyond maxToolLabels or
// that no core accepted (unknown tools, calls abandoned before an answer).
const otherTool = "other"

// metrics are the gateway's Prometheus metrics (GET /metrics). No label
// names a principal: the exposition holds no tenant's data.
type metrics struct {
	reg           *prometheus.Registry
	calls         *prometheus.CounterVec
	duration      *prometheus.HistogramVec
	spawnFailures prometheus.Counter
	sessions      prometheus.Counter

	mu    sync.Mutex
	tools map[string]bool // names accepted as labels
}

func newMetrics(t *table) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "boris_gateway_tool_calls_total",
			Help: "Tool calls answered or given up, by tool and outcome (ok, tool_error, error, abandoned, cancelled).",
		}, []string{"tool", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "boris_gateway_tool_call_duration_seconds",
			Help:    "Time from forwarding a tool call to its core until its answer (or until it was given up), by tool.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600},
		}, []string{"tool"}),
		spawnFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "boris_gateway_core_spawn_failures_total",
			Help: "Cores that could not be started (for a session or a principal).",
		}),
		sessions: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "boris_gateway_cores_started_total",
			Help: "Cores started, for sessions and for principals.",
		}),
		tools: map[string]bool{},
	}
	open := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "boris_gateway_sessions",
		Help: "MCP sessions open (each with its own core).",
	}, func() float64 { return float64(t.count() - t.countPrincipals()) })
	principals := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "boris_gateway_principal_cores",
		Help: "Principals' cores open (serving 2026-07-28 clients without sessions).",
	}, func() float64 { return float64(t.countPrincipals()) })
	m.reg.MustRegister(m.calls, m.duration, m.spawnFailures, m.sessions, open, principals,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// label is the tool label of a call of name with outcome: the name once a
// core has answered a call of it with a result (so it is a tool the core
// has), while fewer than maxToolLabels names are kept; otherTool else.
func (m *metrics) label(name, outcome string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tools[name] {
		return name
	}
	if (outcome == "ok" || outcome == "tool_error") && len(m.tools) < maxToolLabels {
		m.tools[name] = true
		return name
	}
	return otherTool
}

// toolCall counts one finished tool call.
func (m *metrics) toolCall(name, outcome string, seconds float64) {
	tool := m.label(name, outcome)
	m.calls.WithLabelValues(tool, outcome).Inc()
	m.duration.WithLabelValues(tool).Observe(seconds)
}

// serveMetrics serves the exposition to whoever metricsAllowed admits.
func (h *Handler) serveMetrics() http.Handler {
	prom := promhttp.HandlerFor(h.obs.metrics.reg, promhttp.HandlerOpts{})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if !h.metricsAllowed(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="boris"`)
			http.Error(w, "a dashboard operator's bearer token (or the metrics token) is required", http.StatusUnauthorized)
			return
		}
		prom.ServeHTTP(w, r)
	})
}

// metricsAllowed admits a request to /metrics: anyone with
// DashboardOptions.MetricsOpen or without authentication, else the
// metrics token or a dashboard operator's bearer token.
func (h *Handler) metricsAllowed(r *http.Request) bool {
	d := h.opts.Dashboard
	if d.MetricsOpen || h.opts.Authenticate == nil {
		return true
	}
	token, ok := bearerToken(r)
	if !ok {
		return false
	}
	if d.MetricsToken != "" {
		want, got := sha256.Sum256([]byte(d.MetricsToken)), sha256.Sum256([]byte(token))
		if subtle.ConstantTimeCompare(want[:], got[:]) == 1 {
			return true
		}
	}
	p, ok := h.verifyToken(r, token)
	return ok && h.isOperator(p)
}
