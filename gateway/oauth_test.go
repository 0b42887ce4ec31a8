package gateway

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestOAuthPathsAnswerJSON: the OAuth paths clients probe answer 404 with
// a JSON body they can parse (issue 27: net/http's plain text), saying why;
// configured metadata still wins over them.
func TestOAuthPathsAnswerJSON(t *testing.T) {
	g, _ := newAuthGateway(t, nil, "--token", "alice="+authAliceToken)
	for _, tt := range []struct{ path, want string }{
		{"/.well-known/oauth-protected-resource", "--public-url and --authorization-server"},
		{"/.well-known/oauth-protected-resource/mcp", "--public-url and --authorization-server"},
		{"/.well-known/oauth-authorization-server", "not an OAuth authorization server"},
		{"/.well-known/openid-configuration", "not an OAuth authorization server"},
		{"/register", "not an OAuth authorization server"},
		{"/authorize", "not an OAuth authorization server"},
		{"/token", "not an OAuth authorization server"},
	} {
		resp := g.getNoAuth(tt.path)
		var body oauthError
		err := json.NewDecoder(resp.Body).Decode(&body)
		if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Content-Type") != "application/json" || err != nil ||
			body.Error != "not_found" || !strings.Contains(body.Description, tt.want) {
			t.Errorf("GET %s: got %d %s, body %+v (%v); want 404 application/json with an error saying %q",
				tt.path, resp.StatusCode, resp.Header.Get("Content-Type"), body, err, tt.want)
		}
	}
	j, _ := jwtGateway(t)
	if resp := j.getNoAuth("/.well-known/oauth-protected-resource/mcp"); resp.StatusCode != http.StatusOK {
		t.Errorf("configured metadata: got %d, want 200", resp.StatusCode)
	}
}
