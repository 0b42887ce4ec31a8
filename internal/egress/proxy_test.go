package egress

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"path/filepath"
	"slices"
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

// TestProxySpellings: every spelling of a pinned name reaches its pin,
// in absolute form and through CONNECT, and never asks DNS (which here
// would fail with a 502).
func TestProxySpellings(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "pinned") }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	p := NewProxy([]Rule{mustRule(t, "api.test:*"), mustRule(t, "*.bücher.test:*")})
	p.Resolve = map[string]netip.Addr{"api.test": netip.MustParseAddr("127.0.0.1"), "www.xn--bcher-kva.test": netip.MustParseAddr("127.0.0.1")}
	p.Resolver = noDNS
	client := proxyFixture(t, p)
	for _, host := range []string{"api.test", "API.TEST", "api.test.", "Api.Test.", "www.bücher.test", "WWW.XN--BCHER-KVA.TEST."} {
		t.Run(host, func(t *testing.T) {
			if body, code := get(t, client, "http://"+host+":"+port+"/"); code != 200 || body != "pinned" {
				t.Errorf("absolute form: got %d %q, want 200 from the pinned server", code, body)
			}
			if strings.Contains(host, "ü") {
				return // a client sends its xn-- spelling (net/http answers raw UTF-8 with 400)
			}
			if code := connect(t, client, host+":"+port); code != 200 {
				t.Errorf("CONNECT: got %d, want 200", code)
			}
		})
	}
}

// connect sends a CONNECT for authority through the client's proxy and
// returns the status.
func connect(t *testing.T, c *http.Client, authority string) int {
	t.Helper()
	u, _ := c.Transport.(*http.Transport).Proxy(nil)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "CONNECT "+authority+" HTTP/1.1\r\nHost: "+authority+"\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: http.MethodConnect})
	if err != nil {
		t.Fatalf("CONNECT %s: %v", authority, err)
	}
	return resp.StatusCode
}

// noDNS is a resolver that finds nothing.
var noDNS = &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
	return nil, &net.DNSError{Err: "no DNS in this test", IsNotFound: true}
}}

func TestNormalize(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"API.TEST", "api.test"},
		{"api.test.", "api.test"},
		{"Bücher.Example", "xn--bcher-kva.example"},
		{"xn--bcher-kva.example", "xn--bcher-kva.example"},
		{"_acme-challenge.Example.org", "_acme-challenge.example.org"},
		{"::FFFF:10.0.0.1", "10.0.0.1"},
		{"[0:0::1]", "::1"},
	} {
		if got, err := Normalize(tt.in); err != nil || got != tt.want {
			t.Errorf("Normalize(%q): got %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", ".", "a..b", "fe80::1%eth0"} {
		if got, err := Normalize(bad); err == nil {
			t.Errorf("Normalize(%q): got %q, want an error", bad, got)
		}
	}
}

func TestNotPublic(t *testing.T) {
	for _, tt := range []struct {
		addr string
		want string // part of the reason; "" for a public address
	}{
		{"0.1.2.3", "this network"},
		{"10.200.0.1", "private (RFC 1918)"},
		{"172.16.0.1", "private (RFC 1918)"},
		{"192.168.1.1", "private (RFC 1918)"},
		{"100.64.0.1", "carrier-grade NAT"},
		{"127.0.0.2", "loopback"},
		{"169.254.169.254", "link-local"},
		{"192.0.0.9", "IETF protocol"},
		{"192.0.2.1", "TEST-NET-1"},
		{"198.51.100.1", "TEST-NET-2"},
		{"203.0.113.1", "TEST-NET-3"},
		{"198.18.0.1", "benchmarking"},
		{"198.19.255.255", "benchmarking"},
		{"224.0.0.1", "multicast"},
		{"240.0.0.1", "reserved"},
		{"255.255.255.255", "broadcast"},
		{"::", "unspecified"},
		{"::1", "loopback"},
		{"::10.0.0.1", "IPv4-compatible"},
		{"::ffff:10.200.0.1", "private (RFC 1918)"},
		{"::ffff:127.0.0.1", "loopback"},
		{"64:ff9b::a00:1", "NAT64 (RFC 6052) of 10.0.0.1, which is private"},
		{"64:ff9b::7f00:1", "NAT64 (RFC 6052) of 127.0.0.1, which is loopback"},
		{"64:ff9b:1::a00:1", "local-use"},
		{"100::1", "discard-only"},
		{"2001::a00:1", "Teredo"},
		{"2001:2::1", "benchmarking"},
		{"2001:db8::1", "documentation"},
		{"2001:20::1", "IETF protocol"},
		{"2002:a00:1::1", "6to4"},
		{"2002:808:808::1", "6to4"},
		{"3fff::1", "documentation (RFC 9637)"},
		{"5f00::1", "SRv6"},
		{"fd00::1", "unique local"},
		{"fc00::1", "unique local"},
		{"fd00:ec2::254", "unique local"},
		{"fe80::1", "link-local"},
		{"fec0::1", "site-local"},
		{"ff02::1", "multicast"},
		{"4000::1", "outside IPv6 global unicast"},
		{"140.82.112.3", ""},
		{"8.8.8.8", ""},
		{"100.63.255.255", ""},
		{"100.128.0.0", ""},
		{"198.20.0.1", ""},
		{"172.32.0.1", ""},
		{"::ffff:8.8.8.8", ""},
		{"64:ff9b::808:808", ""},
		{"2606:4700::1111", ""},
		{"2001:4860:4860::8888", ""},
	} {
		got := NotPublic(netip.MustParseAddr(tt.addr))
		if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("NotPublic(%s): got %q, want %q", tt.addr, got, cmpOr(tt.want, "(public)"))
		}
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// TestProxyRefusal: the dial-time decision. Loopback and this host's own
// addresses are refused even inside an Internal network; other non-public
// addresses open only inside one.
func TestProxyRefusal(t *testing.T) {
	own, err := hostAddrs()
	if err != nil {
		t.Fatal(err)
	}
	p := NewProxy(nil)
	p.Internal = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("0.0.0.0/0")}
	for _, a := range own {
		if got := p.refusal(a); got == "" {
			t.Errorf("refusal(%s), an address of this host: got none, want a refusal", a)
		}
	}
	for _, a := range []string{"127.0.0.1", "0.0.0.0", "::1", "::"} {
		if got := p.refusal(netip.MustParseAddr(a)); got == "" {
			t.Errorf("refusal(%s) with --egress-internal covering it: got none, want a refusal", a)
		}
	}
	if got := p.refusal(netip.MustParseAddr("10.211.0.1")); got != "" && !slices.Contains(own, netip.MustParseAddr("10.211.0.1")) {
		t.Errorf("refusal(10.211.0.1) inside --egress-internal: got %q, want none", got)
	}
	p.Internal = nil
	if got := p.refusal(netip.MustParseAddr("10.211.0.1")); !strings.Contains(got, "RFC 1918") {
		t.Errorf("refusal(10.211.0.1) without --egress-internal: got %q, want private", got)
	}
	// An allowed IP literal that is loopback is refused when dialled.
	p = NewProxy([]Rule{mustRule(t, "127.0.0.1:*")})
	if _, err := p.dial(context.Background(), "127.0.0.1", 80); err == nil || !strings.Contains(err.Error(), "loopback") || !errors.Is(err, errRefused) {
		t.Errorf("dial an allowed loopback literal: got %v, want a refusal naming loopback", err)
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
