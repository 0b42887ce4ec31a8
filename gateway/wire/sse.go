package wire

import (
	"bytes"
	"net/http"
	"strings"
	"time"
)

// writePiece is how much of a message is written within one write
// deadline: a slow client that keeps reading gets a fresh deadline for
// every piece; one that stops reading is cut off after one.
const writePiece = 256 << 10

// SSEWriter writes a text/event-stream response, flushing every event so
// nothing waits in a buffer (docs/reference/gateway.md#http-surface; reverse proxies are told the same
// with X-Accel-Buffering: no).
type SSEWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration // see WriteParts
}

// StartSSE writes a text/event-stream response's headers and first comment.
func StartSSE(w http.ResponseWriter, timeout time.Duration) *SSEWriter {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	s := &SSEWriter{w: w, rc: http.NewResponseController(w), timeout: timeout}
	// A first byte of body, not just headers: some proxies (nginx over
	// HTTP/2) hold the headers back until the body starts, which would stall
	// a client waiting to see its GET stream open.
	_ = s.Comment("stream open")
	return s
}

// Event sends one JSON-RPC message as a "message" event. Messages are
// single-line JSON, so one data line carries each.
func (s *SSEWriter) Event(raw []byte) error {
	return WriteParts(s.w, s.rc, s.timeout, []byte("event: message\ndata: "), bytes.TrimSpace(raw), []byte("\n\n"))
}

// EventID sends one JSON-RPC message as a "message" event with the event
// id id: the cursor a client names in Last-Event-ID to resume the stream
// after it (Streamable HTTP, "Resumability and Redelivery"). Ids are
// visible ASCII without newlines: the gateway makes them.
func (s *SSEWriter) EventID(id string, raw []byte) error {
	return WriteParts(s.w, s.rc, s.timeout, []byte("id: "+id+"\nevent: message\ndata: "), bytes.TrimSpace(raw), []byte("\n\n"))
}

// Endpoint sends the 2024-11-05 HTTP+SSE transport's endpoint event: "When
// a client connects, the server MUST send an endpoint event containing a
// URI for the client to use for sending messages". uri has no newline: the
// gateway makes it.
func (s *SSEWriter) Endpoint(uri string) error {
	return WriteParts(s.w, s.rc, s.timeout, []byte("event: endpoint\ndata: "+uri+"\n\n"))
}

// Prime sends an event of id id and no data: it carries no message, but
// gives the client a cursor to resume the stream from before any message
// came (2025-11-25: "The server SHOULD immediately send an SSE event
// consisting of an event ID and an empty data field in order to prime the
// client to reconnect").
func (s *SSEWriter) Prime(id string) error {
	return WriteParts(s.w, s.rc, s.timeout, []byte("id: "+id+"\ndata: \n\n"))
}

// Comment sends an SSE comment: a keep-alive that clients ignore.
func (s *SSEWriter) Comment(text string) error {
	return WriteParts(s.w, s.rc, s.timeout, []byte(": "+text+"\n\n"))
}

// WriteParts writes parts, in pieces of at most writePiece bytes, and
// flushes them, each piece within timeout. A message is written from the
// bytes read from the core, never copied into a frame first.
func WriteParts(w http.ResponseWriter, rc *http.ResponseController, timeout time.Duration, parts ...[]byte) error {
	defer rc.SetWriteDeadline(time.Time{}) //nolint:errcheck // not every writer has deadlines
	for _, p := range parts {
		for len(p) > 0 {
			n := min(len(p), writePiece)
			_ = rc.SetWriteDeadline(time.Now().Add(timeout))
			if _, err := w.Write(p[:n]); err != nil {
				return err
			}
			p = p[n:]
		}
	}
	_ = rc.SetWriteDeadline(time.Now().Add(timeout))
	return rc.Flush()
}

// Accepts is what a request's Accept header allows.
type Accepts struct{ JSON, SSE bool }

// ParseAccept reads Accept. A missing header accepts both; wildcards count.
func ParseAccept(h string) Accepts {
	if strings.TrimSpace(h) == "" {
		return Accepts{JSON: true, SSE: true}
	}
	var a Accepts
	for _, part := range strings.Split(h, ",") {
		mt, _, _ := strings.Cut(part, ";")
		switch strings.ToLower(strings.TrimSpace(mt)) {
		case "*/*":
			a.JSON, a.SSE = true, true
		case "application/json", "application/*":
			a.JSON = true
		case "text/event-stream", "text/*":
			a.SSE = true
		}
	}
	return a
}
