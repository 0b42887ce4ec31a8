package gateway

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mjkoo/boris/internal/jsonscan"
)

// writePNG writes a file the core views as a PNG image of size bytes: the
// PNG signature, then random bytes (base64 cannot shrink them).
func writePNG(t *testing.T, path string, size int) {
	t.Helper()
	b := make([]byte, size)
	_, _ = rand.Read(b)
	copy(b, "\x89PNG\r\n\x1a\n")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// unreadRequest posts body on a connection of its own and never reads
// the answer: a client that leaves its replies in the gateway's hands. Its
// receive buffer is small, as over a real network (on loopback the kernel
// would take in megabytes for it). The connection closes with the test.
func (g *testGateway) unreadRequest(sid, body string) net.Conn {
	g.t.Helper()
	u, _ := url.Parse(g.url)
	dialer := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 64<<10) })
	}}
	conn, err := dialer.Dial("tcp", u.Host)
	if err != nil {
		g.t.Fatal(err)
	}
	g.t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
		"Mcp-Session-Id: %s\r\nContent-Length: %d\r\n\r\n%s", u.Host, sid, len(body), body)
	return conn
}

// TestOversizedReplyCostsItsRequest: a core message over the gateway's
// message limit is dropped and its request answered with a JSON-RPC error
// saying so (issue 10, item 4); the session, its core and its other
// requests carry on.
func TestOversizedReplyCostsItsRequest(t *testing.T) {
	g := newTestGateway(t, func(o *Options) { o.MaxMessage = 256 << 10 })
	writePNG(t, filepath.Join(g.dir, "big.png"), 512<<10) // ~700 KB as base64
	sid := g.initialize()
	core := g.coreOf(sid)
	for _, accept := range []string{"application/json", "text/event-stream"} {
		resp := g.send("POST", postHeader(sid, "Accept", accept), callBody(2, "view", map[string]any{"path": "big.png"}, ""))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: got %d, want 200 with a JSON-RPC error", accept, resp.StatusCode)
		}
		final, _ := responseOf(t, resp)
		if final.ID != float64(2) || final.Error == nil || !strings.Contains(final.Error.Message, "over the gateway's message limit of 256 KiB") {
			t.Errorf("%s: got %+v, want a JSON-RPC error for id 2 naming the 256 KiB limit", accept, final)
		}
	}
	resp := g.send("POST", postHeader(sid), callBody(3, "bash", map[string]any{"command": "echo still here"}, ""))
	if final, _ := responseOf(t, resp); final.Result == nil || toolText(t, final) != "stdout:\nstill here\nexit_code: 0" {
		t.Errorf("next call: got %+v, want its result", final)
	}
	if coreExited(core) || g.h.Sessions() != 1 {
		t.Errorf("core exited %v, sessions %d: want the session and its core alive", coreExited(core), g.h.Sessions())
	}
}

// TestUnreadRepliesBounded: replies a client leaves unread are held only
// up to the session's budget; beyond it, replies are dropped with a
// JSON-RPC error saying why. Once the client gives up on them, they are
// kept for its resumption no longer than the replay window, and the
// session serves fully again.
func TestUnreadRepliesBounded(t *testing.T) {
	// Replies of 12.6 MB, of which the kernel takes at most about 4.2 MB
	// for a client that does not read (4 MB on the sending side here, 64
	// KiB on the receiving one): the first two unread replies fit the
	// budget, the third does not, and once the two are written as far as
	// they go they still hold over 16.6 MB, so a fourth never fits.
	// The replay window is long while the fourth meets the budget (events
	// older than the window go, read or not), and shortened at the end.
	const budget = 26 << 20
	g := newTestGateway(t, func(o *Options) { o.MaxBuffered, o.ReplayWindow = budget, time.Hour })
	writePNG(t, filepath.Join(g.dir, "img.png"), 9<<20)
	sid := g.initialize()
	s := g.h.table.Get(sid)
	var unread []net.Conn
	for i := range 3 {
		unread = append(unread, g.unreadRequest(sid, callBody(100+i, "view", map[string]any{"path": "img.png"}, "")))
	}
	// Hold on until the core answered all three (held or refused): how far
	// the first two are written by then depends on the machine's speed,
	// not what the fourth meets.
	waitFor(t, "the core to answer the unread requests", func() bool {
		return s.Pending() == 0 && s.Held() > 16<<20
	})
	resp := g.send("POST", postHeader(sid), callBody(7, "view", map[string]any{"path": "img.png"}, ""))
	final, _ := responseOf(t, resp)
	if final.Error == nil || !strings.Contains(final.Error.Message, "has not read") {
		t.Errorf("reply while the budget is full: got %.200s, want a JSON-RPC error saying the client has not read its replies", fmt.Sprint(final))
	}
	if got := s.Held(); got > budget {
		t.Errorf("the gateway holds %d bytes for the session, over its budget of %d", got, budget)
	}
	// The clients give up; what they were owed is kept for their
	// resumption until the window has passed (the reaper's sweep, run
	// here with the window shortened).
	for _, c := range unread {
		c.Close()
	}
	// A sweep as the window has passed (ReplayWindow is an hour).
	later := func() time.Time { return time.Now().Add(2 * time.Hour) }
	waitFor(t, "unread replies to be released", func() bool {
		s.SweepReplay(later())
		return s.Held() == 0
	})
	resp = g.send("POST", postHeader(sid), callBody(8, "view", map[string]any{"path": "img.png"}, ""))
	if final, _ := responseOf(t, resp); final.Result == nil {
		t.Errorf("reply after release: got error %+v, want the image", final.Error)
	}
	// A written reply is kept for replay until the window has passed.
	if g.h.cores.lim.Total.InUse() == 0 {
		t.Error("nothing kept for replay of the reply written")
	}
	waitFor(t, "the gateway budget to be empty once every reply was written", func() bool {
		s.SweepReplay(later())
		return g.h.cores.lim.Total.InUse() == 0
	})
}

// TestWriteTimeoutReleases: a reply its client leaves unread for
// WriteTimeout is cut off, though the client keeps its connection open,
// and released once the replay window has passed.
func TestWriteTimeoutReleases(t *testing.T) {
	g := newTestGateway(t, func(o *Options) { o.WriteTimeout, o.ReplayWindow = time.Second, time.Second })
	writePNG(t, filepath.Join(g.dir, "img.png"), 6<<20)
	sid := g.initialize()
	s := g.h.table.Get(sid)
	g.unreadRequest(sid, callBody(100, "view", map[string]any{"path": "img.png"}, ""))
	waitFor(t, "the unread reply to be held", func() bool { return s.Held() > 0 })
	waitFor(t, "the unread reply to be released", func() bool { return s.Held() == 0 })
	if got := g.h.cores.lim.Total.InUse(); got != 0 {
		t.Errorf("gateway budget: got %d bytes held, want 0", got)
	}
}

// TestInFlightLimit: a session takes MaxInFlight requests at once; one more
// gets 429 with a JSON-RPC error, and is accepted again once one ends.
func TestInFlightLimit(t *testing.T) {
	g := newTestGateway(t, func(o *Options) { o.MaxInFlight = 2 })
	sid := g.initialize()
	g.startSleep(sid, 1)
	_, pending := g.startSleep(sid, 2)
	resp, body := g.do("POST", postHeader(sid), callBody(3, "bash", map[string]any{"command": "echo three"}, ""))
	if m := parseMessage(t, body); resp.StatusCode != http.StatusTooManyRequests || m.Error == nil || !strings.Contains(m.Error.Message, "too many requests in flight") {
		t.Fatalf("third request: got %d %s, want 429 and a JSON-RPC error", resp.StatusCode, body)
	}
	cancel := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`
	g.do("POST", postHeader(sid), cancel)
	await(t, pending).Body.Close()
	// The cancelled request counts until the core has answered it.
	waitFor(t, "a slot to free", func() bool {
		resp, _ := g.do("POST", postHeader(sid), callBody(4, "bash", map[string]any{"command": "echo four"}, ""))
		return resp.StatusCode == http.StatusOK
	})
}

// nested is a value nested depth arrays deep.
func nested(depth int) string { return strings.Repeat("[", depth) + strings.Repeat("]", depth) }

// TestDeepMessagesNeverWedge: a message nested deeper than go-sdk reads
// is answered by the gateway with its id and never reaches a core (which
// would answer it with id null, leaving the request to wait for ever), so
// more of them than a session may have in flight leave it serving, on a
// session and on a principal's 2026-07-28 core alike.
func TestDeepMessagesNeverWedge(t *testing.T) {
	const inFlight = 2
	g := newTestGateway(t, func(o *Options) { o.MaxInFlight = inFlight })
	sid := g.initialize()
	deep := map[string]any{"command": "true", "x": json.RawMessage(nested(jsonscan.SDKMaxDepth))}
	h2026, deep2026 := call2026(1, "bash", deep)
	h2026.Set("Accept", "application/json")
	paths := []struct {
		name     string
		h        http.Header
		deep, ok func(id int) string
	}{
		{"session", postHeader(sid, "Accept", "application/json"),
			func(id int) string { return callBody(id, "bash", deep, "") },
			func(id int) string { return callBody(id, "bash", map[string]any{"command": "echo served"}, "") }},
		{"principal core", h2026,
			func(id int) string { return strings.Replace(deep2026, `"id":1`, fmt.Sprintf(`"id":%d`, id), 1) },
			func(id int) string {
				_, b := call2026(id, "bash", map[string]any{"command": "echo served"})
				return b
			}},
	}
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			for id := 100; id < 100+inFlight+2; id++ {
				status, body, err := g.quick(p.h, p.deep(id))
				if err != nil || status != http.StatusBadRequest || !strings.Contains(string(body), fmt.Sprintf(`"id":%d`, id)) ||
					!strings.Contains(string(body), "nested more than") {
					t.Fatalf("deep message %d: got %d %s %v, want 400 with its id, saying it is nested too deep", id, status, body, err)
				}
			}
			status, body, err := g.quick(p.h, p.ok(200))
			if err != nil || status != http.StatusOK || !strings.Contains(string(body), "served") {
				t.Errorf("a call after the deep messages: got %d %s %v, want 200 and its output", status, body, err)
			}
		})
	}
}
