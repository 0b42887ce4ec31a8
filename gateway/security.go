package gateway

import (
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/rs/cors"

	"github.com/mjkoo/boris/gateway/wire"
)

// surface is the gateway's HTTP surface around its endpoints: the Origin
// and Host checks, CORS, the bound on reading requests, the node's header
// and request logs.
type surface struct {
	opts Options
	log  *slog.Logger
}

// checkOrigin enforces the transport's security warning (2025-06-18
// basic/transports: "Servers MUST validate the Origin header on all
// incoming connections to prevent DNS rebinding attacks"): a present Origin
// must be allowed, and a loopback listener without a public URL accepts
// only loopback Host names.
func (hs *surface) checkOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !hs.originAllowed(o) {
			wire.WriteError(w, http.StatusForbidden, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, wire.OriginNotAllowed(o))
			return
		}
		if !hs.hostAllowed(r.Host) {
			wire.WriteError(w, http.StatusForbidden, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, wire.HostNotAllowed(r.Host))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// originAllowed: listed in AllowedOrigins ("*" lists all), the public URL's
// origin, or a loopback origin when the gateway itself is loopback-only.
func (hs *surface) originAllowed(origin string) bool {
	origin = strings.ToLower(strings.TrimSuffix(origin, "/"))
	for _, o := range hs.opts.AllowedOrigins {
		if o == "*" || strings.ToLower(strings.TrimSuffix(o, "/")) == origin {
			return true
		}
	}
	if pub := publicOrigin(hs.opts.PublicURL); pub != "" {
		return origin == pub
	}
	u, err := url.Parse(origin)
	return err == nil && hs.opts.Loopback && isLoopbackHost(u.Hostname())
}

// hostAllowed applies only to loopback listeners: there, a Host naming
// anything but loopback (or the public URL's host) is a DNS-rebinding
// attempt.
func (hs *surface) hostAllowed(host string) bool {
	if !hs.opts.Loopback {
		return true
	}
	name := host
	if hn, _, err := net.SplitHostPort(host); err == nil {
		name = hn
	}
	name = strings.Trim(name, "[]")
	if isLoopbackHost(name) {
		return true
	}
	if u, err := url.Parse(hs.opts.PublicURL); err == nil && hs.opts.PublicURL != "" {
		return strings.EqualFold(u.Hostname(), name)
	}
	return false
}

func isLoopbackHost(name string) bool {
	if strings.EqualFold(name, "localhost") {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && ip.IsLoopback()
}

func publicOrigin(publicURL string) string {
	u, err := url.Parse(publicURL)
	if publicURL == "" || err != nil {
		return ""
	}
	return strings.ToLower(u.Scheme + "://" + u.Host)
}

// cors answers browser preflights and sets CORS headers for allowed
// origins, exposing the session id and allowing MCP's request headers.
// Those include Mcp-Param-{name} for any name a tool's schema picks
// (2026-07-28), so every request header is allowed: the origin is what
// is checked.
func (hs *surface) cors(next http.Handler) http.Handler {
	c := cors.New(cors.Options{
		AllowOriginFunc:  hs.originAllowed,
		AllowedMethods:   []string{http.MethodGet, http.MethodPost, http.MethodDelete},
		AllowedHeaders:   []string{"*"},
		ExposedHeaders:   []string{"Mcp-Session-Id", "WWW-Authenticate"},
		AllowCredentials: false,
		MaxAge:           600,
	})
	return c.Handler(next)
}

// statusRecorder remembers the status for the request log, and keeps
// flushing working (Unwrap lets http.ResponseController reach the writer).
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// logRequests writes one line per HTTP request: never bodies or tokens.
func (hs *surface) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		sid := rec.Header().Get("Mcp-Session-Id")
		if sid == "" {
			sid = r.Header.Get("Mcp-Session-Id")
		}
		if sid == "" && r.URL.Path == hs.opts.SSEPath && hs.opts.SSEPath != "" {
			sid = r.URL.Query().Get(sessionParam) // a 2024-11-05 POST names it there
		}
		hs.log.Info("http request", "method", r.Method, "path", r.URL.Path, "status", rec.status,
			"session", sid, "remote", hs.clientAddr(r), "duration", time.Since(start).Round(time.Microsecond))
	})
}

// clientAddr is the client's address for logs: the peer, or, when the peer
// is a trusted proxy, the nearest X-Forwarded-For entry that is not itself
// a trusted proxy (entries are appended left to right, RFC 7239 §5.2 style,
// so only the right-hand ones were written by proxies we trust).
func (hs *surface) clientAddr(r *http.Request) string {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil || !hs.trusted(peer.Addr()) {
		return r.RemoteAddr
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		addr, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		if !hs.trusted(addr) {
			return addr.String()
		}
	}
	return r.RemoteAddr
}

func (hs *surface) trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range hs.opts.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// nodeHeader names this node on every response.
func (hs *surface) nodeHeader(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Boris-Node", hs.opts.NodeID)
		next.ServeHTTP(w, r)
	})
}

// boundReads gives every request a read deadline, so no connection lives
// unbounded before its request is authenticated or while its body comes
// in: a client that announces a body and never sends it (or trickles it)
// would otherwise hold its connection, and a file descriptor, forever.
// Until the body has been read (see readBody), the response carries
// Connection: close: net/http then answers at once instead of first trying
// to read the body, and closes the connection after the answer, once the
// rest of the body has come or the deadline has passed.
func (hs *surface) boundReads(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(hs.opts.ReadTimeout))
		if r.ContentLength != 0 {
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r)
	})
}
