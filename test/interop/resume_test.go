package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// cutProxy forwards TCP connections to a gateway and cuts, once, the
// connection on which the gateway sends a progress notification: right
// after forwarding the end of that event, both sides are closed, as a
// network that drops would.
type cutProxy struct {
	ln    net.Listener
	url   string // the MCP endpoint through the proxy
	cuts  atomic.Int32
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns []net.Conn
}

func startCutProxy(t *testing.T, target string) *cutProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, url: "http://" + ln.Addr().String() + u.Path}
	p.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.wg.Go(func() { p.serve(c, u.Host) })
		}
	})
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		for _, c := range p.conns {
			c.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	return p
}

func (p *cutProxy) track(c ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conns = append(p.conns, c...)
}

// serve forwards one client connection.
func (p *cutProxy) serve(client net.Conn, target string) {
	server, err := net.Dial("tcp", target)
	if err != nil {
		client.Close()
		return
	}
	p.track(client, server)
	p.wg.Go(func() {
		_, _ = io.Copy(server, client)
		server.Close()
	})
	defer client.Close()
	defer server.Close()
	var seen []byte // what the gateway sent on this connection, its tail
	buf := make([]byte, 32<<10)
	for {
		n, err := server.Read(buf)
		if n > 0 {
			if _, werr := client.Write(buf[:n]); werr != nil {
				return
			}
			seen = append(seen, buf[:n]...)
			if i := bytes.Index(seen, []byte("notifications/progress")); i >= 0 && bytes.Contains(seen[i:], []byte("\n\n")) {
				if p.cuts.CompareAndSwap(0, 1) {
					return // the deferred closes cut both sides
				}
				seen = nil
			}
			if len(seen) > 64<<10 {
				seen = seen[len(seen)-1024:]
			}
		}
		if err != nil {
			return
		}
	}
}

// TestTypeScriptClientResumes: the TypeScript SDK client's own
// resumption. A long bash call's event stream is cut by a proxy after the
// first progress notification; the client reconnects with GET and
// Last-Event-ID, and gets the rest: progress before and after the cut, in
// order and without duplicates, and the result exactly once. See
// resume.mjs.
func TestTypeScriptClientResumes(t *testing.T) {
	ready(t)
	t.Parallel()
	g := startGateway(t, workdir(t))
	p := startCutProxy(t, g.url)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	out, err := runNode(t, ctx, "resume.mjs", p.url)
	var summary struct {
		OK              bool      `json:"ok"`
		Failures        []string  `json:"failures"`
		Progress        []float64 `json:"progress"`
		CutAfter        *int      `json:"cutAfter"`
		ProtocolVersion string    `json:"protocolVersion"`
	}
	if jerr := json.Unmarshal(out, &summary); jerr != nil {
		t.Fatalf("resume.mjs: %v; its output is not the JSON summary (%v):\n%s\ngateway log:\n%s", err, jerr, out, g.logs)
	}
	t.Logf("resume.mjs summary:\n%s", out)
	if err != nil || !summary.OK {
		t.Fatalf("TypeScript SDK client resuming through boris-gateway: %v\n  %s\ngateway log:\n%s",
			err, strings.Join(summary.Failures, "\n  "), g.logs)
	}
	if n := p.cuts.Load(); n != 1 {
		t.Errorf("the proxy cut %d connections, want 1", n)
	}
	t.Logf("protocol %s: %d progress notification(s) before the cut, %d after", summary.ProtocolVersion, *summary.CutAfter, len(summary.Progress)-*summary.CutAfter)
}
