package egress

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

// BenchmarkDownload fetches 100 MB from a loopback server directly and
// through the bridge and the proxy (plain HTTP), the path a session's
// download takes: MB/s says what the two hops cost.
func BenchmarkDownload(b *testing.B) {
	body := bytes.Repeat([]byte("0123456789abcdef"), 100<<20/16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write(body) }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	rules, err := ParseRules([]string{"upstream.test:*"})
	if err != nil {
		b.Fatal(err)
	}
	p := NewProxy(rules)
	p.Resolve = map[string]netip.Addr{"upstream.test": netip.MustParseAddr("127.0.0.1")}
	proxied := proxyFixture(b, p)
	for _, c := range []struct {
		name   string
		client *http.Client
		url    string
	}{
		{"direct", &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}, srv.URL},
		{"proxy", proxied, "http://upstream.test:" + port + "/"},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				resp, err := c.client.Get(c.url)
				if err != nil {
					b.Fatal(err)
				}
				n, err := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || n != int64(len(body)) {
					b.Fatalf("read %d bytes, %v", n, err)
				}
			}
		})
	}
}
