package gateway

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

// sseWriter writes a text/event-stream response, flushing every event so
// nothing waits in a buffer (SPEC §3.2; reverse proxies are told the same
// with X-Accel-Buffering: no).
type sseWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration // see writeParts
}

func startSSE(w http.ResponseWriter, timeout time.Duration) *sseWriter {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	s := &sseWriter{w: w, rc: http.NewResponseController(w), timeout: timeout}
	// A first byte of body, not just headers: some proxies (nginx over
	// HTTP/2) hold the headers back until the body starts, which would stall
	// a client waiting to see its GET stream open.
	_ = s.comment("stream open")
	return s
}

// event sends one JSON-RPC message as a "message" event. Messages are
// single-line JSON, so one data line carries each.
func (s *sseWriter) event(raw []byte) error {
	return writeParts(s.w, s.rc, s.timeout, []byte("event: message\ndata: "), bytes.TrimSpace(raw), []byte("\n\n"))
}

// comment sends an SSE comment: a keep-alive that clients ignore.
func (s *sseWriter) comment(text string) error {
	return writeParts(s.w, s.rc, s.timeout, []byte(": "+text+"\n\n"))
}

// writeParts writes parts, in pieces of at most writePiece bytes, and
// flushes them, each piece within timeout. A message is written from the
// bytes read from the core, never copied into a frame first.
func writeParts(w http.ResponseWriter, rc *http.ResponseController, timeout time.Duration, parts ...[]byte) error {
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

// accepts is what a request's Accept header allows.
type accepts struct{ json, sse bool }

// parseAccept reads Accept. A missing header accepts both; wildcards count.
func parseAccept(h string) accepts {
	if strings.TrimSpace(h) == "" {
		return accepts{json: true, sse: true}
	}
	var a accepts
	for _, part := range strings.Split(h, ",") {
		mt, _, _ := strings.Cut(part, ";")
		switch strings.ToLower(strings.TrimSpace(mt)) {
		case "*/*":
			a.json, a.sse = true, true
		case "application/json", "application/*":
			a.json = true
		case "text/event-stream", "text/*":
			a.sse = true
		}
	}
	return a
}
