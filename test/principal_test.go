package test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// principalFull is every Boris scope.
const principalFull = "boris:read boris:write boris:exec"

// do sends a raw request to the MCP endpoint with token (and sid, when not
// empty) and reads the whole response.
func (g *authGateway) do(method, token, sid, body string) (*http.Response, []byte) {
	g.t.Helper()
	req, err := http.NewRequest(method, g.url, strings.NewReader(body))
	if err != nil {
		g.t.Fatal(err)
	}
	req.Header = gwHeader(sid, "Authorization", "Bearer "+token, "MCP-Protocol-Version", "2025-06-18")
	resp, err := gwClient.Do(req)
	if err != nil {
		g.t.Fatalf("%s %s: %v", method, g.url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		g.t.Fatalf("%s: read body: %v", method, err)
	}
	return resp, b
}

// principalBash runs command in s and returns its standard output, failing
// the test unless it exits 0 with nothing on standard error.
func principalBash(t *testing.T, s *mcp.ClientSession, command string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": command}})
	if err != nil || res.IsError {
		t.Fatalf("bash %q: got %v, %v; want success", command, res, err)
	}
	// A note of the checkpoints may follow (the first command of a session
	// on a busy machine can run while the tree's starting checkpoint is
	// taken): these tests are about where commands run, not about it.
	body, _, _ := strings.Cut(text(res), "\n[checkpoint]")
	out, ok := strings.CutSuffix(body, "exit_code: 0")
	if !ok || strings.Contains(out, "stderr:\n") {
		t.Fatalf("bash %q: got %q, want exit code 0 and no stderr", command, text(res))
	}
	return strings.TrimSpace(strings.TrimPrefix(out, "stdout:\n"))
}

// TestPrincipalWorkdirs: subjects that collided before get directories of
// their own under --workdir-template: a JWT sub "team/alice" and a JWT sub
// spelled like the old name of its directory, and a static token named
// alice and a JWT sub alice. A file made in one directory is absent from
// every other.
func TestPrincipalWorkdirs(t *testing.T) {
	root := filepath.Join(realTempDir(t), "work")
	g := startAuthGateway(t, []string{"BORIS_GATEWAY_JWT_SECRET=" + authSecret},
		"--jwt-audience", authAudience, "--token", "alice="+authAlice, "--workdir-template", root+"/{sub}")
	principals := []struct {
		name  string
		token string
		dir   *regexp.Regexp // the directory's name under root
	}{
		{"JWT team/alice", authHMACToken(t, "team/alice", principalFull), regexp.MustCompile(`^jwt\+team_alice~[0-9a-f]{32}$`)},
		{"JWT team_alice-8b8fafbf563a", authHMACToken(t, "team_alice-8b8fafbf563a", principalFull), regexp.MustCompile(`^jwt\+team_alice-8b8fafbf563a$`)},
		{"static token alice", authAlice, regexp.MustCompile(`^alice$`)},
		{"JWT alice", authHMACToken(t, "alice", principalFull), regexp.MustCompile(`^jwt\+alice$`)},
	}
	sessions := make([]*mcp.ClientSession, len(principals))
	dirs := map[string]string{}
	for i, p := range principals {
		sessions[i] = g.connect(p.token)
		pwd := principalBash(t, sessions[i], "touch made-by-"+strconv.Itoa(i)+" && pwd")
		if filepath.Dir(pwd) != root || !p.dir.MatchString(filepath.Base(pwd)) {
			t.Errorf("%s works in %q, want %s/ and a name matching %s", p.name, pwd, root, p.dir)
		}
		if other, dup := dirs[pwd]; dup {
			t.Errorf("%s and %s both work in %s, want separate directories", other, p.name, pwd)
		}
		dirs[pwd] = p.name
	}
	for i, p := range principals {
		if got, want := strings.Fields(principalBash(t, sessions[i], "ls -d made-by-*")), "made-by-"+strconv.Itoa(i); len(got) != 1 || got[0] != want {
			t.Errorf("%s's directory holds %v, want only %s", p.name, got, want)
		}
	}
	if static, jwt := sessions[2].ID(), sessions[3].ID(); static == jwt {
		t.Errorf("static alice and JWT alice share session %s, want two", static)
	}
}

// TestPrincipalScopeBinding: a read-scope JWT of subject X presenting the
// session id of X's full-scope session gets 404 on POST and DELETE, and so
// does the static token named like X; the session keeps working for X.
func TestPrincipalScopeBinding(t *testing.T) {
	dir := realTempDir(t)
	g := startAuthGateway(t, []string{"BORIS_GATEWAY_JWT_SECRET=" + authSecret},
		"--jwt-audience", authAudience, "--token", "alice="+authAlice, "--", "--workdir", dir)
	owner := g.connect(authHMACToken(t, "alice", principalFull))
	file := filepath.Join(dir, "alice.txt")
	principalBash(t, owner, "echo alice > "+file)
	call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": map[string]any{
		"name": "view", "arguments": map[string]any{"path": file}}})
	for name, token := range map[string]string{
		"read-scope JWT of alice":  authHMACToken(t, "alice", "boris:read"),
		"static token named alice": authAlice,
	} {
		for _, method := range []string{http.MethodPost, http.MethodDelete} {
			body := string(call)
			if method == http.MethodDelete {
				body = ""
			}
			if resp, b := g.do(method, token, owner.ID(), body); resp.StatusCode != http.StatusNotFound {
				t.Errorf("%s %s with the full-scope session's id: got %d %s, want 404", name, method, resp.StatusCode, b)
			}
		}
	}
	if out := principalBash(t, owner, "cat "+file); out != "alice" {
		t.Errorf("the owner's session afterwards: got %q, want %q", out, "alice")
	}
}

// TestPrincipalSessionQuota: with --max-sessions 8 --max-sessions-per-subject 2
// a subject's third initialize gets 429 with Retry-After and a JSON-RPC
// error; another subject still gets a session.
func TestPrincipalSessionQuota(t *testing.T) {
	g := startAuthGateway(t, nil, "--max-sessions", "8", "--max-sessions-per-subject", "2",
		"--token", "alice="+authAlice, "--token", "bob="+authBob, "--", "--workdir", realTempDir(t))
	initialize := func(token string) (*http.Response, []byte) {
		t.Helper()
		return g.do(http.MethodPost, token, "", gwInitialize)
	}
	for i := range 2 {
		if resp, body := initialize(authAlice); resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
			t.Fatalf("alice's initialize %d: got %d %s, want 200 and a session id", i+1, resp.StatusCode, body)
		}
	}
	resp, body := initialize(authAlice)
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("alice's third initialize: got %d %s, want 429", resp.StatusCode, body)
	}
	if ra, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || ra <= 0 {
		t.Errorf("Retry-After: got %q, want a positive number of seconds", resp.Header.Get("Retry-After"))
	}
	var msg struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &msg); err != nil || msg.Error == nil || !strings.Contains(msg.Error.Message, "maximum of 2 sessions") {
		t.Errorf("429 body: got %s, want a JSON-RPC error saying the subject holds its maximum of 2 sessions", body)
	}
	if resp, body := initialize(authBob); resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
		t.Errorf("bob's initialize: got %d %s, want 200 and a session id", resp.StatusCode, body)
	}
}

// TestPrincipalOperatorRestrictionsKept: the restrictions a token's scopes
// imply add to the operator's core settings, never replace them: with
// BORIS_DISABLE_TOOLS=grep for every core (from the environment, where a
// scope-derived --disable-tools flag used to win over it), a token without
// boris:exec still gets no grep, and a full token no grep either.
func TestPrincipalOperatorRestrictionsKept(t *testing.T) {
	dir := realTempDir(t)
	g := startAuthGateway(t, []string{"BORIS_GATEWAY_JWT_SECRET=" + authSecret, "BORIS_DISABLE_TOOLS=grep"},
		"--jwt-audience", authAudience, "--", "--workdir", dir)
	for _, scope := range []string{"boris:read", "boris:read boris:write", principalFull} {
		t.Run(scope, func(t *testing.T) {
			names := listNames(t, g.connect(authHMACToken(t, "op-"+strings.ReplaceAll(scope, " ", "-"), scope)))
			if slices.Contains(names, "grep") {
				t.Errorf("tools: got %v, want no grep (the operator disabled it)", names)
			}
			if wantBash := strings.Contains(scope, "boris:exec"); slices.Contains(names, "bash") != wantBash {
				t.Errorf("tools: got %v, want bash=%v", names, wantBash)
			}
			if !slices.Contains(names, "glob") {
				t.Errorf("tools: got %v, want glob kept", names)
			}
		})
	}
}
