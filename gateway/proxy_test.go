package gateway

import (
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestClientAddr(t *testing.T) {
	h := &surface{opts: Options{TrustedProxies: []netip.Prefix{
		netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("10.0.0.0/8"),
	}}}
	tests := []struct {
		name, remote, xff, want string
	}{
		{"untrusted peer: header ignored", "203.0.113.9:4000", "198.51.100.1", "203.0.113.9:4000"},
		{"trusted peer: client from header", "127.0.0.1:4000", "198.51.100.1", "198.51.100.1"},
		{"chain of trusted proxies skipped", "127.0.0.1:4000", "198.51.100.1, 10.1.2.3", "198.51.100.1"},
		{"spoofed left entry not believed", "127.0.0.1:4000", "6.6.6.6, 198.51.100.1", "198.51.100.1"},
		{"garbage stops the walk", "127.0.0.1:4000", "not-an-ip", "127.0.0.1:4000"},
		{"no header", "127.0.0.1:4000", "", "127.0.0.1:4000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/mcp", nil)
			r.RemoteAddr = tt.remote
			if tt.xff != "" {
				r.Header.Set("X-Forwarded-For", tt.xff)
			}
			if got := h.clientAddr(r); got != tt.want {
				t.Errorf("clientAddr = %q, want %q", got, tt.want)
			}
		})
	}
}
