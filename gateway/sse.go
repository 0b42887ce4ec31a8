package gateway

import (
	"bytes"
	"net/http"
	"strings"
)

// sseWriter writes a text/event-stream response, flushing every event so
// nothing waits in a buffer (SPEC §3.2; reverse proxies are told the same
// with X-Accel-Buffering: no).
type sseWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func startSSE(w http.ResponseWriter) *sseWriter {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	s := &sseWriter{w: w, rc: http.NewResponseController(w)}
	// A first byte of body, not just headers: some proxies (nginx over
	// HTTP/2) hold the headers back until the body starts, which would stall
	// a client waiting to see its GET stream open.
	_ = s.comment("stream open")
	return s
}

// event sends one JSON-RPC message as a "message" event. Messages are
// single-line JSON, so one data line carries each.
func (s *sseWriter) event(raw []byte) error {
	var b bytes.Buffer
	b.Grow(len(raw) + 24)
	b.WriteString("event: message\ndata: ")
	b.Write(bytes.TrimSpace(raw))
	b.WriteString("\n\n")
	if _, err := s.w.Write(b.Bytes()); err != nil {
		return err
	}
	return s.rc.Flush()
}

// comment sends an SSE comment: a keep-alive that clients ignore.
func (s *sseWriter) comment(text string) error {
	if _, err := s.w.Write([]byte(": " + text + "\n\n")); err != nil {
		return err
	}
	return s.rc.Flush()
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
