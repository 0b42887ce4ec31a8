package auth

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/mjkoo/boris/auth/authtest"
)

const testMetadataURL = "https://boris.example.test/.well-known/oauth-protected-resource/mcp"

// authServer serves a handler behind Middleware with a static token for
// alice and the JWKS verifier of the forged-token suite. reached counts the
// requests that got through; logs collects the middleware's log.
type authServer struct {
	h       http.Handler
	reached []*Identity
	logs    *bytes.Buffer
}

func newAuthServer(t *testing.T, metadataURL string) *authServer {
	t.Helper()
	st, err := NewStaticTokens([]string{"alice=" + aliceToken}, "")
	if err != nil {
		t.Fatal(err)
	}
	jwtv, _ := newRSAJWKSVerifier(t)
	s := &authServer{logs: &bytes.Buffer{}}
	mw := Middleware(Options{
		Verifiers:           []Verifier{st, jwtv},
		ResourceMetadataURL: metadataURL,
		Logger:              slog.New(slog.NewTextHandler(s.logs, nil)),
	})
	s.h = mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, _ := FromContext(r.Context())
		s.reached = append(s.reached, id)
		w.WriteHeader(http.StatusOK)
	}))
	return s
}

// serve sends a POST /mcp with an Authorization header (if not empty).
func (s *authServer) serve(target, authorization string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(`{}`))
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	return rec
}

// TestMiddlewareForgedTokens runs the forged-token suite through the HTTP
// middleware: 401 with error="invalid_token", and the handler never runs.
func TestMiddlewareForgedTokens(t *testing.T) {
	s := newAuthServer(t, testMetadataURL)
	for _, tt := range forgedTokens(t) {
		t.Run(tt.name, func(t *testing.T) {
			s.reached = nil
			rec := s.serve("/mcp", "Bearer "+tt.token)
			if tt.ok {
				if rec.Code != http.StatusOK || len(s.reached) != 1 {
					t.Fatalf("got %d, want 200 and the handler reached", rec.Code)
				}
				return
			}
			if rec.Code != http.StatusUnauthorized {
				t.Fatalf("got %d, want 401", rec.Code)
			}
			if len(s.reached) != 0 {
				t.Errorf("handler reached as %+v, want never", s.reached[0])
			}
			p := authtest.ParseChallenge(t, rec.Header().Get("WWW-Authenticate"))
			if tt.oversize {
				return // over the size limit, the header is not read as a token at all
			}
			if p["error"] != "invalid_token" {
				t.Errorf("error: got %q, want invalid_token", p["error"])
			}
			if p["resource_metadata"] != testMetadataURL {
				t.Errorf("resource_metadata: got %q, want %q", p["resource_metadata"], testMetadataURL)
			}
		})
	}
}

// TestMiddlewareChallenges: what a client sees for each way of failing, and
// that success puts the identity in the request's context.
func TestMiddlewareChallenges(t *testing.T) {
	k := authtest.Keys()
	noScope := authtest.Sign(t, jwt.SigningMethodRS256, k.RSA, "k1", validClaims("alice", "openid profile"))
	readOnly := authtest.Sign(t, jwt.SigningMethodRS256, k.RSA, "k1", validClaims("bob", ScopeRead))
	hostileKid := authtest.Sign(t, jwt.SigningMethodRS256, k.RSA2, "a\"b\\c\nd\u00e9", validClaims("alice", ScopeRead))
	tests := []struct {
		name          string
		target        string
		authorization string
		status        int
		params        map[string]string // expected challenge parameters (besides realm and error_description)
		subject       string            // for 200
	}{
		{"no header", "/mcp", "", 401, map[string]string{}, ""},
		{"token in the query string", "/mcp?access_token=" + aliceToken, "", 401, map[string]string{}, ""},
		{"Basic scheme", "/mcp", "Basic YWxpY2U6cGFzc3dvcmQ=", 401, map[string]string{}, ""},
		{"Bearer without a token", "/mcp", "Bearer ", 401, map[string]string{}, ""},
		{"token without a scheme", "/mcp", aliceToken, 401, map[string]string{}, ""},
		{"unknown static token", "/mcp", "Bearer carol-token-0123456789", 401, map[string]string{"error": "invalid_token"}, ""},
		{"kid with quotes and control characters", "/mcp", "Bearer " + hostileKid, 401, map[string]string{"error": "invalid_token"}, ""},
		{"no Boris scope", "/mcp", "Bearer " + noScope, 403, map[string]string{"error": "insufficient_scope", "scope": ScopeRead}, ""},
		{"static token", "/mcp", "Bearer " + aliceToken, 200, nil, "alice"},
		{"lower-case scheme", "/mcp", "bearer " + aliceToken, 200, nil, "alice"},
		{"JWT with boris:read", "/mcp", "Bearer " + readOnly, 200, nil, "bob"},
	}
	for _, metadata := range []string{testMetadataURL, ""} {
		for _, tt := range tests {
			name := tt.name
			if metadata == "" {
				name += " without metadata"
			}
			t.Run(name, func(t *testing.T) {
				s := newAuthServer(t, metadata)
				rec := s.serve(tt.target, tt.authorization)
				if rec.Code != tt.status {
					t.Fatalf("got %d %s, want %d", rec.Code, rec.Body, tt.status)
				}
				if tt.status == http.StatusOK {
					if len(s.reached) != 1 || s.reached[0] == nil || s.reached[0].Subject != tt.subject {
						t.Fatalf("identity: got %+v, want subject %q", s.reached, tt.subject)
					}
					return
				}
				if len(s.reached) != 0 {
					t.Fatal("handler reached, want never")
				}
				got := authtest.ParseChallenge(t, rec.Header().Get("WWW-Authenticate"))
				if got["realm"] != "boris" {
					t.Errorf("realm: got %q, want boris", got["realm"])
				}
				delete(got, "realm")
				delete(got, "error_description")
				want := map[string]string{}
				for k, v := range tt.params {
					want[k] = v
				}
				if metadata != "" {
					want["resource_metadata"] = metadata
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("challenge parameters (-want +got):\n%s", diff)
				}
				var body struct {
					Error string `json:"error"`
				}
				if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Error == "" {
					t.Errorf("body: got %q, want a JSON error", rec.Body)
				}
				if token := strings.TrimPrefix(tt.authorization, "Bearer "); len(token) >= 16 && strings.Contains(s.logs.String(), token) {
					t.Errorf("log: got %q, want no token in it", s.logs)
				}
			})
		}
	}
}

func TestMetadataURL(t *testing.T) {
	tests := []struct{ resource, want string }{
		{"https://boris.example.test/mcp", "https://boris.example.test/.well-known/oauth-protected-resource/mcp"},
		{"https://boris.example.test:8443/tools/mcp/", "https://boris.example.test:8443/.well-known/oauth-protected-resource/tools/mcp"},
		{"https://boris.example.test/", "https://boris.example.test/.well-known/oauth-protected-resource"},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080/.well-known/oauth-protected-resource"},
	}
	for _, tt := range tests {
		if got := MetadataURL(tt.resource); got != tt.want {
			t.Errorf("MetadataURL(%q): got %q, want %q", tt.resource, got, tt.want)
		}
	}
}

// TestMetadataHandler: RFC 9728 §3.2 metadata naming the resource, its
// authorization servers and Boris's scopes.
func TestMetadataHandler(t *testing.T) {
	srv := httptest.NewServer(MetadataHandler(testAudience, []string{"https://idp.example.test", "https://idp2.example.test"}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + MetadataPath + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("got %d %s, want 200 application/json", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var got struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
		ScopesSupported      []string `json:"scopes_supported"`
		BearerMethods        []string `json:"bearer_methods_supported"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	want := got
	want.Resource = testAudience
	want.AuthorizationServers = []string{"https://idp.example.test", "https://idp2.example.test"}
	want.ScopesSupported = []string{ScopeRead, ScopeWrite, ScopeExec}
	want.BearerMethods = []string{"header"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}
}

// TestCoreArgs: what a core may do follows from the token's scopes.
func TestCoreArgs(t *testing.T) {
	tests := []struct {
		scopes []string
		want   []string
	}{
		{[]string{ScopeRead, ScopeWrite, ScopeExec}, nil},
		{[]string{ScopeWrite, ScopeExec}, nil},
		{[]string{ScopeRead}, []string{"--disable-tools", "bash", "--read-only"}},
		{[]string{ScopeRead, ScopeWrite}, []string{"--disable-tools", "bash"}},
		{[]string{ScopeRead, ScopeExec}, []string{"--read-only"}},
		{[]string{"boris:admin", "openid"}, []string{"--disable-tools", "bash", "--read-only"}},
	}
	for _, tt := range tests {
		got := CoreArgs(&Identity{Subject: "x", Scopes: tt.scopes})
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("CoreArgs(%v) (-want +got):\n%s", tt.scopes, diff)
		}
	}
}

// TestIdentityKinds: each verifier names the namespace of its subjects, so
// a static token named alice and a JWT with sub alice reach the handler as
// different identities.
func TestIdentityKinds(t *testing.T) {
	jwtAlice := authtest.Sign(t, jwt.SigningMethodRS256, authtest.Keys().RSA, "k1", validClaims("alice", ScopeRead))
	tests := []struct {
		name  string
		token string
		want  Identity
	}{
		{"static token", aliceToken, Identity{Kind: KindToken, Subject: "alice", Scopes: AllScopes}},
		{"JWT", jwtAlice, Identity{Kind: KindJWT, Subject: "alice", Scopes: []string{ScopeRead}}},
	}
	s := newAuthServer(t, "")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.reached = nil
			if rec := s.serve("/mcp", "Bearer "+tt.token); rec.Code != http.StatusOK || len(s.reached) != 1 {
				t.Fatalf("got %d %s, want 200 and the handler reached once", rec.Code, rec.Body)
			}
			if diff := cmp.Diff(&tt.want, s.reached[0]); diff != "" {
				t.Errorf("identity (-want +got):\n%s", diff)
			}
		})
	}
}
