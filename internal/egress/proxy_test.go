package egress

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
)

func TestRules(t *testing.T) {
	tests := []struct {
		pattern string
		host    string
		port    int
		want    bool
	}{
		{"github.com", "github.com", 443, true},
		{"github.com", "github.com", 80, true},
		{"github.com", "github.com", 22, false},
		{"github.com", "api.github.com", 443, false},
		{"*.github.com", "api.github.com", 443, true},
		{"*.github.com", "a.b.github.com", 443, true},
		{"*.github.com", "github.com", 443, false},
		{"*.github.com", "evilgithub.com", 443, false},
		{"GitHub.com:*", "github.com", 22, true},
		{"mirror.internal:8080", "mirror.internal", 8080, true},
		{"mirror.internal:8080", "mirror.internal", 443, false},
		{"10.0.0.5", "10.0.0.5", 443, true},
		{"[::1]:*", "::1", 1, true},
	}
	for _, tt := range tests {
		r, err := ParseRule(tt.pattern)
		if err != nil {
			t.Fatalf("ParseRule(%q): %v", tt.pattern, err)
		}
		if got := r.Matches(tt.host, tt.port); got != tt.want {
			t.Errorf("%q matches %s:%d: got %v, want %v", tt.pattern, tt.host, tt.port, got, tt.want)
		}
	}
	for _, bad := range []string{"", "*", "a*b.com", "*x.com", "host:0", "host:99999", "host:http"} {
		if _, err := ParseRule(bad); err == nil {
			t.Errorf("ParseRule(%q): got no error, want one", bad)
		}
	}
	if _, err := ParseRules(DefaultAllow); err != nil {
		t.Errorf("DefaultAllow: %v", err)
	}
}

// proxyFixture serves p on a Unix socket and returns an HTTP client that
// uses it as its proxy, through a Bridge on a loopback port.
func proxyFixture(t testing.TB, p *Proxy) *http.Client {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "p.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = p.Serve(ctx, ln); close(done) }()
	bridge, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = Bridge(bridge, sock) }()
	t.Cleanup(func() {
		cancel()
		bridge.Close()
		<-done
	})
	proxyURL := &url.URL{Scheme: "http", Host: bridge.Addr().String()}
	tr := &http.Transport{Proxy: http.ProxyURL(proxyURL), DisableKeepAlives: true}
	return &http.Client{Transport: tr}
}

func TestProxy(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "plain "+r.Host)
	}))
	defer plain.Close()
	secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "secure")
	}))
	defer secure.Close()
	_, plainPort, _ := net.SplitHostPort(plain.Listener.Addr().String())
	_, securePort, _ := net.SplitHostPort(secure.Listener.Addr().String())

	rules, err := ParseRules([]string{"*.allowed.test:*", "loopback.test:*"})
	if err != nil {
		t.Fatal(err)
	}
	p := NewProxy(rules)
	p.Resolve = map[string]netip.Addr{"www.allowed.test": netip.MustParseAddr("127.0.0.1"), "example.com": netip.MustParseAddr("127.0.0.1")}
	// loopback.test is allowed but not pinned: DNS (this resolver) says 127.0.0.1.
	p.Resolver = &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return nil, &net.DNSError{Err: "no DNS in this test", IsNotFound: true}
	}}
	client := proxyFixture(t, p)

	t.Run("allowed http", func(t *testing.T) {
		body, code := get(t, client, "http://www.allowed.test:"+plainPort+"/")
		if code != 200 || body != "plain www.allowed.test:"+plainPort {
			t.Errorf("got %d %q, want 200 and the server's answer with the Host asked for", code, body)
		}
	})
	t.Run("allowed https through CONNECT", func(t *testing.T) {
		tls := secure.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
		tls.ServerName = "example.com" // the test certificate's name
		c := &http.Client{Transport: &http.Transport{Proxy: client.Transport.(*http.Transport).Proxy, TLSClientConfig: tls}}
		p.Allow = append(p.Allow, mustRule(t, "example.com:*"))
		body, code := get(t, c, "https://example.com:"+securePort+"/")
		if code != 200 || body != "secure" {
			t.Errorf("got %d %q, want 200 secure", code, body)
		}
	})
	t.Run("denied", func(t *testing.T) {
		body, code := get(t, client, "http://denied.test:"+plainPort+"/")
		if code != 403 || !strings.Contains(body, "denied.test:"+plainPort) || !strings.Contains(body, "--egress-allow") {
			t.Errorf("got %d %q, want 403 naming the target and the rule", code, body)
		}
	})
	t.Run("denied CONNECT", func(t *testing.T) {
		_, err := client.Get("https://denied.test:" + securePort + "/")
		if err == nil || !strings.Contains(err.Error(), "Forbidden") {
			t.Errorf("got %v, want the proxy's 403", err)
		}
	})
	t.Run("unresolvable allowed name", func(t *testing.T) {
		_, code := get(t, client, "http://loopback.test:"+plainPort+"/")
		if code != http.StatusBadGateway {
			t.Errorf("got %d, want 502", code)
		}
	})
}

func TestProxyRefusesInternalAddresses(t *testing.T) {
	for _, a := range []string{"127.0.0.1", "::1", "169.254.169.254", "0.0.0.0", "fe80::1", "fd00:ec2::254", "224.0.0.1"} {
		if !internal(netip.MustParseAddr(a)) {
			t.Errorf("internal(%s): got false, want true", a)
		}
	}
	for _, a := range []string{"10.0.0.5", "140.82.112.3", "2606:4700::1111"} {
		if internal(netip.MustParseAddr(a)) {
			t.Errorf("internal(%s): got true, want false", a)
		}
	}
	p := NewProxy([]Rule{mustRule(t, "127.0.0.1:*")})
	if _, err := p.dial(context.Background(), "127.0.0.1", 80); err == nil || !strings.Contains(err.Error(), "never connects") {
		t.Errorf("dial an allowed loopback literal: got %v, want a refusal", err)
	}
}

func TestProxyOriginForm(t *testing.T) {
	p := NewProxy(nil)
	rec := httptest.NewRecorder()
	req, _ := http.ReadRequest(bufio.NewReader(strings.NewReader("GET / HTTP/1.1\r\nHost: x\r\n\r\n")))
	p.ServeHTTP(rec, req)
	if rec.Code != http.StatusBadRequest {
		t.Errorf("origin-form request: got %d, want 400", rec.Code)
	}
}

func mustRule(t *testing.T, s string) Rule {
	t.Helper()
	r, err := ParseRule(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func get(t *testing.T, c *http.Client, u string) (string, int) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b), resp.StatusCode
}
