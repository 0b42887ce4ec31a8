// Package metrics provides the gateway's Prometheus metrics (GET /metrics):
// tool calls by tool and outcome and their durations, cores started and
// failed to start, and gauges of the sessions and principals' cores open,
// read through Counts. No label names a principal. Who may read the
// exposition is the dashboard's decision (its operators and tokens).
//
// It may import the standard library and the Prometheus client; never
// package gateway or another of its packages (see the gateway's
// TestImports).
package metrics

import (
	"net/http"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// maxToolLabels bounds the tool names /metrics keeps series for: a client
// chooses the name it calls, so only names a core accepted become labels
// (see Metrics.label), and at most this many; the rest count as "other".
const maxToolLabels = 256

// OtherTool is the tool label of calls of names beyond maxToolLabels or
// that no core accepted (unknown tools, calls abandoned before an answer).
const OtherTool = "other"

// Metrics are the gateway's Prometheus metrics (GET /metrics). No label
// names a principal: the exposition holds no tenant's data.
type Metrics struct {
	reg      *prometheus.Registry
	calls    *prometheus.CounterVec
	duration *prometheus.HistogramVec
	// SpawnFailures counts cores that could not be started.
	SpawnFailures prometheus.Counter
	// CoresStarted counts cores started, for sessions and for principals.
	CoresStarted prometheus.Counter
	// ReplayEvictions counts events dropped from streams' replay buffers,
	// by reason: size (--replay-buffer), age (--replay-window), budget
	// (room made for a new message), streams (too many streams over).
	ReplayEvictions *prometheus.CounterVec

	mu    sync.Mutex
	tools map[string]bool // names accepted as labels
}

// Counts is what the gauges read: the cores open.
type Counts interface {
	Count() int           // sessions' cores and principals' cores
	CountPrincipals() int // principals' cores
}

// New returns the metrics, their gauges reading t.
func New(t Counts) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "boris_gateway_tool_calls_total",
			Help: "Tool calls answered or given up, by tool and outcome (ok, tool_error, input_required, error, abandoned, cancelled).",
		}, []string{"tool", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "boris_gateway_tool_call_duration_seconds",
			Help:    "Time from forwarding a tool call to its core until its answer (or until it was given up), by tool.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600},
		}, []string{"tool"}),
		SpawnFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "boris_gateway_core_spawn_failures_total",
			Help: "Cores that could not be started (for a session or a principal).",
		}),
		CoresStarted: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "boris_gateway_cores_started_total",
			Help: "Cores started, for sessions and for principals.",
		}),
		ReplayEvictions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "boris_gateway_replay_evictions_total",
			Help: "Events dropped from SSE streams' replay buffers (kept for Last-Event-ID resumption), by reason (size, age, budget, streams).",
		}, []string{"reason"}),
		tools: map[string]bool{},
	}
	open := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "boris_gateway_sessions",
		Help: "MCP sessions open (each with its own core).",
	}, func() float64 { return float64(t.Count() - t.CountPrincipals()) })
	principals := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "boris_gateway_principal_cores",
		Help: "Principals' cores open (serving 2026-07-28 clients without sessions).",
	}, func() float64 { return float64(t.CountPrincipals()) })
	// Each reason's series exists, at 0, from the start: a dashboard or
	// an alert on it finds it before the first eviction.
	for _, reason := range []string{"size", "age", "budget", "streams"} {
		m.ReplayEvictions.WithLabelValues(reason)
	}
	m.reg.MustRegister(m.calls, m.duration, m.SpawnFailures, m.CoresStarted, m.ReplayEvictions, open, principals,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// WarmCores registers the warm pool's hits and misses, read through rate:
// how many session creates found a core started ahead and how many did
// not.
func (m *Metrics) WarmCores(rate func() (hits, misses int64)) {
	hits := prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "boris_gateway_warm_core_hits_total",
		Help: "Cores for sessions and principals taken from the warm pool (--warm-cores).",
	}, func() float64 { h, _ := rate(); return float64(h) })
	misses := prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "boris_gateway_warm_core_misses_total",
		Help: "Cores for sessions and principals started on demand because none was waiting in the warm pool (--warm-cores).",
	}, func() float64 { _, m := rate(); return float64(m) })
	m.reg.MustRegister(hits, misses)
}

// label is the tool label of a call of name with outcome: the name once a
// core has answered a call of it with a result (so it is a tool the core
// has), while fewer than maxToolLabels names are kept; otherTool else.
func (m *Metrics) label(name, outcome string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tools[name] {
		return name
	}
	if (outcome == "ok" || outcome == "tool_error" || outcome == "input_required") && len(m.tools) < maxToolLabels {
		m.tools[name] = true
		return name
	}
	return OtherTool
}

// Handler serves the exposition.
func (m *Metrics) Handler() http.Handler { return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}) }

// ToolCall counts one finished tool call.
func (m *Metrics) ToolCall(name, outcome string, seconds float64) {
	tool := m.label(name, outcome)
	m.calls.WithLabelValues(tool, outcome).Inc()
	m.duration.WithLabelValues(tool).Observe(seconds)
}

// Egress is what the egress proxy counts (see Metrics.Egress).
type Egress struct {
	Open, Tunnels, IdleClosed int64
	// Refused are connections refused on arrival, by reason
	// (session_limit, principal_limit, fd_reserve).
	Refused map[string]int64
	// Destinations are requests refused for where they lead, by reason
	// (not_allowed, not_public).
	Destinations map[string]int64
}

// Egress registers the egress proxy's gauges and counters, read through
// read at each scrape: connections and tunnels open, tunnels closed idle,
// connections refused by cap or descriptor reserve, and requests refused
// for their destination.
func (m *Metrics) Egress(read func() Egress) {
	gauge := func(name, help string, v func(Egress) int64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 { return float64(v(read())) })
	}
	m.reg.MustRegister(
		gauge("boris_gateway_egress_connections", "Connections open through the egress proxy (every session's door), tunnels included.", func(e Egress) int64 { return e.Open }),
		gauge("boris_gateway_egress_tunnels", "CONNECT tunnels open through the egress proxy.", func(e Egress) int64 { return e.Tunnels }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "boris_gateway_egress_idle_closed_total",
			Help: "Tunnels through the egress proxy closed because no byte moved for --egress-idle-timeout.",
		}, func() float64 { return float64(read().IdleClosed) }),
		egressCounter(read, "boris_gateway_egress_refused_total",
			"Connections to the egress proxy refused on arrival, by reason: session_limit (--egress-max-per-session, 429), principal_limit (--egress-max-per-principal, 429), fd_reserve (--egress-fd-reserve, 503).",
			func(e Egress) map[string]int64 { return e.Refused }),
		egressCounter(read, "boris_gateway_egress_destinations_refused_total",
			"Requests through the egress proxy refused for where they lead (403), by reason: not_allowed (no --egress-allow rule), not_public (only addresses that are not public, or the gateway host's own).",
			func(e Egress) map[string]int64 { return e.Destinations }),
	)
}

// egressCounterVec is a counter by reason, read at each scrape.
type egressCounterVec struct {
	desc *prometheus.Desc
	read func() map[string]int64
}

// egressCounter is the counter name by reason, picked from what read
// returns.
func egressCounter(read func() Egress, name, help string, pick func(Egress) map[string]int64) prometheus.Collector {
	return egressCounterVec{
		desc: prometheus.NewDesc(name, help, []string{"reason"}, nil),
		read: func() map[string]int64 { return pick(read()) },
	}
}

func (c egressCounterVec) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c egressCounterVec) Collect(ch chan<- prometheus.Metric) {
	for reason, n := range c.read() {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, float64(n), reason)
	}
}
