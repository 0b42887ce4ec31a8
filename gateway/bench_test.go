package gateway

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkSmallCall measures a small view call through the handler and a
// real core over loopback HTTP, on a session and as a 2026-07-28 request:
// the gateway's side of what bench-stateless compares.
func BenchmarkSmallCall(b *testing.B) {
	g := newTestGateway(b, func(o *Options) { o.KeepAlive = time.Minute })
	if err := os.WriteFile(filepath.Join(g.dir, "small.txt"), []byte(strings.Repeat("a line of a small file\n", 50)), 0o644); err != nil {
		b.Fatal(err)
	}
	sid := g.initialize()
	session := func() (http.Header, string) {
		return postHeader(sid), callBody(1, "view", map[string]any{"path": "small.txt"}, "")
	}
	stateless := func() (http.Header, string) { return call2026(1, "view", map[string]any{"path": "small.txt"}) }
	for _, bc := range []struct {
		name string
		req  func() (http.Header, string)
	}{{"session", session}, {"stateless", stateless}} {
		b.Run(bc.name, func(b *testing.B) {
			h, body := bc.req()
			client := g.client()
			b.ReportAllocs()
			for b.Loop() {
				req, _ := http.NewRequest("POST", g.url, strings.NewReader(body))
				req.Header = h
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				out, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || !strings.Contains(string(out), "a line") {
					b.Fatalf("got %d %s", resp.StatusCode, out)
				}
			}
		})
	}
}
