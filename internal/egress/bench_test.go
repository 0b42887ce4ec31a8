package egress

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
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

// BenchmarkChecks measures what each new connection through the proxy
// costs beside its dial: counting the descriptors open (here with 2,000
// extra ones, a gateway holding 1,000 tunnels), the estimate admission
// uses far from the reserve, and the dial-time address check, which
// reads the host's interface addresses.
func BenchmarkChecks(b *testing.B) {
	var held []*os.File
	for range 2000 {
		f, err := os.Open(os.DevNull)
		if err != nil {
			b.Skipf("cannot open 2,000 descriptors: %v", err)
		}
		held = append(held, f)
	}
	defer func() {
		for _, f := range held {
			f.Close()
		}
	}()
	b.Run("count", func(b *testing.B) {
		for b.Loop() {
			if _, err := openFDs(); err != nil {
				b.Fatal(err)
			}
		}
	})
	p := NewProxy(nil)
	b.Run("admission estimate", func(b *testing.B) {
		for b.Loop() {
			if _, err := p.freeFDs(DefaultFDReserve); err != nil {
				b.Fatal(err)
			}
		}
	})
	a := netip.MustParseAddr("140.82.112.3")
	b.Run("refusal", func(b *testing.B) {
		for b.Loop() {
			if why := p.refusal(a); why != "" {
				b.Fatal(why)
			}
		}
	})
}
