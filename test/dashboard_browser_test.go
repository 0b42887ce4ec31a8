package test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Tokens of the dashboard's browser test.
const (
	browserAlice = "alice-browser-token-0123456789"
	browserBob   = "bob-browser-token-0123456789ab"
)

// startDashGateway runs boris-gateway with two static tokens (alice and
// bob), each principal's board under its own --state-dir, and cores
// confined to a fresh --workdir.
func startDashGateway(t *testing.T) *gatewayProc {
	t.Helper()
	dir := realTempDir(t)
	args := []string{"--listen", "127.0.0.1:0", "--state-dir", realTempDir(t),
		"--token", "alice=" + browserAlice, "--token", "bob=" + browserBob,
		"--", "--workdir", dir, "--allow-dir", dir}
	cmd := exec.Command(gatewayBin(t), args...)
	cmd.Env = cleanEnv("HOME=" + realTempDir(t))
	return runGatewayProc(t, cmd, dir, false)
}

// mcpAs opens a session with token and returns a function calling tools
// in it, each call answered before it returns.
func mcpAs(t *testing.T, g *gatewayProc, token string) (sid string, call func(tool string, args map[string]any) string) {
	t.Helper()
	auth := []string{"Authorization", "Bearer " + token}
	resp, body := g.do(http.MethodPost, gwHeader("", auth...), gwInitialize)
	sid = resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: got %d %s", resp.StatusCode, body)
	}
	g.do(http.MethodPost, gwHeader(sid, auth...), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	id := 1
	return sid, func(tool string, args map[string]any) string {
		id++
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
			"params": map[string]any{"name": tool, "arguments": args}})
		resp, body := g.do(http.MethodPost, gwHeader(sid, auth...), string(b))
		if resp.StatusCode != http.StatusOK {
			t.Errorf("tools/call %s: got %d %s", tool, resp.StatusCode, body)
		}
		return string(body)
	}
}

// login opens the dashboard in a fresh browser context and logs in with
// token through the form, as a person would.
func login(b *browser, base, token string) *page {
	p := b.newPage()
	p.navigate(base + "/dashboard")
	p.await("the login form", "document.readyState === 'complete' && document.getElementById('token')")
	p.eval("document.getElementById('token').value = "+jsString(token)+"; document.querySelector('form').submit(); true", nil)
	p.await("the live dashboard", "document.getElementById('live').textContent === 'live'")
	// Set once: a reload would lose them.
	p.eval(`window.__noReload = true; window.__csp = [];
		document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.violatedDirective)); true`, nil)
	return p
}

// TestDashboardBrowser: headless Chromium logs in to the dashboard, sees a
// session appear, a tool call in progress with its elapsed time counting,
// the call finish and a task appear, all without reloading; a task whose
// description is HTML shows as text and runs nothing; the page keeps its
// strict CSP without a violation; another principal sees none of it; and
// an unauthenticated request gets no data.
func TestDashboardBrowser(t *testing.T) {
	b := startBrowser(t)
	g := startDashGateway(t)
	base := strings.TrimSuffix(g.url, "/mcp")

	resp, err := http.Get(base + "/dashboard/state")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || strings.Contains(string(body), "alice") {
		t.Errorf("unauthenticated /dashboard/state: got %d %q, want 401 and no data", resp.StatusCode, body)
	}
	resp, err = http.Get(base + "/dashboard")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "unsafe") {
		t.Errorf("Content-Security-Policy: got %q, want default-src 'none' and script-src 'self', nothing unsafe", csp)
	}

	alice := login(b, base, browserAlice)
	sid, call := mcpAs(t, g, browserAlice)
	row := `document.querySelector('#cores tr[data-session="` + sid[:8] + `"]')`
	alice.await("alice's session to appear", row+" && window.__noReload")

	release := filepath.Join(g.dir, "release-"+sid[:8])
	done := make(chan string, 1)
	go func() {
		done <- call("bash", map[string]any{"command": "while [ ! -e " + release + " ]; do sleep 0.05; done; echo released"})
	}()
	elapsed := row + `.querySelector('.call [data-since]')`
	alice.await("the bash call in progress", row+`.querySelector('.call .tool').textContent === 'bash'`)
	alice.await("its elapsed time to count past a second", "/^[1-9][0-9]*s$/.test("+elapsed+".textContent) && window.__noReload")
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if out := <-done; !strings.Contains(out, "released") {
		t.Fatalf("bash: got %s", out)
	}
	alice.await("the call to finish and be listed", `!`+row+`.querySelector('.call') &&
		document.querySelector('#calls tr td.tool').textContent === 'bash' &&
		document.querySelector('#calls tr td.outcome-ok') && window.__noReload`)

	const evil = `<script>alert(1)</script>`
	call("create_task", map[string]any{"description": evil})
	task := `document.querySelector('#boards .card[data-task="W-1"] .description')`
	alice.await("the task to appear", task+".textContent === "+jsString(evil)+" && window.__noReload")
	var n int
	alice.eval("document.querySelectorAll('#boards script, #boards img').length", &n)
	if n != 0 {
		t.Errorf("the task's description made %d elements, want it as text", n)
	}
	if d := b.dialogsOpened(); len(d) != 0 {
		t.Errorf("dialogs opened: %v, want none (no script of a task runs)", d)
	}
	if v := alice.text("JSON.stringify(window.__csp)"); v != "[]" {
		t.Errorf("CSP violations on the dashboard: %s, want none", v)
	}
	alice.screenshot(filepath.Join(t.ArtifactDir(), "dashboard.png"))
	t.Logf("page weight and paint: %s", alice.text(`JSON.stringify({
		bytes: performance.getEntriesByType('navigation')[0].transferSize +
			performance.getEntriesByType('resource').reduce((a, r) => a + r.transferSize, 0),
		first_contentful_paint_ms: (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime})`))

	bob := login(b, base, browserBob)
	bobSid, bobCall := mcpAs(t, g, browserBob)
	bobCall("create_task", map[string]any{"description": "bob's own task"})
	bob.await("bob's session and task", `document.querySelector('#cores tr[data-session="`+bobSid[:8]+`"]') &&
		document.querySelector('#boards .card[data-task="W-1"] .description').textContent === "bob's own task"`)
	page := bob.text("document.body.innerText")
	for _, secret := range []string{sid[:8], "alert(1)", "alice"} {
		if strings.Contains(page, secret) {
			t.Errorf("bob's dashboard shows %q of alice's:\n%s", secret, page)
		}
	}
}
