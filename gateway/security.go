package gateway

import (
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

// checkOrigin enforces the transport's security warning (2025-06-18
// basic/transports: "Servers MUST validate the Origin header on all
// incoming connections to prevent DNS rebinding attacks"): a present Origin
// must be allowed, and a loopback listener without a public URL accepts
// only loopback Host names.
func (h *Handler) checkOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !h.originAllowed(o) {
			wire.WriteError(w, http.StatusForbidden, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, wire.OriginNotAllowed(o))
			return
		}
		if !h.hostAllowed(r.Host) {
			wire.WriteError(w, http.StatusForbidden, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, wire.HostNotAllowed(r.Host))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// originAllowed: listed in AllowedOrigins ("*" lists all), the public URL's
// origin, or a loopback origin when the gateway itself is loopback-only.
func (h *Handler) originAllowed(origin string) bool {
	origin = strings.ToLower(strings.TrimSuffix(origin, "/"))
	for _, o := range h.opts.AllowedOrigins {
		if o == "*" || strings.ToLower(strings.TrimSuffix(o, "/")) == origin {
			return true
		}
	}
	if pub := publicOrigin(h.opts.PublicURL); pub != "" {
		return origin == pub
	}
	u, err := url.Parse(origin)
	return err == nil && h.opts.Loopback && isLoopbackHost(u.Hostname())
}

// hostAllowed applies only to loopback listeners: there, a Host naming
// anything but loopback (or the public URL's host) is a DNS-rebinding
// attempt.
func (h *Handler) hostAllowed(host string) bool {
	if !h.opts.Loopback {
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
	if u, err := url.Parse(h.opts.PublicURL); err == nil && h.opts.PublicURL != "" {
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
func (h *Handler) cors(next http.Handler) http.Handler {
	c := cors.New(cors.Options{
		AllowOriginFunc:  h.originAllowed,
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
func (h *Handler) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		sid := rec.Header().Get("Mcp-Session-Id")
		if sid == "" {
			sid = r.Header.Get("Mcp-Session-Id")
		}
		if sid == "" && r.URL.Path == h.opts.SSEPath && h.opts.SSEPath != "" {
			sid = r.URL.Query().Get(sessionParam) // a 2024-11-05 POST names it there
		}
		h.log.Info("http request", "method", r.Method, "path", r.URL.Path, "status", rec.status,
			"session", sid, "remote", h.clientAddr(r), "duration", time.Since(start).Round(time.Microsecond))
	})
}

// clientAddr is the client's address for logs: the peer, or, when the peer
// is a trusted proxy, the nearest X-Forwarded-For entry that is not itself
// a trusted proxy (entries are appended left to right, RFC 7239 §5.2 style,
// so only the right-hand ones were written by proxies we trust).
func (h *Handler) clientAddr(r *http.Request) string {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil || !h.trusted(peer.Addr()) {
		return r.RemoteAddr
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		addr, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		if !h.trusted(addr) {
			return addr.String()
		}
	}
	return r.RemoteAddr
}

func (h *Handler) trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range h.opts.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
