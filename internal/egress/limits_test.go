package egress

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// echoServer accepts on 127.0.0.1 and echoes every connection until the
// test ends.
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(c, c); c.Close() }()
		}
	}()
	return ln.Addr().String()
}

// limitedProxy is a proxy allowing echo.test (pinned to 127.0.0.1) with
// lim, and a function opening a CONNECT through a door, returning the
// status line, the body's line when refused, and the connection.
func limitedProxy(t *testing.T, lim Limits) (*Proxy, func(d *Door, authority string) (string, string, net.Conn)) {
	t.Helper()
	p := NewProxy([]Rule{mustRule(t, "echo.test:*")})
	p.Resolve = map[string]netip.Addr{"echo.test": netip.MustParseAddr("127.0.0.1")}
	p.Dir, p.Limits = t.TempDir(), lim
	t.Cleanup(func() { p.Close() })
	return p, func(d *Door, authority string) (string, string, net.Conn) {
		c, err := net.Dial("unix", d.Path())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		io.WriteString(c, "CONNECT "+authority+" HTTP/1.1\r\nHost: "+authority+"\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: http.MethodConnect})
		if err != nil {
			t.Fatalf("CONNECT: %v", err)
		}
		if resp.StatusCode == http.StatusOK {
			return resp.Status, "", c
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
		c.Close()
		return resp.Status, string(body), c
	}
}

func TestProxyCaps(t *testing.T) {
	echo := echoServer(t)
	_, port, _ := net.SplitHostPort(echo)
	p, connect := limitedProxy(t, Limits{PerSession: 2, PerPrincipal: 3})
	open := func(owner string) *Door {
		d, err := p.Open(owner)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	a1, a2, b := open("alice"), open("alice"), open("bob")
	for _, tt := range []struct {
		door      *Door
		want, why string
	}{
		{a1, "200 Connection established", ""},
		{a1, "200 Connection established", ""},
		{a1, "429 Too Many Requests", "--egress-max-per-session"},
		{a2, "200 Connection established", ""},
		{a2, "429 Too Many Requests", "--egress-max-per-principal"},
		{b, "200 Connection established", ""},
	} {
		status, body, _ := connect(tt.door, "echo.test:"+port)
		if status != tt.want || !strings.Contains(body, tt.why) {
			t.Errorf("CONNECT through %s's door: got %q %q, want %q naming %q", tt.door.owner, status, body, tt.want, tt.why)
		}
	}
	s := p.Stats()
	if s.Open != 4 || s.Tunnels != 4 || s.Refused[ReasonSession] != 1 || s.Refused[ReasonPrincipal] != 1 {
		t.Errorf("stats: got %+v, want 4 open, 4 tunnels, one refusal each for the session's and the principal's cap", s)
	}
	// Closing a door ends its tunnels and gives its principal's room back.
	a1.Close()
	waitUntil(t, "a1's tunnels to close", func() bool { return p.Stats().Open == 2 })
	if status, _, _ := connect(a2, "echo.test:"+port); status != "200 Connection established" {
		t.Errorf("CONNECT after a1 closed: got %q, want 200", status)
	}
}

func TestProxyIdleTunnel(t *testing.T) {
	echo := echoServer(t)
	_, port, _ := net.SplitHostPort(echo)
	p, connect := limitedProxy(t, Limits{IdleTimeout: 300 * time.Millisecond})
	d, err := p.Open("alice")
	if err != nil {
		t.Fatal(err)
	}
	// A busy tunnel outlives several idle timeouts.
	_, _, busy := connect(d, "echo.test:"+port)
	buf := make([]byte, 1)
	for range 8 {
		busy.Write([]byte("x"))
		if _, err := io.ReadFull(busy, buf); err != nil {
			t.Fatalf("a busy tunnel: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// An idle one is closed: the client reads its end.
	_, _, idle := connect(d, "echo.test:"+port)
	idle.SetReadDeadline(time.Now().Add(20 * time.Second))
	if n, err := idle.Read(buf); err != io.EOF {
		t.Errorf("an idle tunnel: read %d bytes, %v; want EOF once the proxy closes it", n, err)
	}
	if s := p.Stats(); s.IdleClosed < 1 {
		t.Errorf("stats: got %d idle closed, want at least 1", s.IdleClosed)
	}
}

// waitUntil polls cond until it holds, failing after a generous deadline.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
