package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mjkoo/boris/auth"
	"github.com/mjkoo/boris/auth/authtest"
)

// digestOf is the hash part of a hashed working directory name.
func digestOf(kind, sub string) string {
	sum := sha256.Sum256([]byte(kind + "\x00" + sub))
	return hex.EncodeToString(sum[:])[:32]
}

// TestSanitizeSubject: clean subjects keep their spelling (JWT ones behind
// "jwt+"); any other becomes a readable part, '~' and a digest of kind and
// subject.
func TestSanitizeSubject(t *testing.T) {
	a64, a65 := strings.Repeat("a", 64), strings.Repeat("a", 65)
	tests := []struct {
		kind, sub, want string
	}{
		{auth.KindToken, "alice", "alice"},
		{auth.KindJWT, "alice", "jwt+alice"},
		{auth.KindToken, "alice@example.com", "alice@example.com"},
		{auth.KindToken, "a.b-c_d9", "a.b-c_d9"},
		{auth.KindToken, a64, a64},
		{auth.KindJWT, "team_alice-8b8fafbf563a", "jwt+team_alice-8b8fafbf563a"},
		{auth.KindJWT, "team/alice", "jwt+team_alice~" + digestOf(auth.KindJWT, "team/alice")},
		{auth.KindToken, "team/alice", "team_alice~" + digestOf(auth.KindToken, "team/alice")},
		{auth.KindToken, "Alice", "alice~" + digestOf(auth.KindToken, "Alice")},
		{auth.KindToken, a65, a64[:48] + "~" + digestOf(auth.KindToken, a65)},
		{auth.KindToken, "", "~" + digestOf(auth.KindToken, "")},
		{auth.KindToken, ".", ".~" + digestOf(auth.KindToken, ".")},
		{auth.KindJWT, "..", "jwt+..~" + digestOf(auth.KindJWT, "..")},
		{auth.KindJWT, "../../etc", "jwt+.._.._etc~" + digestOf(auth.KindJWT, "../../etc")},
		{auth.KindJWT, "é\xff\x00", "jwt+___~" + digestOf(auth.KindJWT, "é\xff\x00")},
		{auth.KindJWT, "a~b+c", "jwt+a_b_c~" + digestOf(auth.KindJWT, "a~b+c")},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %q", tt.kind, tt.sub), func(t *testing.T) {
			if got := sanitizeSubject(tt.kind, tt.sub); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// safeName matches what sanitizeSubject may return.
var safeName = regexp.MustCompile(`^[a-z0-9._@~+-]{1,85}$`)

// checkSafeName fails unless name is one path element that no file system
// could take for another directory.
func checkSafeName(t *testing.T, kind, sub, name string) {
	t.Helper()
	if !safeName.MatchString(name) || name == "." || name == ".." || filepath.Base(name) != name || filepath.Clean(name) != name {
		t.Errorf("sanitizeSubject(%s, %q): got %q, want one path element of [a-z0-9._@~+-], at most 85 bytes", kind, sub, name)
	}
}

// subjectParts are the pieces random subjects are made of: the characters
// the scheme treats specially and spellings of its own names.
var subjectParts = []string{
	"a", "b", "A", "_", "-", ".", "..", "/", "@", "~", "+", "é", "\x00", "\xff", " ",
	"jwt+", "token+", "team_alice-8b8fafbf563a", "~0123456789abcdef0123456789abcdef",
}

// randomSubject joins up to n random parts, sometimes past the verbatim
// and transcription lengths.
func randomSubject(r *rand.Rand, n int) string {
	var b strings.Builder
	for range r.IntN(n + 1) {
		b.WriteString(subjectParts[r.IntN(len(subjectParts))])
	}
	if r.IntN(8) == 0 {
		b.WriteString(strings.Repeat("a", 40+r.IntN(40)))
	}
	return b.String()
}

// TestSanitizeSubjectInjective: among many random (kind, subject) pairs,
// and subjects spelled like other pairs' names (what a JWT issuer's user
// might pick to land in someone else's directory), no two distinct pairs
// share a name, and every name is a safe path element.
func TestSanitizeSubjectInjective(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 4))
	kinds := []string{auth.KindToken, auth.KindJWT}
	subjects := map[string]bool{}
	for range 5000 {
		subjects[randomSubject(r, 12)] = true
	}
	for _, sub := range []string{"", ".", "..", "alice", "Alice", "team/alice", "team_alice"} {
		subjects[sub] = true
	}
	var names []string // spelled as subjects, with and without the JWT prefix
	for sub := range subjects {
		for _, kind := range kinds {
			name := sanitizeSubject(kind, sub)
			names = append(names, name, strings.TrimPrefix(name, "jwt+"))
		}
	}
	for _, name := range names {
		subjects[name] = true
	}
	type pair struct{ kind, sub string }
	owner := map[string]pair{}
	for sub := range subjects {
		for _, kind := range kinds {
			name := sanitizeSubject(kind, sub)
			checkSafeName(t, kind, sub, name)
			if other, taken := owner[name]; taken {
				t.Errorf("sanitizeSubject(%s, %q) and (%s, %q): both got %q, want distinct names", other.kind, other.sub, kind, sub, name)
			}
			owner[name] = pair{kind, sub}
		}
	}
	if len(owner) != 2*len(subjects) {
		t.Errorf("got %d names for %d pairs, want one each", len(owner), 2*len(subjects))
	}
}

// FuzzSanitizeSubject: two distinct (kind, subject) pairs never share a
// name, and every name is a safe path element.
func FuzzSanitizeSubject(f *testing.F) {
	f.Add("team/alice", true, "team_alice-8b8fafbf563a", true)
	f.Add("alice", false, "alice", true)
	f.Add("Alice", false, "alice", false)
	f.Add("..", true, "", true)
	f.Fuzz(func(t *testing.T, sub1 string, jwt1 bool, sub2 string, jwt2 bool) {
		kind := func(jwt bool) string {
			if jwt {
				return auth.KindJWT
			}
			return auth.KindToken
		}
		k1, k2 := kind(jwt1), kind(jwt2)
		n1, n2 := sanitizeSubject(k1, sub1), sanitizeSubject(k2, sub2)
		checkSafeName(t, k1, sub1, n1)
		checkSafeName(t, k2, sub2, n2)
		if n1 == n2 && (k1 != k2 || sub1 != sub2) {
			t.Errorf("sanitizeSubject(%s, %q) and (%s, %q): both got %q, want distinct names", k1, sub1, k2, sub2, n1)
		}
	})
}

// TestPrincipalKeys: sessions bind to kind, subject and Boris scopes;
// quotas count kind and subject only.
func TestPrincipalKeys(t *testing.T) {
	full := []string{auth.ScopeRead, auth.ScopeWrite, auth.ScopeExec}
	jwtAlice := &auth.Identity{Kind: auth.KindJWT, Subject: "alice", Scopes: full}
	tests := []struct {
		name        string
		id          *auth.Identity
		sameSubject bool // SubjectKey equal to jwtAlice's
		sameKey     bool // Key equal to jwtAlice's
	}{
		{"the same identity", &auth.Identity{Kind: auth.KindJWT, Subject: "alice", Scopes: full}, true, true},
		{"scopes in another order, duplicated", &auth.Identity{Kind: auth.KindJWT, Subject: "alice", Scopes: []string{auth.ScopeExec, auth.ScopeRead, auth.ScopeWrite, auth.ScopeRead}}, true, true},
		{"other scopes besides", &auth.Identity{Kind: auth.KindJWT, Subject: "alice", Scopes: append([]string{"openid"}, full...)}, true, true},
		{"read scope only", &auth.Identity{Kind: auth.KindJWT, Subject: "alice", Scopes: []string{auth.ScopeRead}}, true, false},
		{"no exec", &auth.Identity{Kind: auth.KindJWT, Subject: "alice", Scopes: []string{auth.ScopeRead, auth.ScopeWrite}}, true, false},
		{"two scopes in one scp entry", &auth.Identity{Kind: auth.KindJWT, Subject: "alice", Scopes: []string{auth.ScopeExec, auth.ScopeRead + " " + auth.ScopeWrite}}, true, false},
		{"static token named alice", &auth.Identity{Kind: auth.KindToken, Subject: "alice", Scopes: full}, false, false},
		{"subject holding a NUL and a scope", &auth.Identity{Kind: auth.KindJWT, Subject: "alice\x00" + auth.ScopeExec, Scopes: []string{auth.ScopeRead, auth.ScopeWrite}}, false, false},
		{"another subject", &auth.Identity{Kind: auth.KindJWT, Subject: "bob", Scopes: full}, false, false},
	}
	wantSubject, wantKey := principalKeys(jwtAlice)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			subject, key := principalKeys(tt.id)
			if got := subject == wantSubject; got != tt.sameSubject {
				t.Errorf("SubjectKey %q equal to %q: got %v, want %v", subject, wantSubject, got, tt.sameSubject)
			}
			if got := key == wantKey; got != tt.sameKey {
				t.Errorf("Key %q equal to %q: got %v, want %v", key, wantKey, got, tt.sameKey)
			}
		})
	}
}

// TestPerSubjectDefault: MaxPerSubject defaults to a quarter of
// MaxSessions, at least 1.
func TestPerSubjectDefault(t *testing.T) {
	tests := []struct{ max, per, want int }{
		{0, 0, 16}, {8, 0, 2}, {2, 0, 1}, {1, 0, 1}, {8, 5, 5},
	}
	for _, tt := range tests {
		if got := withDefaults(Options{Settings: Settings{MaxSessions: tt.max, MaxPerSubject: tt.per}}).MaxPerSubject; got != tt.want {
			t.Errorf("MaxSessions %d, MaxPerSubject %d: got %d, want %d", tt.max, tt.per, got, tt.want)
		}
	}
}

// newQuotaGateway is newAuthGateway with the session limits of the
// configuration applied too, as Main applies them.
func newQuotaGateway(t *testing.T, args ...string) *testGateway {
	t.Helper()
	cfg, err := ParseConfig(append([]string{"--listen", "127.0.0.1:0"}, args...), nil, io.Discard)
	if err != nil {
		t.Fatalf("ParseConfig %v: %v", args, err)
	}
	as, err := cfg.authSetup(context.Background(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("authSetup %v: %v", args, err)
	}
	return newTestGateway(t, func(o *Options) {
		o.MaxSessions, o.MaxPerSubject = cfg.MaxSessions, cfg.MaxPerSubject
		o.Authenticate, o.Principal = as.middleware, cfg.principal
	})
}

// TestSessionBindsScopes: a session answers only the principal that made
// it: the same kind of token, the same subject and the same Boris scopes.
// Everyone else gets 404, and the session carries on.
func TestSessionBindsScopes(t *testing.T) {
	g := newQuotaGateway(t, "--token", "alice="+authAliceToken,
		"--jwt-secret-file", authtest.WriteFile(t, "secret", []byte(authHMACSecret)), "--jwt-audience", authPublicURL)
	full := hmacJWT(t, "alice", "boris:read boris:write boris:exec")
	sid := g.initializeAs(full)
	file := filepath.Join(g.dir, "alice.txt")
	if text, isErr := g.callAs(full, sid, "create_file", map[string]any{"path": file, "content": "alice's\n"}); isErr {
		t.Fatalf("create_file: got error %q", text)
	}
	overwrite := callBody(9, "create_file", map[string]any{"path": file, "content": "overwritten\n"}, "")
	others := map[string]string{
		"read-only JWT of alice":       hmacJWT(t, "alice", "boris:read"),
		"read and write JWT of alice":  hmacJWT(t, "alice", "boris:read boris:write"),
		"static token named alice":     authAliceToken,
		"full-scope JWT of team/alice": hmacJWT(t, "team/alice", "boris:read boris:write boris:exec"),
	}
	for name, token := range others {
		t.Run(name, func(t *testing.T) {
			for _, tt := range []struct {
				method string
				header http.Header
				body   string
			}{
				{http.MethodPost, authHeader(token, sid), overwrite},
				{http.MethodPost, authHeader(token, sid), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`},
				{http.MethodGet, header("Authorization", "Bearer "+token, "Mcp-Session-Id", sid, "Accept", "text/event-stream"), ""},
				{http.MethodDelete, header("Authorization", "Bearer "+token, "Mcp-Session-Id", sid), ""},
			} {
				if resp, body := g.do(tt.method, tt.header, tt.body); resp.StatusCode != http.StatusNotFound {
					t.Errorf("%s %.40s: got %d %s, want 404", tt.method, tt.body, resp.StatusCode, body)
				}
			}
		})
	}
	// Another token of the same principal (scopes reordered, an unrelated
	// scope added) is the same principal.
	again := hmacJWT(t, "alice", "openid boris:exec boris:write boris:read")
	if text, isErr := g.callAs(again, sid, "view", map[string]any{"path": file}); isErr || !strings.Contains(text, "alice's") {
		t.Errorf("view with another token of the same principal: got %q (error %v), want alice's file", text, isErr)
	}
	if coreExited(g.coreOf(sid)) {
		t.Fatal("alice's core exited, want it running")
	}
	if text, isErr := g.callAs(full, sid, "view", map[string]any{"path": file}); isErr || !strings.Contains(text, "alice's") {
		t.Errorf("alice's view after the attempts: got %q (error %v), want her file unchanged", text, isErr)
	}
}

// TestPerSubjectLimit: past --max-sessions-per-subject a subject's
// initialize gets 429 with Retry-After and no core, whatever the token's
// scopes; other subjects (a JWT's alice among them) still get sessions
// until the gateway is full (503); ending a session frees its subject's
// slot.
func TestPerSubjectLimit(t *testing.T) {
	const carol = "carol-token-0123456789"
	g := newQuotaGateway(t, "--max-sessions", "5", "--max-sessions-per-subject", "2",
		"--token", "alice="+authAliceToken, "--token", "carol="+carol,
		"--jwt-secret-file", authtest.WriteFile(t, "secret", []byte(authHMACSecret)), "--jwt-audience", authPublicURL)
	initialize := func(token string, want int) (*http.Response, []byte) {
		t.Helper()
		resp, body := g.do(http.MethodPost, authHeader(token, ""), initializeBody(1))
		if resp.StatusCode != want {
			t.Fatalf("initialize: got %d %s, want %d", resp.StatusCode, body, want)
		}
		return resp, body
	}
	first := g.initializeAs(authAliceToken)
	g.initializeAs(authAliceToken)
	resp, body := initialize(authAliceToken, http.StatusTooManyRequests)
	if ra := resp.Header.Get("Retry-After"); ra == "" || strings.Trim(ra, "0123456789") != "" || ra == "0" {
		t.Errorf("Retry-After: got %q, want a positive number of seconds", ra)
	}
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		t.Errorf("429 carries Mcp-Session-Id %q, want none", sid)
	}
	anyRPCError(t, resp, body)
	if !strings.Contains(string(body), "holds its maximum of 2 sessions") {
		t.Errorf("429 body: got %s, want it to say the subject holds its maximum of 2 sessions", body)
	}
	if n := len(g.cores()); n != 2 {
		t.Errorf("cores running: got %d, want 2 (none for the refused session)", n)
	}

	g.initializeAs(hmacJWT(t, "dave", "boris:read"))
	g.initializeAs(hmacJWT(t, "dave", "boris:read boris:write boris:exec"))
	initialize(hmacJWT(t, "dave", "boris:read boris:write"), http.StatusTooManyRequests)
	g.initializeAs(hmacJWT(t, "alice", "boris:read")) // not the static token's alice
	initialize(carol, http.StatusServiceUnavailable)

	if resp, body := g.do(http.MethodDelete, header("Authorization", "Bearer "+authAliceToken, "Mcp-Session-Id", first), ""); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: got %d %s, want 204", resp.StatusCode, body)
	}
	g.initializeAs(authAliceToken)
}
