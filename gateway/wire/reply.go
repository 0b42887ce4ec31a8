package wire

import (
	"net/http"
	"strconv"
	"time"
)

// Reply is how a request's HTTP response is written. Headers wait until the
// first message: a lone response goes out as application/json when the
// client accepts it; anything before it (progress) switches to
// text/event-stream.
type Reply struct {
	Writer  http.ResponseWriter
	Accepts Accepts
	sse     *SSEWriter
	Timeout time.Duration // per piece written, see WriteParts
	// stateless: a 2026-07-28 error response sent as JSON has the HTTP
	// status its code calls for (see StatusOf).
	Stateless bool
}

// Note sends a message tied to the request, starting a stream if needed.
// It reports false when the client accepts only JSON, which cannot carry it.
func (rp *Reply) Note(raw []byte) bool {
	if rp.sse == nil {
		if !rp.Accepts.SSE {
			return false
		}
		rp.sse = StartSSE(rp.Writer, rp.Timeout)
	}
	_ = rp.sse.Event(raw)
	return true
}

// Final sends the response and ends the reply.
func (rp *Reply) Final(raw []byte) {
	if rp.sse == nil && rp.Accepts.JSON {
		// Sized and flushed now, so the client has its answer before the
		// handler's bookkeeping (the tool-call log line) runs.
		h := rp.Writer.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(raw)))
		if rp.Stateless {
			rp.Writer.WriteHeader(statusOf(raw))
		}
		_ = WriteParts(rp.Writer, http.NewResponseController(rp.Writer), rp.Timeout, raw)
		return
	}
	rp.Note(raw)
}

// KeepAlive sends a keep-alive comment, opening the stream if allowed.
func (rp *Reply) KeepAlive() {
	if rp.sse == nil && rp.Accepts.SSE {
		rp.sse = StartSSE(rp.Writer, rp.Timeout)
	}
	if rp.sse != nil {
		_ = rp.sse.Comment("keep-alive")
	}
}
