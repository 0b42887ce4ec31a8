package wire

import (
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// UnboundReads lifts a request's read deadline once its body has been read
// or it has none: the server's background read, which notices a client
// going away, must not end a long call or stream.
func UnboundReads(w http.ResponseWriter) {
	_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
}

// WriteError answers with a status and a JSON-RPC error body.
func WriteError(w http.ResponseWriter, status int, id jsonrpc.ID, code int64, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(ErrorResponse(id, code, msg))
}
