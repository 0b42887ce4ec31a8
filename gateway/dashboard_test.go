package gateway

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mjkoo/boris/auth/authtest"
	"github.com/mjkoo/boris/gateway/dashboard"
)

// Tokens of the dashboard tests: two principals and an operator.
const (
	dashAlice = "alice-dash-token-0123456789"
	dashBob   = "bob-dash-token-0123456789ab"
	dashOps   = "ops-dash-token-0123456789ab"
)

// dashGateway is a testGateway wired as Main wires one, from a Config
// parsed from args, with its boards under a state directory of its own.
type dashGateway struct {
	*testGateway
	as    *authSetup
	state string // --state-dir
	base  string // http://127.0.0.1:PORT
}

// newDashGateway serves a gateway with the three tokens (ops an operator),
// the given flags added, and cores confined to their --workdir.
func newDashGateway(t *testing.T, args ...string) *dashGateway {
	t.Helper()
	state := t.TempDir()
	environ := []string{"HOME=" + t.TempDir()}
	args = append([]string{"--listen", "127.0.0.1:0", "--state-dir", state,
		"--token", "alice=" + dashAlice, "--token", "bob=" + dashBob, "--token", "ops=" + dashOps,
		"--dashboard-operator", "ops"}, args...)
	cfg, err := ParseConfig(args, environ, io.Discard)
	if err != nil {
		t.Fatalf("ParseConfig %v: %v", args, err)
	}
	as, err := cfg.authSetup(context.Background(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	shared, _ := cfg.sharedTasksDB()
	boards, err := cfg.boardsDir(environ)
	if err != nil {
		t.Fatal(err)
	}
	dash, err := cfg.dashboardOptions()
	if err != nil {
		t.Fatal(err)
	}
	g := newTestGateway(t, func(o *Options) {
		o.CoreArgs = append(o.CoreArgs, cfg.CoreArgs...)
		if cfg.WorkdirTemplate == "" {
			o.CoreArgs = append(o.CoreArgs, "--allow-dir", o.CoreArgs[1]) // the test's --workdir
		}
		o.Environ = environ
		o.PublicURL, o.Loopback = cfg.PublicURL, cfg.loopback()
		o.Authenticate, o.Principal, o.Metadata = as.middleware, cfg.principal, as.metadata
		o.TasksDB, o.BoardsDir, o.Dashboard = shared, boards, dash
	})
	return &dashGateway{testGateway: g, as: as, state: state, base: strings.TrimSuffix(g.url, "/mcp")}
}

// browser is a client that keeps cookies and does not follow redirects,
// as a browser tab of the dashboard.
type browser struct {
	t   *testing.T
	g   *dashGateway
	c   *http.Client
	jar *cookiejar.Jar
}

func (g *dashGateway) browser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	c := g.client()
	c.Jar = jar
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &browser{t: t, g: g, c: c, jar: jar}
}

// get fetches a dashboard path and returns the response and its body.
func (b *browser) get(path string, kv ...string) (*http.Response, string) {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, b.g.base+path, nil)
	for i := 0; i+1 < len(kv); i += 2 {
		req.Header.Set(kv[i], kv[i+1])
		if kv[i] == "Host" {
			req.Host = kv[i+1]
		}
	}
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// post sends a form as a same-origin page would, plus the headers kv
// (which replace those).
func (b *browser) post(path string, form url.Values, kv ...string) *http.Response {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, b.g.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", b.g.base)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			req.Header.Del(kv[i])
			continue
		}
		req.Header.Set(kv[i], kv[i+1])
	}
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatalf("POST %s: %v", path, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// login posts token to the login form and fails unless it is accepted.
func (b *browser) login(token string) *http.Cookie {
	b.t.Helper()
	resp := b.post("/dashboard/login", url.Values{"token": {token}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/dashboard" {
		b.t.Fatalf("login: got %d to %q, want 303 to /dashboard", resp.StatusCode, resp.Header.Get("Location"))
	}
	for _, c := range resp.Cookies() {
		return c
	}
	b.t.Fatal("login: got no cookie, want one")
	return nil
}

// state reads the viewer's state; ok is false when it was refused.
func (b *browser) state() (dashboard.State, bool) {
	b.t.Helper()
	resp, body := b.get("/dashboard/state")
	if resp.StatusCode != http.StatusOK {
		return dashboard.State{}, false
	}
	var st dashboard.State
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		b.t.Fatalf("state: %v in %s", err, body)
	}
	return st, true
}

// subjects lists the subjects of a state's cores, calls and boards.
func subjects(st dashboard.State) (cores, calls, boards []string) {
	for _, c := range st.Cores {
		cores = append(cores, c.Subject)
	}
	for _, c := range st.Calls {
		calls = append(calls, c.Subject)
	}
	for _, b := range st.Boards {
		boards = append(boards, b.Subject)
	}
	return cores, calls, boards
}

// TestDashboardLogin: no cookie gets the login form and no data; a wrong
// token, a cross-site POST or a forged cookie gets no login; a good token
// gets an HttpOnly, SameSite=Strict cookie scoped to /dashboard; logging
// out ends the login.
func TestDashboardLogin(t *testing.T) {
	g := newDashGateway(t)
	sid := g.initializeAs(dashAlice)
	g.callAs(dashAlice, sid, "create_task", map[string]any{"description": "alice's secret plan"})
	b := g.browser(t)

	resp, body := b.get("/dashboard")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `action="/dashboard/login"`) || strings.Contains(body, "secret plan") {
		t.Errorf("GET /dashboard without a cookie: got %d %q, want 200 with the login form and no data", resp.StatusCode, body)
	}
	for _, path := range []string{"/dashboard/state", "/dashboard/events"} {
		if resp, body := b.get(path); resp.StatusCode != http.StatusUnauthorized || strings.Contains(body, "alice") {
			t.Errorf("GET %s without a cookie: got %d %q, want 401 without data", path, resp.StatusCode, body)
		}
	}
	refused := []struct {
		name string
		form url.Values
		kv   []string
		want int
	}{
		{"wrong token", url.Values{"token": {"alice-dash-token-0123456780"}}, nil, http.StatusUnauthorized},
		{"no token", url.Values{}, nil, http.StatusUnauthorized},
		{"token in the query only", url.Values{}, nil, http.StatusUnauthorized},
		{"cross-site fetch", url.Values{"token": {dashAlice}}, []string{"Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"}, http.StatusForbidden},
		{"other origin, no fetch metadata", url.Values{"token": {dashAlice}}, []string{"Sec-Fetch-Site", "", "Origin", "http://evil.example"}, http.StatusForbidden},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			path := "/dashboard/login"
			if tt.name == "token in the query only" {
				path += "?token=" + dashAlice
			}
			resp := b.post(path, tt.form, tt.kv...)
			if resp.StatusCode != tt.want || len(resp.Cookies()) != 0 {
				t.Errorf("got %d with cookies %v, want %d and none", resp.StatusCode, resp.Cookies(), tt.want)
			}
			if _, ok := b.state(); ok {
				t.Error("state after a refused login: got it, want 401")
			}
		})
	}

	forged := g.browser(t)
	u, _ := url.Parse(g.base + "/dashboard")
	forged.jar.SetCookies(u, []*http.Cookie{{Name: "boris_dashboard", Value: strings.Repeat("ab", 32), Path: "/dashboard"}})
	if _, ok := forged.state(); ok {
		t.Error("state with a forged cookie: got it, want 401")
	}

	c := b.login(dashAlice)
	if c.Name != "boris_dashboard" || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/dashboard" || c.Secure || len(c.Value) != 64 {
		t.Errorf("cookie: got %+v, want boris_dashboard, HttpOnly, SameSite=Strict, Path=/dashboard, not Secure over plain HTTP, 256 bits", c)
	}
	if strings.Contains(c.Value, dashAlice) {
		t.Errorf("cookie %q holds the token", c.Value)
	}
	st, ok := b.state()
	if !ok || st.Viewer.Subject != "alice" || st.Viewer.Operator {
		t.Fatalf("state after login: got %+v (%v), want alice, not an operator", st.Viewer, ok)
	}
	if resp, body := b.get("/dashboard"); resp.StatusCode != http.StatusOK || !strings.Contains(body, "alice&#39;s secret plan") {
		t.Errorf("page after login: got %d, want alice's task in it:\n%s", resp.StatusCode, body)
	}
	if resp := b.post("/dashboard/logout", nil, "Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-site logout: got %d, want 403", resp.StatusCode)
	}
	if resp := b.post("/dashboard/logout", nil); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("logout: got %d, want 303", resp.StatusCode)
	}
	stolen := g.browser(t) // the old cookie, replayed after logout
	stolen.jar.SetCookies(u, []*http.Cookie{{Name: c.Name, Value: c.Value, Path: "/dashboard"}})
	if _, ok := stolen.state(); ok {
		t.Error("state with a logged-out cookie: got it, want 401")
	}
}

// TestDashboardSecureCookie: behind TLS (an https public URL) the cookie is
// Secure and named __Secure-, which browsers accept only over TLS.
func TestDashboardSecureCookie(t *testing.T) {
	g := newDashGateway(t, "--public-url", "https://boris.example.test/mcp")
	c := g.browser(t).login(dashAlice)
	if !c.Secure || c.Name != "__Secure-boris_dashboard" || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode {
		t.Errorf("cookie: got %+v, want __Secure-boris_dashboard, Secure, HttpOnly, SameSite=Strict", c)
	}
}

// TestDashboardPrincipals: a principal sees its own cores, calls and board
// and nothing of another's, even by guessing; an operator sees all.
func TestDashboardPrincipals(t *testing.T) {
	g := newDashGateway(t)
	for _, tok := range []string{dashAlice, dashBob} {
		sid := g.initializeAs(tok)
		who := strings.SplitN(tok, "-", 2)[0]
		g.callAs(tok, sid, "create_task", map[string]any{"description": who + "'s task"})
	}
	alice, bob, ops := g.browser(t), g.browser(t), g.browser(t)
	alice.login(dashAlice)
	bob.login(dashBob)
	ops.login(dashOps)

	for _, tt := range []struct {
		b    *browser
		who  string
		want []string
	}{{alice, "alice", []string{"alice"}}, {bob, "bob", []string{"bob"}}, {ops, "ops", []string{"alice", "bob"}}} {
		t.Run(tt.who, func(t *testing.T) {
			st, ok := tt.b.state()
			if !ok {
				t.Fatal("state: refused")
			}
			cores, calls, boards := subjects(st)
			wantBoards := tt.want
			if tt.who == "ops" { // its own (empty) board too
				wantBoards = []string{"alice", "bob", "ops"}
			}
			for what, got := range map[string][]string{"cores": cores, "calls": calls, "boards": boards} {
				want := tt.want
				if what == "boards" {
					want = wantBoards
				}
				if diff := cmp.Diff(want, slices.Sorted(slices.Values(got))); diff != "" {
					t.Errorf("%s (-want +got):\n%s", what, diff)
				}
			}
			_, page := tt.b.get("/dashboard")
			for _, other := range []string{"alice", "bob"} {
				if want := tt.who == "ops" || tt.who == other; strings.Contains(page, other+"&#39;s task") != want {
					t.Errorf("page holds %s's task: got %v, want %v", other, !want, want)
				}
			}
			for _, b := range st.Boards {
				if (b.Path != "") != (tt.who == "ops") {
					t.Errorf("board path %q shown to %s: want it for operators only", b.Path, tt.who)
				}
			}
		})
	}
}

// TestDashboardRevokedToken: a login lives only as long as its token: a
// token taken out of the token file (SIGHUP) ends its dashboard login.
func TestDashboardRevokedToken(t *testing.T) {
	file := authtest.WriteFile(t, "tokens", []byte("carol=carol-dash-token-0123456789\n"))
	g := newDashGateway(t, "--token-file", file)
	b := g.browser(t)
	b.login("carol-dash-token-0123456789")
	if _, ok := b.state(); !ok {
		t.Fatal("state: refused before the token was revoked")
	}
	if err := os.WriteFile(file, []byte("# carol left\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := g.as.static.Reload(); err != nil {
		t.Fatal(err)
	}
	if _, ok := b.state(); ok {
		t.Error("state after the token was revoked: got it, want 401")
	}
}

// TestDashboardHeaders: every dashboard answer has a strict CSP and the
// page has no inline script or style for it to forbid; a DNS-rebinding
// Host is refused; the script is a file served with a JavaScript type.
func TestDashboardHeaders(t *testing.T) {
	g := newDashGateway(t)
	b := g.browser(t)
	b.login(dashAlice)
	_, page := b.get("/dashboard")
	for _, path := range []string{"/dashboard", "/dashboard/state", "/dashboard/static/app.js", "/dashboard/static/app.css"} {
		resp, _ := b.get(path)
		csp := resp.Header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "form-action 'self'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: CSP %q, want %s in it", path, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-") || resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: got CSP %q, nosniff %q, cache %q; want no unsafe- source, nosniff, no-store", path, csp,
				resp.Header.Get("X-Content-Type-Options"), resp.Header.Get("Cache-Control"))
		}
	}
	if resp, _ := b.get("/dashboard/static/app.js"); !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") {
		t.Errorf("app.js: Content-Type %q, want text/javascript", resp.Header.Get("Content-Type"))
	}
	for _, tag := range regexp.MustCompile(`<script[^>]*>(</script>)?`).FindAllStringSubmatch(page, -1) {
		if !strings.Contains(tag[0], ` src="/dashboard/static/`) || tag[1] == "" {
			t.Errorf("page has an inline script: %q", tag[0])
		}
	}
	if attr := regexp.MustCompile(`\sstyle=|\son[a-z]+=|<style`); attr.MatchString(page) {
		t.Errorf("page has an inline style or event handler: %q", attr.FindString(page))
	}
	for _, host := range []string{"evil.example", "evil.example:80"} {
		if resp, _ := b.get("/dashboard", "Host", host); resp.StatusCode != http.StatusForbidden {
			t.Errorf("Host %s: got %d, want 403", host, resp.StatusCode)
		}
	}
}

// TestDashboardEscapes: a task description and a tool name that are HTML
// reach the page as text.
func TestDashboardEscapes(t *testing.T) {
	g := newDashGateway(t)
	sid := g.initializeAs(dashAlice)
	const evil = `<script>alert(1)</script><img src=x onerror=alert(2)>`
	g.callAs(dashAlice, sid, "create_task", map[string]any{"description": evil})
	b := g.browser(t)
	b.login(dashAlice)
	_, page := b.get("/dashboard")
	if strings.Contains(page, "<script>alert") || strings.Contains(page, "<img") {
		t.Fatalf("page holds the description as HTML:\n%s", page)
	}
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;") {
		t.Errorf("page: want the description escaped in it:\n%s", page)
	}
	st, _ := b.state()
	if len(st.Boards) != 1 || len(st.Boards[0].Tasks) != 1 || st.Boards[0].Tasks[0].Description != evil {
		t.Errorf("state: got boards %+v, want the description byte for byte", st.Boards)
	}
}

// TestDashboardEventsLive: the stream sends a state at once and another
// when a session starts, without the client asking again.
func TestDashboardEventsLive(t *testing.T) {
	g := newDashGateway(t)
	b := g.browser(t)
	b.login(dashAlice)
	req, _ := http.NewRequest(http.MethodGet, g.base+"/dashboard/events", nil)
	resp, err := b.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q, want text/event-stream", ct)
	}
	events := readSSE(resp.Body)
	next := func() dashboard.State {
		t.Helper()
		item := nextItem(t, events)
		var st dashboard.State
		if json.Unmarshal([]byte(item.data), &st) != nil || st.Now.IsZero() {
			t.Fatalf("event: got %q, want a state", item.data)
		}
		return st
	}
	if st := next(); len(st.Cores) != 0 {
		t.Fatalf("first state: got cores %+v, want none", st.Cores)
	}
	sid := g.initializeAs(dashAlice)
	g.callAs(dashAlice, sid, "create_task", map[string]any{"description": "seen live"})
	for {
		st := next()
		if len(st.Calls) > 0 && st.Calls[0].Tool == "create_task" && len(st.Cores) == 1 && st.Cores[0].Session == sid[:8] &&
			len(st.Boards) == 1 && len(st.Boards[0].Tasks) == 1 {
			break
		}
	}
}

// TestBoardOf: where each principal's board lies, and the core arguments
// that put it there.
func TestBoardOf(t *testing.T) {
	alice := Principal{Subject: "alice", SubjectKey: "token\x00alice"}
	jwtAlice := Principal{Subject: "alice", SubjectKey: "jwt\x00alice"}
	odd := Principal{Subject: "../bob", SubjectKey: "token\x00../bob"}
	env := []string{"HOME=/home/gw"}
	tests := []struct {
		name     string
		opts     Options
		p        Principal
		environ  []string
		wantPath string
		wantArgs []string
	}{
		{"state dir", Options{BoardsDir: "/state/boards"}, alice, env, "/state/boards/alice/boris.db", []string{"--tasks-db", "/state/boards/alice/boris.db"}},
		{"JWT subject apart", Options{BoardsDir: "/state/boards"}, jwtAlice, env, "/state/boards/jwt+alice/boris.db", []string{"--tasks-db", "/state/boards/jwt+alice/boris.db"}},
		{"hostile subject", Options{BoardsDir: "/state/boards"}, odd, env, "/state/boards/" + sanitizeSubject("token", "../bob") + "/boris.db", []string{"--tasks-db", "/state/boards/" + sanitizeSubject("token", "../bob") + "/boris.db"}},
		{"template", Options{BoardsDir: "/state/boards"}, Principal{Subject: "alice", SubjectKey: "token\x00alice", Workdir: "/srv/work/alice"}, env, "/state/boards/alice/boris.db", []string{"--tasks-db", "/state/boards/alice/boris.db"}},
		{"shared", Options{TasksDB: "/srv/team.db", BoardsDir: "/state/boards"}, alice, env, "/srv/team.db", []string{"--tasks-db", "/srv/team.db"}},
		{"anonymous", Options{}, Principal{}, env, "/home/gw/.boris/boris.db", nil},
		{"operator's core flag", Options{BoardsDir: "/state/boards", CoreArgs: []string{"--tasks-db=/srv/x.db"}}, alice, env, "/srv/x.db", nil},
		{"operator's environment", Options{BoardsDir: "/state/boards"}, alice, append(env, "BORIS_TASKS_DB=~/t.db"), "/home/gw/t.db", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &starter{opts: tt.opts}
			path, args := h.boardOf(tt.p, tt.environ)
			if path != tt.wantPath || strings.Join(args, " ") != strings.Join(tt.wantArgs, " ") {
				t.Errorf("got %q %q, want %q %q", path, args, tt.wantPath, tt.wantArgs)
			}
			if filepath.Clean(path) != path || !filepath.IsAbs(path) {
				t.Errorf("path %q: want it absolute and clean", path)
			}
		})
	}
}

// TestDashboardBoardFresh: a task added to a board the dashboard has
// already read shows at the next read.
func TestDashboardBoardFresh(t *testing.T) {
	g := newDashGateway(t)
	sid := g.initializeAs(dashAlice)
	b := g.browser(t)
	b.login(dashAlice)
	for i := 1; i <= 3; i++ {
		g.callAs(dashAlice, sid, "create_task", map[string]any{"description": "task"})
		st, _ := b.state()
		if len(st.Boards) != 1 || len(st.Boards[0].Tasks) != i || st.Boards[0].Counts["pending"] != i {
			t.Fatalf("after %d creates: got boards %+v, want %d tasks", i, st.Boards, i)
		}
	}
}
