package gateway

import (
	"net/http"
	"regexp"
	"testing"
)

// TestNodeSessionIDs: with a node name, session ids start with it and a
// dot (what a load balancer matches) and stay 128 random bits after it,
// and every response names the node.
func TestNodeSessionIDs(t *testing.T) {
	g := newTestGateway(t, func(o *Options) { o.NodeID = "n2" })
	seen := map[string]bool{}
	for range 3 {
		sid := g.initialize()
		if !regexp.MustCompile(`^n2\.[0-9a-f]{32}$`).MatchString(sid) || seen[sid] {
			t.Fatalf("session id %q: want n2. and 32 hex digits, each new", sid)
		}
		seen[sid] = true
	}
	for _, path := range []string{"/mcp", "/healthz", "/nowhere"} {
		resp, err := g.client().Get(g.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("X-Boris-Node"); got != "n2" {
			t.Errorf("GET %s: X-Boris-Node %q, want n2", path, got)
		}
	}
}

// TestNodeDrain: a draining node starts no session or principal core
// (503, for the load balancer to retry elsewhere) and says so on /healthz,
// while its sessions still answer; once they are ended their ids are 404.
func TestNodeDrain(t *testing.T) {
	g := newTestGateway(t, func(o *Options) { o.NodeID = "n1" })
	sid := g.initialize()
	g.h.StartDrain()
	if resp, body := g.do("POST", postHeader(""), initializeBody(1)); resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("initialize while draining: got %d %s, want 503 with Retry-After", resp.StatusCode, body)
	}
	h, b := call2026(1, "bash", map[string]any{"command": "true"})
	if resp, body := g.do("POST", h, b); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a 2026-07-28 request needing a new principal core while draining: got %d %s, want 503", resp.StatusCode, body)
	}
	resp, err := g.client().Get(g.srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/healthz while draining: got %d, want 503", resp.StatusCode)
	}
	if resp, body := g.do("POST", postHeader(sid), listTools); resp.StatusCode != http.StatusOK {
		t.Errorf("the open session while draining: got %d %s, want it still served", resp.StatusCode, body)
	}
	if g.h.Busy() {
		t.Error("Busy with no request in flight")
	}
	g.h.EndSessions("node draining")
	if resp, body := g.do("POST", postHeader(sid), listTools); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the session after the drain ended it: got %d %s, want 404", resp.StatusCode, body)
	}
	if n := len(g.cores()); n != 0 {
		t.Errorf("%d cores left after the drain", n)
	}
}
