package gateway

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/mjkoo/boris/auth"
	"github.com/mjkoo/boris/auth/authtest"
	"github.com/mjkoo/boris/internal/flagenv"
)

// Settings shared by the auth tests.
const (
	authPublicURL   = "https://boris.example.test/mcp"
	authMetadataURL = "https://boris.example.test/.well-known/oauth-protected-resource/mcp"
	authIssuer      = "https://idp.example.test"
	authServer      = "https://idp.example.test"
	authAliceToken  = "alice-token-0123456789"
	authBobToken    = "bob-token-0123456789ab"
	authHMACSecret  = "0123456789abcdef0123456789abcdef"
)

// newAuthGateway is a testGateway wired the way Main wires a Handler: from
// a Config parsed from args (after --listen 127.0.0.1:0) and environ, and
// its authSetup. Cores run in the gateway's temporary --workdir, which
// names them in /proc.
func newAuthGateway(t *testing.T, environ []string, args ...string) (*testGateway, *authSetup) {
	t.Helper()
	cfg, err := ParseConfig(append([]string{"--listen", "127.0.0.1:0"}, args...), environ, io.Discard)
	if err != nil {
		t.Fatalf("ParseConfig %v: %v", args, err)
	}
	as, err := cfg.authSetup(context.Background(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("authSetup %v: %v", args, err)
	}
	g := newTestGateway(t, func(o *Options) {
		o.CoreArgs = append(o.CoreArgs, cfg.CoreArgs...)
		o.PublicURL, o.Loopback = cfg.PublicURL, cfg.loopback()
		o.Authenticate, o.Principal, o.Metadata = as.middleware, cfg.principal, as.metadata
		o.SSEPath = cfg.ssePath()
	})
	return g, as
}

// authHeader is postHeader with an Authorization header.
func authHeader(token, sid string, kv ...string) http.Header {
	return postHeader(sid, append([]string{"Authorization", "Bearer " + token}, kv...)...)
}

// initializeAs opens a session with token and returns its id.
func (g *testGateway) initializeAs(token string) string {
	g.t.Helper()
	resp, body := g.do(http.MethodPost, authHeader(token, ""), initializeBody(1))
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		g.t.Fatalf("initialize: got %d, session id %q, body %s; want 200 and an id", resp.StatusCode, sid, body)
	}
	if resp, body := g.do(http.MethodPost, authHeader(token, sid), initializedBody); resp.StatusCode != http.StatusAccepted {
		g.t.Fatalf("notifications/initialized: got %d %s, want 202", resp.StatusCode, body)
	}
	return sid
}

// callAs runs a tool in a session with token and returns the result's text
// and whether it is an error.
func (g *testGateway) callAs(token, sid, tool string, args map[string]any) (string, bool) {
	g.t.Helper()
	resp := g.send(http.MethodPost, authHeader(token, sid), callBody(3, tool, args, ""))
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		g.t.Fatalf("tools/call %s: got %d %s, want 200", tool, resp.StatusCode, b)
	}
	final, _ := responseOf(g.t, resp)
	var r struct {
		IsError bool `json:"isError"`
	}
	_ = json.Unmarshal(final.Result, &r)
	return toolText(g.t, final), r.IsError
}

// toolsAs lists the tools of a session.
func (g *testGateway) toolsAs(token, sid string) []string {
	g.t.Helper()
	resp := g.send(http.MethodPost, authHeader(token, sid), `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	final, _ := responseOf(g.t, resp)
	var r struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(final.Result, &r); err != nil {
		g.t.Fatalf("tools/list: got %+v, want a result", final)
	}
	var names []string
	for _, tool := range r.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// claimsFor are valid claims for sub with scope, changed by kv (a nil
// value deletes the claim).
func claimsFor(sub, scope string, kv ...any) jwt.MapClaims {
	return authtest.With(authtest.Claims(authIssuer, authPublicURL, sub, scope), kv...)
}

// hmacJWT is a token signed with authHMACSecret.
func hmacJWT(t *testing.T, sub, scope string) string {
	t.Helper()
	return authtest.Sign(t, jwt.SigningMethodHS256, []byte(authHMACSecret), "", claimsFor(sub, scope))
}

// newJWKSIDP serves a JWKS holding the IdP's RSA key as kid "k1".
func newJWKSIDP(t *testing.T) *authtest.JWKSServer {
	t.Helper()
	return authtest.NewJWKSServer(t, authtest.JWK(&authtest.Keys().RSA.PublicKey, "k1"))
}

// idpToken is a token the IdP would issue.
func idpToken(t *testing.T, sub, scope string) string {
	t.Helper()
	return authtest.Sign(t, jwt.SigningMethodRS256, authtest.Keys().RSA, "k1", claimsFor(sub, scope))
}

// jwtGateway trusts alice's static token, the IdP's JWKS and a PEM copy of
// the IdP key, with issuer, audience (the public URL) and an authorization
// server for RFC 9728.
func jwtGateway(t *testing.T) (*testGateway, *authtest.JWKSServer) {
	t.Helper()
	p := newJWKSIDP(t)
	pemFile := authtest.WritePublicKey(t, &authtest.Keys().RSA.PublicKey)
	g, _ := newAuthGateway(t, nil,
		"--public-url", authPublicURL, "--authorization-server", authServer,
		"--token", "alice="+authAliceToken, "--jwks-url", p.URL(), "--jwt-public-key", pemFile, "--jwt-issuer", authIssuer)
	return g, p
}

// wantNoCore fails the test if the gateway holds a session or a core runs
// in its working directory.
func wantNoCore(t *testing.T, g *testGateway) {
	t.Helper()
	if n := g.h.Sessions(); n != 0 {
		t.Errorf("sessions: got %d, want 0", n)
	}
	if pids := g.cores(); len(pids) != 0 {
		t.Errorf("cores running in %s: pids %v, want none", g.dir, pids)
	}
}

// TestAuthForgedTokens: every forged token gets 401 with
// error="invalid_token" and the resource metadata URL, and no core starts.
func TestAuthForgedTokens(t *testing.T) {
	g, p := jwtGateway(t)
	idpKey, otherKey := authtest.Keys().RSA, authtest.Keys().RSA2
	der := authtest.PKIXDER(t, &idpKey.PublicKey)
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	good := idpToken(t, "alice", "boris:read")
	parts := strings.Split(good, ".")
	now := time.Now()
	rs := func(c jwt.MapClaims) string { return authtest.Sign(t, jwt.SigningMethodRS256, idpKey, "k1", c) }
	hugeTok := jwt.NewWithClaims(jwt.SigningMethodRS256, claimsFor("alice", "boris:read"))
	hugeTok.Header["kid"], hugeTok.Header["pad"] = "k1", strings.Repeat("x", 20<<10)
	huge, err := hugeTok.SignedString(idpKey)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		target string // the URL's query, if any
		token  string // "" sends no Authorization header
		code   string // the challenge's error parameter
	}{
		{"alg none", "", authtest.Sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, "k1", claimsFor("alice", "boris:read")), "invalid_token"},
		{"HS256 signed with the RSA public key", "", authtest.Sign(t, jwt.SigningMethodHS256, pubPEM, "k1", claimsFor("alice", "boris:read")), "invalid_token"},
		{"HS256 signed with the RSA public key DER", "", authtest.Sign(t, jwt.SigningMethodHS256, der, "k1", claimsFor("alice", "boris:read")), "invalid_token"},
		{"wrong key", "", authtest.Sign(t, jwt.SigningMethodRS256, otherKey, "k1", claimsFor("alice", "boris:read")), "invalid_token"},
		{"wrong iss", "", rs(claimsFor("alice", "boris:read", "iss", "https://evil.example.test")), "invalid_token"},
		{"wrong aud", "", rs(claimsFor("alice", "boris:read", "aud", "https://other.example.test/mcp")), "invalid_token"},
		{"expired", "", rs(claimsFor("alice", "boris:read", "exp", now.Add(-time.Hour).Unix())), "invalid_token"},
		{"nbf beyond leeway", "", rs(claimsFor("alice", "boris:read", "nbf", now.Add(time.Hour).Unix())), "invalid_token"},
		{"missing exp", "", rs(claimsFor("alice", "boris:read", "exp", nil)), "invalid_token"},
		{"unknown kid", "", authtest.Sign(t, jwt.SigningMethodRS256, otherKey, "k2", claimsFor("alice", "boris:read")), "invalid_token"},
		{"bad base64", "", parts[0] + ".%%%" + parts[1][3:] + "." + parts[2], "invalid_token"},
		{"three dots", "", good + ".x", "invalid_token"},
		{"tampered payload", "", parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"root"}`)) + "." + parts[2], "invalid_token"},
		{"unknown static token", "", "carol-token-0123456789", "invalid_token"},
		{"huge header", "", huge, ""},
		{"token in the query string", "?access_token=" + good, "", ""},
		{"static token in the query string", "?access_token=" + authAliceToken, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, g.url+tt.target, strings.NewReader(initializeBody(1)))
			if err != nil {
				t.Fatal(err)
			}
			req.Header = postHeader("")
			if tt.token != "" {
				req.Header.Set("Authorization", "Bearer "+tt.token)
			}
			resp, err := g.srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("got %d %s, want 401", resp.StatusCode, body)
			}
			c := authtest.ParseChallenge(t, resp.Header.Get("WWW-Authenticate"))
			if c["error"] != tt.code {
				t.Errorf("challenge error: got %q, want %q", c["error"], tt.code)
			}
			if c["resource_metadata"] != authMetadataURL {
				t.Errorf("challenge resource_metadata: got %q, want %q", c["resource_metadata"], authMetadataURL)
			}
			if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
				t.Errorf("Mcp-Session-Id: got %q, want none", sid)
			}
			wantNoCore(t, g)
		})
	}
	if got := p.Fetches(); got != 1 {
		t.Errorf("JWKS fetches: got %d, want 1 (at start-up; the unknown kid is within the refresh interval)", got)
	}
	// The control: the real token starts a core, which the checks above
	// would have seen.
	g.initializeAs(good)
	if n, pids := g.h.Sessions(), g.cores(); n != 1 || len(pids) != 1 {
		t.Errorf("after a valid token: got %d sessions and cores %v, want 1 and 1", n, pids)
	}
}

// TestAuthJWKSGateway: a storm of unknown kids is refused without turning
// the gateway against the IdP, and with the IdP down the cached key keeps
// working while unknown kids start no core.
func TestAuthJWKSGateway(t *testing.T) {
	p := newJWKSIDP(t)
	g, _ := newAuthGateway(t, nil, "--public-url", authPublicURL, "--jwks-url", p.URL(), "--jwt-issuer", authIssuer)
	other := authtest.Keys().RSA2
	for i := range 50 {
		tok := authtest.Sign(t, jwt.SigningMethodRS256, other, fmt.Sprintf("storm-%d", i), claimsFor("mallory", "boris:exec"))
		if resp, body := g.do(http.MethodPost, authHeader(tok, ""), initializeBody(1)); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("unknown kid %d: got %d %s, want 401", i, resp.StatusCode, body)
		}
	}
	wantNoCore(t, g)
	if got := p.Fetches(); got != 1 {
		t.Errorf("JWKS fetches after 50 unknown kids: got %d, want 1", got)
	}
	p.SetDown(true)
	p.Close()
	unknown := authtest.Sign(t, jwt.SigningMethodRS256, other, "k2", claimsFor("mallory", "boris:exec"))
	if resp, body := g.do(http.MethodPost, authHeader(unknown, ""), initializeBody(1)); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("unknown kid with the IdP down: got %d %s, want 401", resp.StatusCode, body)
	}
	wantNoCore(t, g)
	good := idpToken(t, "alice", "boris:read")
	sid := g.initializeAs(good)
	if text, isErr := g.callAs(good, sid, "view", map[string]any{"path": g.dir}); isErr {
		t.Errorf("view with the cached key: got error %q, want success", text)
	}
}

// TestAuthChallenges: no token, a token without a Boris scope, and the
// challenge without an authorization server.
func TestAuthChallenges(t *testing.T) {
	g, _ := jwtGateway(t)
	noScope := idpToken(t, "alice", "openid profile")
	tests := []struct {
		name   string
		header http.Header
		status int
		want   map[string]string
	}{
		{"no token", postHeader(""), 401, map[string]string{"realm": "boris", "resource_metadata": authMetadataURL}},
		{"Basic credentials", postHeader("", "Authorization", "Basic YWxpY2U6c2VjcmV0"), 401, map[string]string{"realm": "boris", "resource_metadata": authMetadataURL}},
		{"no Boris scope", authHeader(noScope, ""), 403, map[string]string{"realm": "boris", "error": "insufficient_scope", "scope": "boris:read", "resource_metadata": authMetadataURL}},
		{"expired", authHeader(authtest.Sign(t, jwt.SigningMethodRS256, authtest.Keys().RSA, "k1", claimsFor("alice", "boris:read", "exp", time.Now().Add(-time.Hour).Unix())), ""), 401,
			map[string]string{"realm": "boris", "error": "invalid_token", "resource_metadata": authMetadataURL}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := g.do(http.MethodPost, tt.header, initializeBody(1))
			if resp.StatusCode != tt.status {
				t.Fatalf("got %d %s, want %d", resp.StatusCode, body, tt.status)
			}
			got := authtest.ParseChallenge(t, resp.Header.Get("WWW-Authenticate"))
			delete(got, "error_description")
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("challenge (-want +got):\n%s", diff)
			}
			wantNoCore(t, g)
		})
	}
	t.Run("without an authorization server", func(t *testing.T) {
		g, _ := newAuthGateway(t, nil, "--token", "alice="+authAliceToken)
		resp, _ := g.do(http.MethodPost, authHeader("carol-token-0123456789", ""), initializeBody(1))
		got := authtest.ParseChallenge(t, resp.Header.Get("WWW-Authenticate"))
		if resp.StatusCode != 401 || got["error"] != "invalid_token" || got["resource_metadata"] != "" {
			t.Errorf("got %d %v, want 401 with error invalid_token and no resource_metadata", resp.StatusCode, got)
		}
		if resp := g.getNoAuth("/.well-known/oauth-protected-resource"); resp.StatusCode != http.StatusNotFound {
			t.Errorf("metadata without an authorization server: got %d, want 404", resp.StatusCode)
		}
	})
}

// getNoAuth fetches a path of the gateway's server without credentials.
func (g *testGateway) getNoAuth(path string) *http.Response {
	g.t.Helper()
	resp, err := g.srv.Client().Get(g.srv.URL + path)
	if err != nil {
		g.t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp
}

// TestAuthMetadata: RFC 9728 metadata at the well-known path and its
// path-suffixed form, without credentials.
func TestAuthMetadata(t *testing.T) {
	g, _ := jwtGateway(t)
	for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		t.Run(path, func(t *testing.T) {
			resp := g.getNoAuth(path)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("got %d, want 200", resp.StatusCode)
			}
			var got struct {
				Resource             string   `json:"resource"`
				AuthorizationServers []string `json:"authorization_servers"`
				ScopesSupported      []string `json:"scopes_supported"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
				t.Fatal(err)
			}
			want := got
			want.Resource, want.AuthorizationServers = authPublicURL, []string{authServer}
			want.ScopesSupported = []string{"boris:read", "boris:write", "boris:exec"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("metadata (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAuthScopes: a token's scopes decide the core's flags, hence its
// tools; the token and the JWT secret (given in the environment) reach
// neither the core's command line nor its environment.
func TestAuthScopes(t *testing.T) {
	t.Setenv("BORIS_GATEWAY_JWT_SECRET", authHMACSecret) // the cores inherit the test's environment
	g, _ := newAuthGateway(t, os.Environ(), "--jwt-audience", authPublicURL)
	writeOnly := []string{"str_replace", "create_file"}
	execOnly := []string{"bash", "task_output", "task_stop"}
	tests := []struct {
		scope    string
		coreArgs []string
		absent   []string
	}{
		{"boris:read", []string{"--disable-tools", "bash", "--read-only"}, append(append([]string{}, writeOnly...), execOnly...)},
		{"boris:read boris:write", []string{"--disable-tools", "bash"}, execOnly},
		{"boris:exec", []string{"--read-only"}, writeOnly},
		{"boris:read boris:write boris:exec", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.scope, func(t *testing.T) {
			token := hmacJWT(t, "alice", tt.scope)
			sid := g.initializeAs(token)
			core := g.coreOf(sid)
			args := core.Cmd.Args
			if tt.coreArgs == nil && (slices.Contains(args, "--read-only") || slices.Contains(args, "--disable-tools")) {
				t.Errorf("core arguments: got %q, want no restriction", args)
			}
			if tt.coreArgs != nil && !strings.Contains(strings.Join(args, "\x00")+"\x00", "\x00"+strings.Join(tt.coreArgs, "\x00")+"\x00") {
				t.Errorf("core arguments: got %q, want them to hold %q", args, tt.coreArgs)
			}
			tools := g.toolsAs(token, sid)
			if !slices.Contains(tools, "view") {
				t.Errorf("tools: got %v, want view among them", tools)
			}
			for _, name := range append(append([]string{}, writeOnly...), execOnly...) {
				if want := !slices.Contains(tt.absent, name); slices.Contains(tools, name) != want {
					t.Errorf("tools: got %v, want %s listed: %v", tools, name, want)
				}
			}
			pid := core.Cmd.Process.Pid
			for _, file := range []string{"cmdline", "environ"} {
				b, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, file))
				if err != nil {
					t.Fatal(err)
				}
				for name, secret := range map[string]string{"token": token, "JWT secret": authHMACSecret} {
					if bytes.Contains(b, []byte(secret)) {
						t.Errorf("/proc/%d/%s holds the %s, want it absent", pid, file, name)
					}
				}
				if bytes.Contains(b, []byte("BORIS_GATEWAY_")) {
					t.Errorf("/proc/%d/%s holds a BORIS_GATEWAY_ setting, want none", pid, file)
				}
			}
		})
	}
}

// TestAuthHijack: a session belongs to the subject that created it; another
// subject presenting its id gets 404 and the session is untouched.
func TestAuthHijack(t *testing.T) {
	g, _ := newAuthGateway(t, nil, "--token", "alice="+authAliceToken, "--token", "bob="+authBobToken)
	sid := g.initializeAs(authAliceToken)
	file := filepath.Join(g.dir, "alice.txt")
	if text, isErr := g.callAs(authAliceToken, sid, "create_file", map[string]any{"path": file, "content": "alice's\n"}); isErr {
		t.Fatalf("alice's create_file: got error %q", text)
	}
	bobSession := g.initializeAs(authBobToken)
	overwrite := callBody(9, "create_file", map[string]any{"path": file, "content": "bob was here\n"}, "")
	tests := []struct {
		name   string
		method string
		header http.Header
		body   string
		status int
	}{
		{"bob's tools/call", http.MethodPost, authHeader(authBobToken, sid), overwrite, 404},
		{"bob's notification", http.MethodPost, authHeader(authBobToken, sid), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, 404},
		{"bob's GET stream", http.MethodGet, header("Authorization", "Bearer "+authBobToken, "Mcp-Session-Id", sid, "Accept", "text/event-stream"), "", 404},
		{"bob's DELETE", http.MethodDelete, header("Authorization", "Bearer "+authBobToken, "Mcp-Session-Id", sid), "", 404},
		{"no token", http.MethodPost, postHeader(sid), overwrite, 401},
		{"alice's id in bob's session's place", http.MethodPost, authHeader(authAliceToken, bobSession), overwrite, 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := g.do(tt.method, tt.header, tt.body)
			if resp.StatusCode != tt.status {
				t.Fatalf("got %d %s, want %d", resp.StatusCode, body, tt.status)
			}
		})
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "alice's\n" {
		t.Errorf("alice's file: got %q, %v; want it unchanged", b, err)
	}
	if coreExited(g.coreOf(sid)) {
		t.Fatal("alice's core exited, want it running")
	}
	if text, isErr := g.callAs(authAliceToken, sid, "view", map[string]any{"path": file}); isErr || !strings.Contains(text, "alice's") {
		t.Errorf("alice's view after the attempts: got %q (error %v), want her file", text, isErr)
	}
}

// TestAuthWorkdirTemplate: each subject works in <root>/<sanitized sub>,
// created 0700, and hostile subjects cannot leave the root.
func TestAuthWorkdirTemplate(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "work")
	g, _ := newAuthGateway(t, nil, "--jwt-secret-file", authtest.WriteFile(t, "secret", []byte(authHMACSecret+"\n")),
		"--jwt-audience", authPublicURL, "--workdir-template", root+"/{sub}")
	subjects := []string{"alice", "../../etc", "..", ".", "a/b/../../../x", "/etc/passwd", "sp ace;$(id)", "x\x00y", strings.Repeat("../", 40)}
	seen := map[string]string{}
	for _, sub := range subjects {
		t.Run(fmt.Sprintf("%q", sub), func(t *testing.T) {
			token := hmacJWT(t, sub, "boris:read boris:exec")
			sid := g.initializeAs(token)
			out, isErr := g.callAs(token, sid, "bash", map[string]any{"command": "pwd"})
			pwd := absPathRe.FindString(out)
			if isErr || pwd == "" {
				t.Fatalf("bash pwd: got %q (error %v), want a directory", out, isErr)
			}
			if filepath.Dir(pwd) != root {
				t.Fatalf("bash pwd: got %q, want a directory directly in %s", pwd, root)
			}
			if want := filepath.Join(root, sanitizeSubject(auth.KindJWT, sub)); pwd != want {
				t.Errorf("bash pwd: got %q, want %q", pwd, want)
			}
			if other, dup := seen[pwd]; dup {
				t.Errorf("subjects %q and %q share %s", other, sub, pwd)
			}
			seen[pwd] = sub
			fi, err := os.Stat(pwd)
			if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
				t.Errorf("working directory: got %v, %v; want a directory with mode 0700", fi.Mode(), err)
			}
		})
	}
	entries, err := os.ReadDir(base)
	if err != nil || len(entries) != 1 || entries[0].Name() != "work" {
		t.Errorf("template root's parent: got %v, want only work/ (nothing escaped)", entries)
	}
}

// absPathRe finds the absolute path a `pwd` printed in a bash result.
var absPathRe = regexp.MustCompile(`(?m)^/.*$`)

// TestAuthWorkdirDistinctSubjects: two subjects never share a working
// directory, even when they differ only in characters the sanitizer
// replaces, in case, or when one is spelled like the other's directory
// under an earlier naming scheme.
func TestAuthWorkdirDistinctSubjects(t *testing.T) {
	root := filepath.Join(t.TempDir(), "work")
	g, _ := newAuthGateway(t, nil, "--jwt-secret-file", authtest.WriteFile(t, "secret", []byte(authHMACSecret)),
		"--jwt-audience", authPublicURL, "--workdir-template", root+"/{sub}")
	pairs := [][2]string{{"team/alice", "team_alice"}, {"auth0|42", "auth0_42"}, {"..", "_.."},
		{"team/alice", "team_alice-8b8fafbf563a"}, {"Alice", "alice"}}
	for _, pair := range pairs {
		t.Run(pair[0]+" vs "+pair[1], func(t *testing.T) {
			var dirs [2]string
			for i, sub := range pair {
				token := hmacJWT(t, sub, "boris:read boris:exec")
				out, isErr := g.callAs(token, g.initializeAs(token), "bash", map[string]any{"command": "pwd"})
				if dirs[i] = absPathRe.FindString(out); isErr || dirs[i] == "" {
					t.Fatalf("bash pwd as %q: got %q (error %v), want a directory", sub, out, isErr)
				}
			}
			if dirs[0] == dirs[1] {
				t.Errorf("subjects %q and %q both work in %s, want separate directories", pair[0], pair[1], dirs[0])
			}
		})
	}
}

// TestAuthJWTLeewayFlag: --jwt-leeway bounds the clock skew forgiven (30s
// by default); the token's claims are a generous 10 s off.
func TestAuthJWTLeewayFlag(t *testing.T) {
	now := time.Now()
	skewed := map[string]string{
		"exp 10s ago":    authtest.Sign(t, jwt.SigningMethodHS256, []byte(authHMACSecret), "", claimsFor("alice", "boris:read", "exp", now.Add(-10*time.Second).Unix())),
		"nbf in 10s":     authtest.Sign(t, jwt.SigningMethodHS256, []byte(authHMACSecret), "", claimsFor("alice", "boris:read", "nbf", now.Add(10*time.Second).Unix())),
		"exp 10 min ago": authtest.Sign(t, jwt.SigningMethodHS256, []byte(authHMACSecret), "", claimsFor("alice", "boris:read", "exp", now.Add(-10*time.Minute).Unix())),
	}
	secret := authtest.WriteFile(t, "secret", []byte(authHMACSecret))
	tests := []struct {
		leeway []string
		token  string
		ok     bool
	}{
		{nil, "exp 10s ago", true},
		{nil, "nbf in 10s", true},
		{nil, "exp 10 min ago", false},
		{[]string{"--jwt-leeway", "0s"}, "exp 10s ago", false},
		{[]string{"--jwt-leeway", "0s"}, "nbf in 10s", false},
		{[]string{"--jwt-leeway", "5m"}, "exp 10 min ago", false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%v %s", tt.leeway, tt.token), func(t *testing.T) {
			g, _ := newAuthGateway(t, nil, append([]string{"--jwt-secret-file", secret, "--jwt-audience", authPublicURL}, tt.leeway...)...)
			resp, body := g.do(http.MethodGet, header("Authorization", "Bearer "+skewed[tt.token], "Accept", "text/event-stream"), "")
			if got := resp.StatusCode != http.StatusUnauthorized; got != tt.ok {
				t.Errorf("got %d %s, want accepted: %v", resp.StatusCode, body, tt.ok)
			}
		})
	}
}

// TestAuthConfigRefusals: settings that would leave the gateway weaker than
// asked refuse to start with a one-line usage error (exit 2).
func TestAuthConfigRefusals(t *testing.T) {
	short := authtest.WriteFile(t, "short", []byte(authHMACSecret[:31]+"\n"))
	smallPEM := authtest.WritePublicKey(t, &authtest.Keys().RSASmall.PublicKey)
	shortFile := authtest.WriteFile(t, "tokens", []byte("# ok\nalice="+authAliceToken+"\nbob=short\n"))
	tests := []struct {
		name    string
		args    []string
		environ []string
		want    string
	}{
		{"HMAC secret file of 31 bytes", []string{"--jwt-secret-file", short, "--public-url", authPublicURL}, nil, "at least 32"},
		{"HMAC secret env of 31 bytes", []string{"--public-url", authPublicURL}, []string{"BORIS_GATEWAY_JWT_SECRET=" + authHMACSecret[:31]}, "at least 32"},
		{"--auth none on 0.0.0.0", []string{"--auth", "none", "--listen", "0.0.0.0:0"}, nil, "loopback"},
		{"--auth none on ::", []string{"--auth", "none", "--listen", "[::]:0"}, nil, "loopback"},
		{"--auth none with a token", []string{"--auth", "none", "--token", authAliceToken}, nil, "conflicts"},
		{"--auth something", []string{"--auth", "basic"}, nil, "--auth"},
		{"static token of 15 characters", []string{"--token", authAliceToken[:15]}, nil, "shorter than 16"},
		{"named static token too short", []string{"--token", "alice=short"}, nil, "shorter than 16"},
		{"token file with a short token", []string{"--token-file", shortFile}, nil, "shorter than 16"},
		{"missing token file", []string{"--token-file", filepath.Join(t.TempDir(), "absent")}, nil, "token"},
		{"JWT without an audience", []string{"--jwt-secret-file", authtest.WriteFile(t, "secret", []byte(authHMACSecret))}, nil, "audience"},
		{"RSA key of 1024 bits", []string{"--jwt-public-key", smallPEM, "--public-url", authPublicURL}, nil, "1024"},
		{"authorization server without a public URL", []string{"--authorization-server", authServer, "--token", authAliceToken}, nil, "--public-url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"--listen", "127.0.0.1:0"}, tt.args...)
			cfg, err := ParseConfig(args, tt.environ, io.Discard)
			if err == nil {
				_, err = cfg.authSetup(context.Background(), slog.New(slog.DiscardHandler))
			}
			if err == nil {
				t.Fatal("got nil, want a usage error")
			}
			if code := flagenv.ExitCode(err); code != 2 {
				t.Errorf("exit code: got %d (%v), want 2", code, err)
			}
			if msg := err.Error(); !strings.Contains(msg, tt.want) || strings.Contains(msg, "\n") {
				t.Errorf("got %q, want one line mentioning %q", msg, tt.want)
			}
		})
	}
}

// TestAuthNoneLoopback: --auth none is allowed on loopback addresses, and
// then nothing asks for a token.
func TestAuthNoneLoopback(t *testing.T) {
	for _, listen := range []string{"127.0.0.1:0", "localhost:0", "[::1]:0"} {
		cfg, err := ParseConfig([]string{"--auth", "none", "--listen", listen}, nil, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		as, err := cfg.authSetup(context.Background(), slog.New(slog.DiscardHandler))
		if err != nil || as.middleware != nil || as.generated != "" {
			t.Errorf("--auth none on %s: got %+v, %v; want no authentication", listen, as, err)
		}
	}
}

// TestAuthGenerateTokenFlag: --generate-token adds a working token to the
// configured ones and prints it once with client configurations.
func TestAuthGenerateTokenFlag(t *testing.T) {
	g, as := newAuthGateway(t, nil, "--generate-token", "--token", "alice="+authAliceToken)
	if len(as.generated) < 32 {
		t.Fatalf("generated token: got %q, want a long random token", as.generated)
	}
	for _, token := range []string{as.generated, authAliceToken} {
		resp, body := g.do(http.MethodGet, header("Authorization", "Bearer "+token, "Accept", "text/event-stream"), "")
		if resp.StatusCode == http.StatusUnauthorized {
			t.Errorf("token %.6s...: got 401 %s, want it accepted", token, body)
		}
	}
	var out strings.Builder
	printConnect(&out, g.url, as.generated, false)
	for _, want := range []string{as.generated, g.url, "Authorization: Bearer " + as.generated, "--dashboard-operator generated"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("connect instructions: got %q, want them to contain %q", out.String(), want)
		}
	}
}
