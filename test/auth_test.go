package test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/auth/authtest"
)

// Settings of the auth end-to-end tests.
const (
	authSecret   = "e2e-secret-0123456789abcdef012345"
	authAudience = "boris-e2e"
	authAlice    = "alice-e2e-token-0123456789"
	authBob      = "bob-e2e-token-0123456789ab"
)

// authGateway is a running boris-gateway.
type authGateway struct {
	t      *testing.T
	cmd    *exec.Cmd
	url    string // the MCP endpoint
	stderr *syncWriter
	exited chan struct{}
}

// startAuthGateway runs boris-gateway on 127.0.0.1:0 with args and env
// (over a clean environment) and waits until it listens. It is stopped with
// SIGTERM at the end of the test.
func startAuthGateway(t *testing.T, env []string, args ...string) *authGateway {
	t.Helper()
	return runAuthGateway(t, exec.Command(gatewayBin(t), append([]string{"--listen", "127.0.0.1:0"}, args...)...), env)
}

// runAuthGateway starts cmd, a boris-gateway, with env over a clean
// environment, and waits until it listens.
func runAuthGateway(t *testing.T, cmd *exec.Cmd, env []string) *authGateway {
	t.Helper()
	cmd.Env = cleanEnv(env...)
	g := &authGateway{t: t, cmd: cmd, stderr: &syncWriter{b: &strings.Builder{}}, exited: make(chan struct{})}
	cmd.Stderr = g.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = cmd.Wait()
		close(g.exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-g.exited:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-g.exited
			t.Errorf("boris-gateway still running 15 s after SIGTERM")
		}
	})
	waitFor(t, "boris-gateway to listen", func() bool {
		select {
		case <-g.exited:
			t.Fatalf("boris-gateway exited before listening: %s", g.stderr)
		default:
		}
		m := gatewayListeningRe.FindStringSubmatch(g.stderr.String())
		if m != nil {
			g.url = m[1]
		}
		return m != nil
	})
	return g
}

// status sends a GET for the standalone stream without a session: 401 when
// the token is refused, 405 (a GET names no session) once it is accepted. No core starts.
func (g *authGateway) status(token string) int {
	g.t.Helper()
	req, err := http.NewRequest(http.MethodGet, g.url, nil)
	if err != nil {
		g.t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		g.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// authBearerTransport adds an Authorization header to every request.
type authBearerTransport struct{ token string }

func (b authBearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// connect opens an MCP session through the gateway with token.
func (g *authGateway) connect(token string) *mcp.ClientSession {
	g.t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "boris-e2e-auth", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:             g.url,
		HTTPClient:           &http.Client{Transport: authBearerTransport{token}},
		DisableStandaloneSSE: true,
		MaxRetries:           -1,
	}, &mcp.ClientSessionOptions{ProtocolVersion: sessionRevision})
	if err != nil {
		g.t.Fatalf("connect with a token: %v\ngateway log:\n%s", err, g.stderr)
	}
	g.t.Cleanup(func() { _ = session.Close() })
	return session
}

// authHMACToken is a JWT for authAudience signed with authSecret.
func authHMACToken(t *testing.T, sub, scope string) string {
	t.Helper()
	return authtest.Sign(t, jwt.SigningMethodHS256, []byte(authSecret), "", authtest.Claims("", authAudience, sub, scope))
}

// listNames lists a session's tool names.
func listNames(t *testing.T, s *mcp.ClientSession) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var names []string
	for tool, err := range s.Tools(ctx, nil) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		names = append(names, tool.Name)
	}
	return names
}

// authChildren returns the pids of pid's live child processes.
func authChildren(pid int) []int {
	var kids []int
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil || isZombie(string(b)) {
			continue
		}
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			kid, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
			kids = append(kids, kid)
		}
	}
	return kids
}

// TestAuthScopeEndToEnd: a read-only token's core lists no bash, task or
// writing tools and cannot write; an exec+write token's core can run bash
// and create files. The token and the JWT secret (given to the gateway in
// its environment) reach no core's command line or environment.
func TestAuthScopeEndToEnd(t *testing.T) {
	dir := realTempDir(t)
	writeFile(t, filepath.Join(dir, "README"), "hello\n")
	g := startAuthGateway(t, []string{"BORIS_GATEWAY_JWT_SECRET=" + authSecret}, "--jwt-audience", authAudience, "--", "--workdir", dir)
	readToken := authHMACToken(t, "reader", "boris:read")
	fullToken := authHMACToken(t, "writer", "boris:read boris:write boris:exec")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	reader := g.connect(readToken)
	names := listNames(t, reader)
	if !slices.Contains(names, "view") {
		t.Errorf("read-only tools: got %v, want view among them", names)
	}
	for _, banned := range []string{"bash", "task_output", "task_stop", "str_replace", "create_file", "str_replace_editor"} {
		if slices.Contains(names, banned) {
			t.Errorf("read-only tools: got %v, want no %s", names, banned)
		}
	}
	res, err := reader.CallTool(ctx, &mcp.CallToolParams{Name: "create_file", Arguments: map[string]any{"path": "evil.txt", "content": "x"}})
	if err == nil && !res.IsError {
		t.Errorf("read-only create_file: got success %q, want refused", text(res))
	}
	if _, err := os.Stat(filepath.Join(dir, "evil.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("read-only create_file: stat got %v, want the file absent", err)
	}
	if res, err := reader.CallTool(ctx, &mcp.CallToolParams{Name: "view", Arguments: map[string]any{"path": "README"}}); err != nil || res.IsError || !strings.Contains(text(res), "hello") {
		t.Errorf("read-only view: got %v, %v; want README's contents", res, err)
	}

	writer := g.connect(fullToken)
	names = listNames(t, writer)
	for _, want := range []string{"bash", "view", "create_file", "str_replace"} {
		if !slices.Contains(names, want) {
			t.Errorf("exec+write tools: got %v, want %s among them", names, want)
		}
	}
	res, err = writer.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "echo ran > by-bash.txt && pwd"}})
	if err != nil || res.IsError || !strings.Contains(text(res), dir) {
		t.Errorf("bash: got %v, %v; want success in %s", res, err, dir)
	}
	res, err = writer.CallTool(ctx, &mcp.CallToolParams{Name: "create_file", Arguments: map[string]any{"path": "made.txt", "content": "made\n"}})
	if err != nil || res.IsError {
		t.Errorf("create_file: got %v, %v; want success", res, err)
	}
	if got := readFile(t, filepath.Join(dir, "made.txt")); got != "made\n" {
		t.Errorf("made.txt: got %q, want %q", got, "made\n")
	}
	if got := readFile(t, filepath.Join(dir, "by-bash.txt")); got != "ran\n" {
		t.Errorf("by-bash.txt: got %q, want %q", got, "ran\n")
	}

	cores := authChildren(g.cmd.Process.Pid)
	if len(cores) != 2 {
		t.Fatalf("cores: got pids %v, want 2 (one per session)", cores)
	}
	for _, pid := range cores {
		for _, file := range []string{"cmdline", "environ"} {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, file))
			if err != nil {
				t.Fatal(err)
			}
			for name, secret := range map[string]string{"read token": readToken, "full token": fullToken, "JWT secret": authSecret} {
				if bytes.Contains(b, []byte(secret)) {
					t.Errorf("/proc/%d/%s holds the %s, want it absent", pid, file, name)
				}
			}
		}
	}
}

// TestAuthHijackEndToEnd: subject B presenting subject A's session id gets
// 404; A's session keeps working and A's file is unchanged.
func TestAuthHijackEndToEnd(t *testing.T) {
	dir := realTempDir(t)
	g := startAuthGateway(t, nil, "--token", "alice="+authAlice, "--token", "bob="+authBob, "--", "--workdir", dir)
	alice := g.connect(authAlice)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	file := filepath.Join(dir, "alice.txt")
	if res, err := alice.CallTool(ctx, &mcp.CallToolParams{Name: "create_file", Arguments: map[string]any{"path": file, "content": "alice's\n"}}); err != nil || res.IsError {
		t.Fatalf("alice's create_file: got %v, %v", res, err)
	}
	body := `{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"create_file","arguments":{"path":` + strconv.Quote(file) + `,"content":"bob was here\n"}}}`
	req, err := http.NewRequest(http.MethodPost, g.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"Authorization": "Bearer " + authBob, "Mcp-Session-Id": alice.ID(), "MCP-Protocol-Version": "2025-06-18",
		"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
	} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("bob with alice's session id: got %d, want 404", resp.StatusCode)
	}
	if got := readFile(t, file); got != "alice's\n" {
		t.Errorf("alice's file: got %q, want it unchanged", got)
	}
	res, err := alice.CallTool(ctx, &mcp.CallToolParams{Name: "view", Arguments: map[string]any{"path": file}})
	if err != nil || res.IsError || !strings.Contains(text(res), "alice's") {
		t.Errorf("alice's session afterwards: got %v, %v; want her file", res, err)
	}
}

// TestAuthTokenFileSIGHUP: the token file (with comments) is re-read on
// SIGHUP: the new token works and the removed one gets 401.
func TestAuthTokenFileSIGHUP(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens")
	writeFile(t, file, "# Boris tokens\n\nalice="+authAlice+"\n# bob="+authBob+"\n")
	// Cores confined to their own directories: the token file is outside.
	g := startAuthGateway(t, nil, "--token-file", file, "--workdir-template", filepath.Join(t.TempDir(), "{sub}"))
	for token, want := range map[string]int{authAlice: 405, authBob: 401, "": 401} {
		if got := g.status(token); got != want {
			t.Errorf("before SIGHUP, token %.6q: got %d, want %d", token, got, want)
		}
	}
	writeFile(t, file, "# rotated\nbob="+authBob+"\n")
	if err := g.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the token file reloaded", func() bool { return strings.Contains(g.stderr.String(), "token file reloaded") })
	for token, want := range map[string]int{authAlice: 401, authBob: 405} {
		if got := g.status(token); got != want {
			t.Errorf("after SIGHUP, token %.6q: got %d, want %d", token, got, want)
		}
	}
}

// TestAuthStartupRefusals: settings that would weaken authentication stop
// the gateway at start-up with exit status 2 and one line on stderr.
func TestAuthStartupRefusals(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"--auth none on a non-loopback address", nil, []string{"--auth", "none", "--listen", "0.0.0.0:0"}, "loopback"},
		{"HMAC secret of 31 bytes", []string{"BORIS_GATEWAY_JWT_SECRET=" + authSecret[:31]}, []string{"--listen", "127.0.0.1:0", "--jwt-audience", authAudience}, "at least 32"},
		{"static token of 15 characters", nil, []string{"--listen", "127.0.0.1:0", "--token", authAlice[:15]}, "shorter than 16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, gatewayBin(t), tt.args...)
			cmd.Env = cleanEnv(tt.env...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err := cmd.Run()
			if ctx.Err() != nil {
				t.Fatalf("still running after 20 s, want a refusal at start-up; log:\n%s", stderr.String())
			}
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 {
				t.Errorf("got %v, want exit status 2", err)
			}
			got := stderr.String()
			if strings.Count(got, "\n") != 1 || !strings.Contains(got, tt.want) {
				t.Errorf("stderr: got %q, want one line mentioning %q", got, tt.want)
			}
		})
	}
}

var authGeneratedTokenRe = regexp.MustCompile(`Authorization: Bearer ([A-Za-z0-9_-]{32,})`)

// TestDefaultGeneratesToken: with nothing configured the gateway generates
// a token, prints it on stderr with a client configuration, and refuses
// requests without it (docs/reference/gateway.md#authentication: secure by default).
//
// It fails while gateway/authsetup.go keeps its TEMPORARY default (auth off
// on loopback when nothing is configured).
func TestDefaultGeneratesToken(t *testing.T) {
	g := startAuthGateway(t, nil)
	if got := g.status(""); got != http.StatusUnauthorized {
		t.Fatalf("without a token: got %d, want 401 (authentication on by default); log:\n%s", got, g.stderr)
	}
	var m []string
	waitFor(t, "a generated token on stderr", func() bool {
		m = authGeneratedTokenRe.FindStringSubmatch(g.stderr.String())
		return m != nil
	})
	if got := g.status(m[1]); got == http.StatusUnauthorized {
		t.Errorf("with the generated token: got 401, want it accepted")
	}
}

// TestAuthCritHeaderRefused: a validly signed JWT whose header lists a
// critical extension (RFC 7515 §4.1.11) is refused by the gateway, while
// the same claims without crit are accepted.
func TestAuthCritHeaderRefused(t *testing.T) {
	g := startAuthGateway(t, []string{"BORIS_GATEWAY_JWT_SECRET=" + authSecret}, "--jwt-audience", authAudience, "--", "--workdir", realTempDir(t))
	claims := authtest.Claims("", authAudience, "crit-user", "boris:read")
	if got := g.status(authHMACToken(t, "crit-user", "boris:read")); got != http.StatusMethodNotAllowed {
		t.Fatalf("control token without crit: got status %d, want %d (accepted)", got, http.StatusMethodNotAllowed)
	}
	for name, crit := range map[string]any{"unknown extension": []string{"b64x"}, "empty list": []string{}} {
		tok := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
		tok.Header["crit"], tok.Header["b64x"] = crit, false
		signed, err := tok.SignedString([]byte(authSecret))
		if err != nil {
			t.Fatal(err)
		}
		if got := g.status(signed); got != http.StatusUnauthorized {
			t.Errorf("%s: got status %d, want %d (the token refused)", name, got, http.StatusUnauthorized)
		}
	}
}
