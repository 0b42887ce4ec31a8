package gateway

import (
	"testing"
)

// TestOriginAllowed: a present Origin must be listed, be the public URL's,
// or be loopback on a loopback-only gateway.
func TestOriginAllowed(t *testing.T) {
	tests := []struct {
		name   string
		opts   Options
		origin string
		want   bool
	}{
		{"loopback gateway, localhost origin", Options{Loopback: true}, "http://localhost:3000", true},
		{"loopback gateway, 127.0.0.1 origin", Options{Loopback: true}, "http://127.0.0.1", true},
		{"loopback gateway, [::1] origin", Options{Loopback: true}, "http://[::1]:8080", true},
		{"loopback gateway, foreign origin", Options{Loopback: true}, "http://evil.example", false},
		{"loopback gateway, lookalike origin", Options{Loopback: true}, "http://localhost.evil.example", false},
		{"loopback gateway, null origin", Options{Loopback: true}, "null", false},
		{"public gateway, loopback origin", Options{}, "http://localhost:3000", false},
		{"listed origin", Options{Settings: Settings{AllowedOrigins: []string{"https://app.example"}}}, "https://app.example", true},
		{"listed origin, other case and slash", Options{Settings: Settings{AllowedOrigins: []string{"https://App.example/"}}}, "https://app.EXAMPLE", true},
		{"listed origin, other scheme", Options{Settings: Settings{AllowedOrigins: []string{"https://app.example"}}}, "http://app.example", false},
		{"listed origin, other port", Options{Settings: Settings{AllowedOrigins: []string{"https://app.example"}}}, "https://app.example:8443", false},
		{"wildcard", Options{Settings: Settings{AllowedOrigins: []string{"*"}}}, "https://anything.example", true},
		{"public URL's origin", Options{Settings: Settings{PublicURL: "https://mcp.example/mcp"}}, "https://mcp.example", true},
		{"public URL set, loopback origin", Options{Settings: Settings{PublicURL: "https://mcp.example/mcp"}, Loopback: true}, "http://localhost", false},
		{"public URL set, foreign origin", Options{Settings: Settings{PublicURL: "https://mcp.example/mcp"}}, "https://evil.example", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &surface{opts: tt.opts}
			if got := h.originAllowed(tt.origin); got != tt.want {
				t.Errorf("originAllowed(%q) with %+v: got %v, want %v", tt.origin, tt.opts, got, tt.want)
			}
		})
	}
}

// TestHostAllowed: a loopback listener refuses non-loopback Host names
// (DNS rebinding) unless they name the public URL's host.
func TestHostAllowed(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		host string
		want bool
	}{
		{"loopback, 127.0.0.1:port", Options{Loopback: true}, "127.0.0.1:8080", true},
		{"loopback, localhost", Options{Loopback: true}, "localhost", true},
		{"loopback, LOCALHOST:port", Options{Loopback: true}, "LOCALHOST:8080", true},
		{"loopback, [::1]:port", Options{Loopback: true}, "[::1]:8080", true},
		{"loopback, 127.1.2.3", Options{Loopback: true}, "127.1.2.3", true},
		{"loopback, foreign name", Options{Loopback: true}, "evil.example", false},
		{"loopback, rebinding name", Options{Loopback: true}, "localhost.evil.example:8080", false},
		{"loopback, private address", Options{Loopback: true}, "192.168.1.10:8080", false},
		{"loopback, empty", Options{Loopback: true}, "", false},
		{"loopback with public URL, its host", Options{Settings: Settings{PublicURL: "https://mcp.example/mcp"}, Loopback: true}, "mcp.example", true},
		{"loopback with public URL, its host and port", Options{Settings: Settings{PublicURL: "https://mcp.example/mcp"}, Loopback: true}, "mcp.example:443", true},
		{"loopback with public URL, another host", Options{Settings: Settings{PublicURL: "https://mcp.example/mcp"}, Loopback: true}, "evil.example", false},
		{"not loopback, any host", Options{}, "anything.example", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &surface{opts: tt.opts}
			if got := h.hostAllowed(tt.host); got != tt.want {
				t.Errorf("hostAllowed(%q) with %+v: got %v, want %v", tt.host, tt.opts, got, tt.want)
			}
		})
	}
}

// TestForgedHostWithPublicURL: through the handler, a loopback gateway with
// a public URL accepts that URL's Host and still refuses others.
func TestForgedHostWithPublicURL(t *testing.T) {
	g := newTestGateway(t, func(o *Options) { o.PublicURL = "https://mcp.example/mcp" })
	tests := []struct {
		host string
		want int
	}{
		{"mcp.example", 200},
		{"evil.example", 403},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			resp, body := g.do("POST", postHeader("", "Host", tt.host), initializeBody(1))
			if resp.StatusCode != tt.want {
				t.Errorf("Host %s: got %d %s, want %d", tt.host, resp.StatusCode, body, tt.want)
			}
		})
	}
}
