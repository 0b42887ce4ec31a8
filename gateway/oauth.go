package gateway

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/mjkoo/boris/auth"
)

// oauthPaths are where OAuth clients look for metadata and endpoints
// (RFC 9728 protected-resource metadata, RFC 8414 authorization-server
// metadata, OpenID discovery, and the 2025-03-26 default endpoints). Those
// the gateway does not serve answer 404 with a JSON body, which such
// clients parse, instead of net/http's plain text. The protected-resource
// metadata itself, when configured, is a more specific route and wins.
var oauthPaths = []string{"/.well-known/", "/authorize", "/token", "/register"}

// oauthError is an OAuth error response body (RFC 6749 §5.2 layout).
type oauthError struct {
	Error       string `json:"error"`
	Description string `json:"error_description"`
}

// oauthNotFound answers an OAuth path the gateway does not serve: 404, a
// JSON body saying why and what to use instead.
func oauthNotFound(w http.ResponseWriter, r *http.Request) {
	why := "this gateway is not an OAuth authorization server: authenticate with a bearer token (Authorization: Bearer ...)"
	if strings.HasPrefix(r.URL.Path, auth.MetadataPath) {
		why = "no OAuth protected-resource metadata (RFC 9728): the gateway serves it only when started with --public-url and --authorization-server; " +
			"authenticate with a bearer token (Authorization: Bearer ...)"
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNotFound)
	_ = json.NewEncoder(w).Encode(oauthError{Error: "not_found", Description: why})
}
