// Package gateway provides boris-gateway: MCP Streamable HTTP served at /mcp
// and bridged to one boris core process per session over stdio.
//
// The gateway is six rooms, each a package:
//
//   - gateway (this package): the handlers of the 2025 revisions
//     (initialize, POST, GET, DELETE), of 2026-07-28 (stateless requests,
//     subscriptions/listen) and of the 2024-11-05 SSE transport, which
//     find the session a request names and hand it over; the HTTP surface
//     (Origin, Host, CORS, request logs); what a principal's core is
//     started with (principal.go); Main and the one Config, whose methods
//     are all in config*.go.
//   - gateway/sessions: the sessions and the principals' cores, which
//     both protocol eras share (Session, Table, the routing of a core's
//     messages, the budgets that bound what is held, resumable streams
//     and their replay, and the writing of streams on responses).
//   - gateway/wire: reading and writing messages, as pure functions.
//   - gateway/launch: starting and stopping cores (the process, the
//     spawner, the warm pool, cgroups, what is enforced around them).
//   - gateway/dashboard: /dashboard and who may read /metrics, seeing the
//     sessions only through its Sessions interface.
//   - gateway/metrics: the Prometheus metrics.
//
// This package may import all five; none of them imports it, and each
// imports only the others its doc comment names (TestImports checks both).
package gateway
