// Package egress provides the way out of a session's network namespace
// (SPEC §6): a forward proxy boris-gateway runs on a Unix socket, which
// lets HTTP and HTTPS through to the operator's allowed domains only, and
// the bridge that makes it reachable from inside a namespace as a
// loopback port.
//
// The proxy is net/http's own: a CONNECT request (RFC 9110 §9.3.6) is
// answered 200 and the hijacked connection joined to the destination; a
// plain-HTTP request in absolute form (RFC 9112 §3.2.2) is forwarded by
// httputil.ReverseProxy, which drops hop-by-hop headers. Either way the
// decision is made on the host name the client asked for, before any DNS
// lookup: a denied name is never resolved, so names cannot carry data out
// through DNS. Allowed names that resolve to loopback, link-local (cloud
// metadata), unspecified or multicast addresses are refused too, unless
// the operator pinned the name to an address (Resolve).
//
// A Unix socket, not a TCP port: a pathname socket is reachable from every
// network namespace (the kernel finds it by its file), while a loopback
// port of the host is not; and only processes allowed to open the file
// can use it.
package egress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Proxy is the egress proxy. Its zero value denies everything.
type Proxy struct {
	// Allow are the destinations let through; nothing else is.
	Allow []Rule
	// Resolve pins host names (lower case) to IP addresses, before and
	// instead of DNS (--egress-resolve). A pinned address is used even on
	// loopback: the operator chose it.
	Resolve map[string]netip.Addr
	// Resolver looks up other names. If nil, net.DefaultResolver.
	Resolver *net.Resolver
	// DialTimeout bounds one connection to a destination. If zero, 30s.
	DialTimeout time.Duration
	// Logger gets one line per request. If nil, nothing is logged.
	Logger *slog.Logger

	forward *httputil.ReverseProxy
}

// NewProxy returns a proxy allowing rules, with its other fields zero
// (set them before serving).
func NewProxy(rules []Rule) *Proxy {
	p := &Proxy{Allow: rules}
	p.forward = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			// The absolute-form target is the destination as it stands.
			pr.Out.URL = pr.In.URL
			pr.Out.Host = pr.In.Host
		},
		Transport: &http.Transport{
			DialContext:         func(ctx context.Context, _, addr string) (net.Conn, error) { return p.dialAddr(ctx, addr) },
			MaxIdleConnsPerHost: 4,
			IdleConnTimeout:     30 * time.Second,
			ForceAttemptHTTP2:   false,
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			p.refuse(w, r, http.StatusBadGateway, err.Error())
		},
		// Bodies are copied through in 256 KiB, not ReverseProxy's 32 KiB:
		// a download costs an eighth of the reads and writes.
		BufferPool: bufferPool{},
	}
	return p
}

// bufferPool lends ReverseProxy its copy buffers.
type bufferPool struct{}

// copyBuffers are the buffers bufferPool lends, reused across copies.
var copyBuffers = sync.Pool{New: func() any { return new([256 << 10]byte) }}

func (bufferPool) Get() []byte  { return copyBuffers.Get().(*[256 << 10]byte)[:] }
func (bufferPool) Put(b []byte) { copyBuffers.Put((*[256 << 10]byte)(b)) }

// Serve answers proxy requests on ln until it is closed or ctx ends.
func (p *Proxy) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second, ErrorLog: nil}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	err := srv.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) || ctx.Err() != nil {
		return nil
	}
	return err
}

// ServeHTTP decides and forwards one request.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host, port, err := target(r)
	if err != nil {
		p.refuse(w, r, http.StatusBadRequest, err.Error())
		return
	}
	rule, ok := match(p.Allow, host, port)
	if !ok {
		p.refuse(w, r, http.StatusForbidden, fmt.Sprintf("%s is not allowed: no --egress-allow rule matches it (rule: deny by default)", net.JoinHostPort(host, strconv.Itoa(port))))
		return
	}
	p.log(r, slog.LevelDebug, "allowed", "rule", rule.Pattern)
	if r.Method == http.MethodConnect {
		p.tunnel(w, r, host, port)
		return
	}
	p.forward.ServeHTTP(w, r)
}

// target is where r wants to go: a CONNECT's authority, or an http URL in
// absolute form. Origin-form requests (a client that took the proxy for
// a server) and https:// URLs (which belong in a CONNECT) are refused.
func target(r *http.Request) (string, int, error) {
	authority, defPort := r.Host, ""
	if r.Method != http.MethodConnect {
		if !r.URL.IsAbs() || r.URL.Scheme != "http" {
			return "", 0, fmt.Errorf("this is an HTTP proxy: send http:// URLs in absolute form and use CONNECT for https://")
		}
		authority, defPort = r.URL.Host, "80"
	}
	host, port, err := net.SplitHostPort(authority)
	if err != nil && defPort != "" && !strings.Contains(strings.TrimPrefix(authority, "["), ":") {
		host, port, err = strings.Trim(authority, "[]"), defPort, nil
	}
	if err != nil || host == "" {
		return "", 0, fmt.Errorf("bad target %q: want host:port", authority)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return "", 0, fmt.Errorf("bad port in %q", authority)
	}
	return strings.ToLower(strings.TrimSuffix(host, ".")), n, nil
}

// tunnel answers a CONNECT: 200, then the client's bytes to the
// destination and back until either side closes.
func (p *Proxy) tunnel(w http.ResponseWriter, r *http.Request, host string, port int) {
	up, err := p.dial(r.Context(), host, port)
	if err != nil {
		p.refuse(w, r, statusOf(err), err.Error())
		return
	}
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		up.Close()
		p.refuse(w, r, http.StatusInternalServerError, "cannot take over the connection: "+err.Error())
		return
	}
	defer conn.Close()
	defer up.Close()
	_ = conn.SetDeadline(time.Time{})
	if _, err := io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	// Bytes the client sent right behind its request (a TLS hello) may
	// already sit in the server's buffer.
	if n := brw.Reader.Buffered(); n > 0 {
		b, _ := brw.Reader.Peek(n)
		if _, err := up.Write(b); err != nil {
			return
		}
	}
	Join(conn, up)
}

// errRefused marks a destination refused after the allow list passed it.
var errRefused = errors.New("refused")

func statusOf(err error) int {
	if errors.Is(err, errRefused) {
		return http.StatusForbidden
	}
	return http.StatusBadGateway
}

// dialAddr is dial for the forwarding transport, which passes host:port.
func (p *Proxy) dialAddr(ctx context.Context, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	n, _ := strconv.Atoi(port)
	return p.dial(ctx, host, n)
}

// dial connects to host:port through the addresses host resolves to:
// pinned ones as they are, looked-up ones except those refused (see the
// package comment).
func (p *Proxy) dial(ctx context.Context, host string, port int) (net.Conn, error) {
	addrs, err := p.addresses(ctx, host)
	if err != nil {
		return nil, err
	}
	d := net.Dialer{Timeout: p.DialTimeout}
	if d.Timeout == 0 {
		d.Timeout = 30 * time.Second
	}
	var last error
	for _, a := range addrs {
		conn, err := d.DialContext(ctx, "tcp", netip.AddrPortFrom(a, uint16(port)).String())
		if err == nil {
			return conn, nil
		}
		last = err
	}
	return nil, fmt.Errorf("connect to %s: %w", net.JoinHostPort(host, strconv.Itoa(port)), last)
}

// addresses resolves host.
func (p *Proxy) addresses(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, ok := p.Resolve[host]; ok {
		return []netip.Addr{a}, nil
	}
	var found []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		found = []netip.Addr{a}
	} else {
		res := p.Resolver
		if res == nil {
			res = net.DefaultResolver
		}
		if found, err = res.LookupNetIP(ctx, "ip", host); err != nil {
			return nil, fmt.Errorf("resolve %s: %w", host, err)
		}
	}
	var out []netip.Addr
	for _, a := range found {
		if a = a.Unmap(); !internal(a) {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: %s resolves only to %v, addresses of this host or its link (loopback, link-local, cloud metadata) that the egress proxy never connects to (rule: no internal addresses)", errRefused, host, found)
	}
	return out, nil
}

// internal reports whether a is an address of this host or its link.
func internal(a netip.Addr) bool {
	return a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsUnspecified() || a.IsMulticast() ||
		a.IsInterfaceLocalMulticast() || a == netip.MustParseAddr("fd00:ec2::254") // AWS's IPv6 metadata endpoint
}

// refuse answers an error the client's tools will show: the status and
// one line saying why, naming the rule.
func (p *Proxy) refuse(w http.ResponseWriter, r *http.Request, status int, why string) {
	p.log(r, slog.LevelInfo, "refused", "status", status, "why", why)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Connection", "close")
	w.WriteHeader(status)
	fmt.Fprintf(w, "boris egress proxy: %s\n", why)
}

func (p *Proxy) log(r *http.Request, level slog.Level, msg string, attrs ...any) {
	if p.Logger == nil {
		return
	}
	target := r.Host
	if r.Method != http.MethodConnect {
		target = r.URL.Host
	}
	p.Logger.Log(r.Context(), level, "egress "+msg, append([]any{"method", r.Method, "target", target}, attrs...)...)
}
