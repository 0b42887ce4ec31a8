// Package dashboard provides the gateway's read-only web dashboard
// (GET /dashboard: the host's plots of its last hour, the task boards as
// columns by status, the cores open, the tool calls in progress and done,
// kept live by an event stream), its logins, and who may read /metrics;
// and the Observer that records, as the gateway tells it, what the
// dashboard and the metrics show.
//
// It sees the gateway's sessions only through the Sessions interface it
// defines (a count and a snapshot of the cores open, as Core values) and
// the rest of the gateway through Gateway (its authentication, its Host
// check, how a request's principal and board are found); never through the
// gateway's Handler or session types. It may import the standard library,
// auth (the kinds of identity), core/board (reading boards, read-only),
// DataDog's sketches-go (the latency quantiles of the host's plots), and of
// the gateway's packages metrics and wire only; never package gateway (see
// the gateway's TestImports).
package dashboard
