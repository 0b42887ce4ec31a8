package test

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// A headless Chromium driven through the DevTools protocol over
// --remote-debugging-pipe (file descriptors 3 and 4, one JSON message per
// NUL-terminated record): no WebSocket and no browser-driving library.

// chromiumPackage is the Debian package the dashboard test installs.
const chromiumPackage = "chromium"

// chromiumPath returns the chromium binary, installing the Debian package
// with apt-get when it is missing (apt-get update and a second try if the
// first install fails). It skips the test, saying why, when it cannot.
func chromiumPath(t *testing.T) string {
	t.Helper()
	find := func() string {
		for _, name := range []string{"chromium", "chromium-browser"} {
			if p, err := exec.LookPath(name); err == nil {
				return p
			}
		}
		return ""
	}
	if p := find(); p != "" {
		return p
	}
	apt, err := exec.LookPath("apt-get")
	if err != nil {
		t.Skipf("headless browser test skipped: chromium is not installed and apt-get is not available to install it (Debian package %q)", chromiumPackage)
	}
	install := func() ([]byte, error) {
		cmd := exec.Command(apt, "install", "-y", "--no-install-recommends", chromiumPackage)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		return cmd.CombinedOutput()
	}
	t.Logf("installing %s with apt-get", chromiumPackage)
	if out, err := install(); err != nil {
		t.Logf("apt-get install %s: %v; running apt-get update and retrying\n%s", chromiumPackage, err, lastLines(out, 5))
		if out, err := exec.Command(apt, "update").CombinedOutput(); err != nil {
			t.Skipf("headless browser test skipped: apt-get update failed, so chromium cannot be installed: %v\n%s", err, lastLines(out, 5))
		}
		if out, err := install(); err != nil {
			t.Skipf("headless browser test skipped: apt-get install %s failed: %v\n%s", chromiumPackage, err, lastLines(out, 5))
		}
	}
	p := find()
	if p == "" {
		t.Skipf("headless browser test skipped: apt-get installed %s but no chromium binary is on PATH", chromiumPackage)
	}
	return p
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// browser is a running headless Chromium.
type browser struct {
	t   *testing.T
	cmd *exec.Cmd
	out io.WriteCloser // its fd 3

	mu      sync.Mutex
	next    int
	waiting map[int]chan cdpMessage
	dialogs []string // JavaScript dialogs opened (alert, confirm, ...)
	stderr  *syncWriter
}

// cdpMessage is a protocol response or event.
type cdpMessage struct {
	ID        int                       `json:"id"`
	Method    string                    `json:"method"`
	Params    json.RawMessage           `json:"params"`
	Result    json.RawMessage           `json:"result"`
	Error     *struct{ Message string } `json:"error"`
	SessionID string                    `json:"sessionId"`
}

// startBrowser starts headless Chromium, ended with the test.
func startBrowser(t *testing.T) *browser {
	t.Helper()
	path := chromiumPath(t)
	toChrome, ours, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	theirs, fromChrome, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	b := &browser{t: t, out: ours, waiting: map[int]chan cdpMessage{}, stderr: &syncWriter{b: &strings.Builder{}}}
	// Root needs --no-sandbox; the test runs no untrusted page but ours.
	b.cmd = exec.Command(path, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check", "--disable-extensions",
		"--user-data-dir="+filepath.Join(t.TempDir(), "profile"), "--window-size=1280,900", "about:blank")
	b.cmd.ExtraFiles = []*os.File{toChrome, fromChrome}
	// Its temporary files too go where the test's cleanup removes them:
	// killed at the end, it leaves them behind.
	tmp := filepath.Join(t.TempDir(), "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	b.cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	b.cmd.Stderr = b.stderr
	if err := b.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	toChrome.Close()
	fromChrome.Close()
	go b.read(theirs)
	t.Cleanup(func() {
		ours.Close()
		_ = b.cmd.Process.Kill()
		_ = b.cmd.Wait()
		if t.Failed() {
			t.Logf("chromium stderr (last lines):\n%s", lastLines([]byte(b.stderr.String()), 20))
		}
	})
	return b
}

// read dispatches what Chromium sends until the pipe closes.
func (b *browser) read(r io.Reader) {
	br := bufio.NewReader(r)
	for {
		rec, err := br.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			for id, ch := range b.waiting {
				close(ch)
				delete(b.waiting, id)
			}
			b.mu.Unlock()
			return
		}
		var m cdpMessage
		if json.Unmarshal(rec[:len(rec)-1], &m) != nil {
			continue
		}
		b.mu.Lock()
		if m.Method == "Page.javascriptDialogOpening" {
			b.dialogs = append(b.dialogs, string(m.Params))
		}
		if ch := b.waiting[m.ID]; m.ID != 0 && ch != nil {
			ch <- m
			delete(b.waiting, m.ID)
		}
		b.mu.Unlock()
	}
}

// call sends a command (to a page's session when session is set) and
// returns its result, failing the test on an error or after 30 s.
func (b *browser) call(session, method string, params any) json.RawMessage {
	b.t.Helper()
	res, err := b.try(session, method, params)
	if err != nil {
		b.t.Fatalf("%s: %v", method, err)
	}
	return res
}

// try is call returning Chromium's error instead of failing the test.
// Going away or not answering still fails it.
func (b *browser) try(session, method string, params any) (json.RawMessage, error) {
	b.t.Helper()
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan cdpMessage, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	raw, _ := json.Marshal(msg)
	if _, err := b.out.Write(append(raw, 0)); err != nil {
		b.t.Fatalf("%s: %v", method, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			b.t.Fatalf("%s: chromium went away", method)
		}
		if m.Error != nil {
			return nil, errors.New(m.Error.Message)
		}
		return m.Result, nil
	case <-time.After(30 * time.Second):
		b.t.Fatalf("%s: no answer from chromium in 30 s", method)
	}
	return nil, nil
}

// page is a tab in a browser context of its own: its own cookies.
type page struct {
	b       *browser
	session string
}

// newPage opens a tab in a fresh browser context (like a private window).
func (b *browser) newPage() *page {
	b.t.Helper()
	var ctx struct{ BrowserContextID string }
	_ = json.Unmarshal(b.call("", "Target.createBrowserContext", map[string]any{}), &ctx)
	var target struct{ TargetID string }
	_ = json.Unmarshal(b.call("", "Target.createTarget", map[string]any{"url": "about:blank", "browserContextId": ctx.BrowserContextID}), &target)
	var att struct{ SessionID string }
	_ = json.Unmarshal(b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}), &att)
	p := &page{b: b, session: att.SessionID}
	p.b.call(p.session, "Page.enable", map[string]any{})
	p.b.call(p.session, "Runtime.enable", map[string]any{})
	return p
}

// navigate loads url in the tab.
func (p *page) navigate(url string) {
	p.b.t.Helper()
	p.b.call(p.session, "Page.navigate", map[string]any{"url": url})
}

// eval evaluates a JavaScript expression in the tab and decodes its value
// into v. Runtime.evaluate is DevTools' own: the page's CSP does not
// apply to it.
func (p *page) eval(expr string, v any) {
	p.b.t.Helper()
	raw := p.b.call(p.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true})
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct{ Text string } `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || r.ExceptionDetails != nil {
		p.b.t.Fatalf("evaluate %s: %v %+v", expr, err, r.ExceptionDetails)
	}
	if v != nil && len(r.Result.Value) > 0 {
		if err := json.Unmarshal(r.Result.Value, v); err != nil {
			p.b.t.Fatalf("evaluate %s: value %s: %v", expr, r.Result.Value, err)
		}
	}
}

// text is the value of a JavaScript expression as a string.
func (p *page) text(expr string) string {
	p.b.t.Helper()
	var s string
	p.eval("String("+expr+")", &s)
	return s
}

// await polls a JavaScript condition until it holds, failing the test
// with what the page shows after a generous deadline.
func (p *page) await(what, cond string) {
	p.b.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		// A navigation (a form submitted, a reload) may be under way: the
		// evaluation then fails with the page it ran in, and is tried again.
		raw, err := p.b.try(p.session, "Runtime.evaluate", map[string]any{
			"expression": "(() => { try { return !!(" + cond + "); } catch (e) { return false; } })()", "returnByValue": true})
		if err != nil && !navigating(err) {
			p.b.t.Fatalf("evaluate %s: %v", cond, err)
		}
		var r struct {
			Result struct{ Value bool } `json:"result"`
		}
		if err == nil && json.Unmarshal(raw, &r) == nil && r.Result.Value {
			return
		}
		if time.Now().After(deadline) {
			p.b.t.Fatalf("timed out waiting for %s (%s); page text:\n%s", what, cond, p.text("document.body && document.body.innerText"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// navigating reports whether a DevTools error says the page changed under
// the command: the target navigated, or its JavaScript context went away.
func navigating(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "navigated or closed") || strings.Contains(msg, "context was destroyed") ||
		strings.Contains(msg, "Cannot find context")
}

// screenshot saves a PNG of the tab to path.
func (p *page) screenshot(path string) {
	p.b.t.Helper()
	var size struct{ Width, Height float64 }
	p.eval(`({Width: Math.max(document.documentElement.scrollWidth, innerWidth), Height: document.documentElement.scrollHeight})`, &size)
	// The whole page, as wide as the screen: captured beyond the viewport,
	// the page has no scrollbar and is laid out across the whole width,
	// which the default clip (measured with the scrollbar) cuts short.
	clip := map[string]any{"x": 0, "y": 0, "width": size.Width, "height": size.Height, "scale": 1}
	var shot struct{ Data []byte }
	if err := json.Unmarshal(p.b.call(p.session, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true, "clip": clip}), &shot); err != nil {
		p.b.t.Fatal(err)
	}
	if err := os.WriteFile(path, shot.Data, 0o644); err != nil {
		p.b.t.Fatal(err)
	}
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// dialogsOpened returns the JavaScript dialogs any page opened.
func (b *browser) dialogsOpened() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string{}, b.dialogs...)
}

// viewport sizes the tab as a screen width by height CSS pixels across
// (a phone's when mobile): the page's media queries see that width.
func (p *page) viewport(width, height int, mobile bool) {
	p.b.t.Helper()
	p.b.call(p.session, "Emulation.setDeviceMetricsOverride", map[string]any{
		"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
	// No classic scrollbar: the page is laid out across the whole width,
	// and a full-page screenshot is as wide as the layout.
	p.b.call(p.session, "Emulation.setScrollbarsHidden", map[string]any{"hidden": true})
}
