// Package sessions provides the gateway's sessions: each a core process
// and the routing of its messages to the HTTP requests waiting for them
// (Session, Call), the table of open sessions and principals' cores and
// the one way they end (Table), the bounds on what the gateway holds for
// them (Budget, Limits), their resumable SSE streams and what they keep
// for replay, and the writing of those streams on HTTP responses
// (Streamer). It knows no HTTP routes, authentication or configuration:
// package gateway finds the session a request names and hands it over.
package sessions

import "time"

// Streamer writes what sessions' cores send on HTTP responses: a POST's
// reply, a GET stream, a resumed stream, a 2024-11-05 SSE stream, or a
// 2026-07-28 subscriptions/listen stream.
type Streamer struct {
	// WriteTimeout bounds each piece of a response: a client that reads
	// nothing of it for this long is cut off.
	WriteTimeout time.Duration
	// KeepAlive is the interval of SSE keep-alive comments.
	KeepAlive time.Duration
	// Draining, closed when the gateway drains, ends GET and listen
	// streams.
	Draining <-chan struct{}
}
