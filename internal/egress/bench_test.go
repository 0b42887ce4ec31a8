package egress

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"
)

// BenchmarkDownload fetches 100 MB from a loopback server directly and
// through the bridge and the proxy (plain HTTP), the path a session's
// download takes: MB/s says what the two hops cost. At loopback speed the
// copies are all there is (CPU-bound); "link" serves at 100 MB/s, a fast
// network link, where what a download waits for is the link.
func BenchmarkDownload(b *testing.B) {
	body := bytes.Repeat([]byte("0123456789abcdef"), 100<<20/16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/link" {
			w.Write(body)
			return
		}
		// 1 MiB every 10 ms: 100 MiB/s.
		start := time.Now()
		for i := 0; i < len(body); i += 1 << 20 {
			w.Write(body[i:min(i+1<<20, len(body))])
			time.Sleep(time.Until(start.Add(time.Duration(i>>20+1) * 10 * time.Millisecond)))
		}
	}))
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
		{"link/direct", &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}, srv.URL + "/link"},
		{"link/proxy", proxied, "http://upstream.test:" + port + "/link"},
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
