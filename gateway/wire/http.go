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

// HostNotAllowed is the answer to a request whose Host a loopback-only
// gateway refuses (a DNS-rebinding guard). Such a request usually comes
// through a reverse proxy that forwards the public Host: the message names
// the flag that lets it in.
func HostNotAllowed(host string) string {
	return "host not allowed: " + host + ": this gateway listens on loopback and answers only loopback Host names; " +
		"behind a reverse proxy, start it with --public-url https://" + host + "/mcp (the URL clients use)"
}

// OriginNotAllowed is the answer to a request from a browser origin the
// gateway does not allow, naming the flags that allow it.
func OriginNotAllowed(origin string) string {
	return "origin not allowed: " + origin + ": allow it with --allowed-origins " + origin + " (or --public-url, whose origin is allowed)"
}
