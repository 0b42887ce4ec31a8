package gateway

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestIndex: GET / says where the MCP endpoint and the dashboard are, as
// JSON for programs and HTML for browsers, instead of a bare 404; other
// unknown paths still answer 404, and a rebinding Host is refused naming
// --public-url.
func TestIndex(t *testing.T) {
	g := newTestGateway(t)
	base := strings.TrimSuffix(g.url, "/mcp")
	tests := []struct {
		name, path, accept, host string
		status                   int
		want                     string // in the body
	}{
		{"json", "/", "", "", 200, `"mcp":"/mcp"`},
		{"json names the dashboard", "/", "application/json", "", 200, `"dashboard":"/dashboard"`},
		{"browser", "/", "text/html,application/xhtml+xml", "", 200, `<a href="/dashboard">`},
		{"unknown path", "/nothing-here", "", "", 404, "404 page not found"},
		{"rebinding host", "/", "", "evil.example", 403, "--public-url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, base+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.accept != "" {
				req.Header.Set("Accept", tt.accept)
			}
			if tt.host != "" {
				req.Host = tt.host
			}
			resp, err := g.client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status || !strings.Contains(string(b), tt.want) {
				t.Errorf("GET %s: got %d %q, want %d and %q", tt.path, resp.StatusCode, string(b), tt.status, tt.want)
			}
		})
	}
}

// TestRefusalsNameTheFix: a refused Host or Origin says which flag lets
// it in, through the MCP endpoint and the dashboard alike (behind nginx,
// a loopback gateway without --public-url answered a bare "host not
// allowed").
func TestRefusalsNameTheFix(t *testing.T) {
	g := newTestGateway(t)
	base := strings.TrimSuffix(g.url, "/mcp")
	tests := []struct {
		name, method, path string
		h                  http.Header
		want               string
	}{
		{"mcp, proxied host", http.MethodPost, "/mcp", postHeader("", "Host", "mcp.example.com"), "--public-url https://mcp.example.com/mcp"},
		{"dashboard, proxied host", http.MethodGet, "/dashboard", header("Host", "mcp.example.com"), "--public-url https://mcp.example.com/mcp"},
		{"mcp, foreign origin", http.MethodPost, "/mcp", postHeader("", "Origin", "https://app.example"), "--allowed-origins https://app.example"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, base+tt.path, strings.NewReader(initializeBody(1)))
			if err != nil {
				t.Fatal(err)
			}
			req.Header = tt.h
			if host := tt.h.Get("Host"); host != "" {
				req.Host = host
			}
			resp, err := g.client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(b), tt.want) {
				t.Errorf("got %d %q, want 403 naming %q", resp.StatusCode, string(b), tt.want)
			}
		})
	}
}
