// Package egress provides the way out of a session's network namespace
// (docs/reference/security.md): a forward proxy boris-gateway runs on a Unix socket, which
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
// through DNS. Names are compared, pinned and resolved in one normal form
// (Normalize), whatever the spelling a client sends. The proxy leads out
// only: it connects to public unicast addresses, checked on the address
// actually dialled (see addr.go), and to others only where the operator
// said so: a pinned name (Resolve) or a network of Internal.
//
// Each core has a door of its own (Door: a Unix socket with a random
// name), so every connection counts against its session and principal;
// Limits caps them, keeps descriptors for new sessions, and closes idle
// tunnels.
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
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Proxy is the egress proxy. Its zero value denies everything.
type Proxy struct {
	// Allow are the destinations let through; nothing else is.
	Allow []Rule
	// Resolve pins host names (as Normalize writes them) to IP addresses,
	// before and instead of DNS (--egress-resolve). A pinned address is
	// used whatever it is, loopback and this host's own included: the
	// operator chose it.
	Resolve map[string]netip.Addr
	// Internal are networks that are not public but which the proxy may
	// connect to when an allowed destination leads there
	// (--egress-internal). They never open this host's own addresses,
	// loopback or unspecified ones: only a pin does.
	Internal []netip.Prefix
	// Resolver looks up other names. If nil, net.DefaultResolver.
	Resolver *net.Resolver
	// DialTimeout bounds one connection to a destination. If zero, 30s.
	DialTimeout time.Duration
	// Logger gets one line per request. If nil, nothing is logged.
	Logger *slog.Logger
	// Dir is where Open makes doors' sockets: a directory of the
	// gateway's own that no principal can write.
	Dir string
	// Limits bound the connections through doors.
	Limits Limits

	forward *httputil.ReverseProxy
	counts  counters
	fds     fdCount

	mu      sync.Mutex
	srv     *http.Server
	doors   map[*Door]struct{}
	byOwner map[string]int // admitted connections open, by door owner
	closed  bool
}

// NewProxy returns a proxy allowing rules, with its other fields zero
// (set them before serving).
func NewProxy(rules []Rule) *Proxy {
	p := &Proxy{Allow: rules, doors: map[*Door]struct{}{}, byOwner: map[string]int{}}
	p.forward = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			// The absolute-form target is the destination as it stands.
			pr.Out.URL = pr.In.URL
			pr.Out.Host = pr.In.Host
		},
		Transport: &http.Transport{
			DialContext:         func(ctx context.Context, _, addr string) (net.Conn, error) { return p.dialAddr(ctx, addr) },
			MaxIdleConnsPerHost: 4,
			MaxIdleConns:        64, // destinations' kept-alive connections, every session's together
			IdleConnTimeout:     30 * time.Second,
			ForceAttemptHTTP2:   false,
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			p.refuse(w, r, p.statusOf(err), err.Error())
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

// Serve answers proxy requests on ln, as one door counted against no
// principal, until ln is closed or ctx ends.
func (p *Proxy) Serve(ctx context.Context, ln net.Listener) error {
	d, err := p.serveDoor(ln, "", "")
	if err != nil {
		return err
	}
	select {
	case <-ctx.Done():
	case <-d.done():
	}
	d.Close()
	return nil
}

// server is the HTTP server every door's connections are served by.
func (p *Proxy) server() *http.Server {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.srv == nil {
		p.srv = &http.Server{
			Handler: p, ReadHeaderTimeout: 30 * time.Second, IdleTimeout: p.Limits.withDefaults().IdleTimeout,
			ConnContext: withConn, ErrorLog: nil,
		}
	}
	return p.srv
}

// Close closes every door and every connection through them.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	doors := make([]*Door, 0, len(p.doors))
	for d := range p.doors {
		doors = append(doors, d)
	}
	srv := p.srv
	p.mu.Unlock()
	for _, d := range doors {
		d.Close()
	}
	if srv != nil {
		return srv.Close()
	}
	return nil
}

// ServeHTTP decides and forwards one request.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if c := connOf(r); c != nil && c.refusal != nil {
		w.Header().Set("Retry-After", "10")
		p.refuse(w, r, c.refusal.status, c.refusal.why)
		return
	}
	host, port, err := target(r)
	if err != nil {
		p.refuse(w, r, http.StatusBadRequest, err.Error())
		return
	}
	rule, ok := match(p.Allow, host, port)
	if !ok {
		p.counts.denied.Add(1)
		p.refuse(w, r, http.StatusForbidden, fmt.Sprintf("%s is not allowed: no --egress-allow rule matches it (rule: deny by default)", net.JoinHostPort(host, strconv.Itoa(port))))
		return
	}
	p.log(r, slog.LevelDebug, "allowed", "rule", rule.Pattern)
	if r.Method == http.MethodConnect {
		p.tunnel(w, r, host, port)
		return
	}
	// The connection goes to the destination as decided, whatever the
	// spelling asked for; the Host header stays the client's.
	r.URL.Host = net.JoinHostPort(host, strconv.Itoa(port))
	p.forward.ServeHTTP(w, r)
}

// target is where r wants to go: a CONNECT's authority, or an http URL in
// absolute form, its host normalised (Normalize). Origin-form requests (a
// client that took the proxy for a server) and https:// URLs (which
// belong in a CONNECT) are refused.
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
	if host, err = Normalize(host); err != nil {
		return "", 0, err
	}
	return host, n, nil
}

// tunnel answers a CONNECT: 200, then the client's bytes to the
// destination and back until either side closes.
func (p *Proxy) tunnel(w http.ResponseWriter, r *http.Request, host string, port int) {
	up, err := p.dial(r.Context(), host, port)
	if err != nil {
		p.refuse(w, r, p.statusOf(err), err.Error())
		return
	}
	hijacked, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		up.Close()
		p.refuse(w, r, http.StatusInternalServerError, "cannot take over the connection: "+err.Error())
		return
	}
	p.counts.tunnels.Add(1)
	defer p.counts.tunnels.Add(-1)
	defer hijacked.Close() // releases the door's count
	defer up.Close()
	_ = hijacked.SetDeadline(time.Time{})
	client := hijacked
	if dc, ok := hijacked.(*conn); ok {
		client = dc.Conn // the socket itself, so that the copies wait on it holding no buffer
	}
	if _, err := io.WriteString(client, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
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
	if joinIdle(client, up, p.Limits.withDefaults().IdleTimeout) {
		p.counts.idleClosed.Add(1)
		p.log(r, slog.LevelInfo, "tunnel closed: idle", "idle_timeout", p.Limits.withDefaults().IdleTimeout)
	}
}

// errRefused marks a destination refused after the allow list passed it.
var errRefused = errors.New("refused")

// refusedAddr is an address the proxy does not connect to, and why.
type refusedAddr struct{ addr, why string }

func (e *refusedAddr) Error() string        { return e.addr + " is " + e.why }
func (e *refusedAddr) Is(target error) bool { return target == errRefused }

// statusOf is the status a dial's error is answered with, counting
// refused destinations.
func (p *Proxy) statusOf(err error) int {
	if errors.Is(err, errRefused) {
		p.counts.notPublic.Add(1)
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
	c, err := p.dial(ctx, host, n)
	if err != nil {
		return nil, err
	}
	return idleConn{c, p.Limits.withDefaults().IdleTimeout}, nil
}

// dial connects to host:port: a pinned name to its pin, whatever it is;
// any other to the first address it resolves to that the proxy may
// connect to (see refusal), checked as it is dialled.
func (p *Proxy) dial(ctx context.Context, host string, port int) (net.Conn, error) {
	host, err := Normalize(host)
	if err != nil {
		return nil, err
	}
	d := net.Dialer{Timeout: p.DialTimeout}
	if d.Timeout == 0 {
		d.Timeout = 30 * time.Second
	}
	if a, ok := p.Resolve[host]; ok {
		return d.DialContext(ctx, "tcp", netip.AddrPortFrom(a, uint16(port)).String())
	}
	addrs, err := p.lookup(ctx, host)
	if err != nil {
		return nil, err
	}
	// The check runs on the socket's own destination, just before
	// connect(2): what is dialled is what was checked.
	d.ControlContext = func(_ context.Context, _, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return &refusedAddr{address, "not an address the proxy can read"}
		}
		if why := p.refusal(ap.Addr()); why != "" {
			return &refusedAddr{ap.Addr().String(), why}
		}
		return nil
	}
	var refused []string
	var last error
	for _, a := range addrs {
		conn, err := d.DialContext(ctx, "tcp", netip.AddrPortFrom(a, uint16(port)).String())
		if err == nil {
			return conn, nil
		}
		if r := (*refusedAddr)(nil); errors.As(err, &r) {
			refused = append(refused, r.Error())
			continue
		}
		last = err
	}
	if last == nil {
		return nil, fmt.Errorf("%w: %s leads only to addresses the egress proxy never connects to: %s (rule: public addresses only; --egress-internal opens a network, --egress-resolve pins a name)",
			errRefused, host, strings.Join(refused, "; "))
	}
	return nil, fmt.Errorf("connect to %s: %w", net.JoinHostPort(host, strconv.Itoa(port)), last)
}

// lookup resolves host (an IP address is itself).
func (p *Proxy) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	res := p.Resolver
	if res == nil {
		res = net.DefaultResolver
	}
	found, err := res.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", host, err)
	}
	return found, nil
}

// refusal says why the proxy does not connect to a, "" when it may: a
// is an address of this host (loopback, unspecified, or one of its
// interfaces'), or it is not public (NotPublic) and no Internal network
// holds it.
func (p *Proxy) refusal(a netip.Addr) string {
	a = a.Unmap().WithZone("")
	if a.IsLoopback() || a.IsUnspecified() || thisNetwork.Contains(a) {
		return NotPublic(a)
	}
	why := NotPublic(a)
	own, err := hostAddrs()
	if err != nil {
		return err.Error() // fail closed
	}
	if slices.Contains(own, a) {
		if why == "" {
			return "an address of the gateway's own host"
		}
		return why + ", and an address of the gateway's own host"
	}
	for _, n := range p.Internal {
		if why != "" && n.Contains(a) {
			return ""
		}
	}
	return why
}

// thisNetwork is 0.0.0.0/8, which Linux connects to this host.
var thisNetwork = netip.MustParsePrefix("0.0.0.0/8")

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
