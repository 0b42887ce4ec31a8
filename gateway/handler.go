package gateway

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"os"
	"slices"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mjkoo/boris/gateway/dashboard"
	"github.com/mjkoo/boris/gateway/launch"
	"github.com/mjkoo/boris/gateway/metrics"
	"github.com/mjkoo/boris/gateway/wire"
	"github.com/mjkoo/boris/internal/cgroup"
	"github.com/mjkoo/boris/internal/egress"
	"github.com/mjkoo/boris/internal/reaper"
)

// supportedVersions are the MCP revisions of sessions, whose
// MCP-Protocol-Version the gateway accepts on a session's requests. A
// 2024-11-05 client has its own transport (see legacy.go), but one that
// speaks Streamable HTTP is served too: the core negotiates 2024-11-05 in
// initialize, so the header that follows it is accepted, and
// server/discover lists the revision.
var supportedVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

// Principal is who made a request, as the authentication layer decided.
type Principal struct {
	// Subject names the principal in logs; "" when authentication is off.
	Subject string
	// Key is who owns the sessions this principal creates: the kind and
	// subject of its identity and its sorted Boris scopes. Only a request
	// with the same Key may use such a session, so a read-only token cannot
	// drive its subject's full-scope session. "" is the anonymous principal.
	Key string
	// SubjectKey is what MaxPerSubject counts by: the identity's kind and
	// subject, not its scopes. "" (anonymous) is not limited per subject.
	SubjectKey string
	// CoreArgs are extra arguments for cores this principal starts, such as
	// the tool restrictions its scopes imply.
	CoreArgs []string
	// Workdir, if set, is the principal's own working directory: created
	// (0700) when a session starts and given to the core as --workdir.
	Workdir string
}

// Options configure a Handler. Zero values select the documented defaults.
type Options struct {
	Core     string   // path of the boris binary; required
	CoreArgs []string // arguments for every core
	// Environ is the environment cores inherit, minus BORIS_GATEWAY_*
	// settings; nil means the gateway's own.
	Environ []string
	// Secrets are files no core may touch (the gateway's token, secret and
	// key files): denied to every core's file tools.
	Secrets []string
	// Reaper, if non-nil, starts every core, and adopts and kills whatever
	// outlives one.
	Reaper *reaper.Reaper
	// Isolation, reported by /healthz, says what is enforced.
	Isolation *launch.Isolation
	// Cgroups, if non-nil, gives every session a cgroup of its own, killed
	// whole when the session ends.
	Cgroups *cgroup.Manager
	// Egress, if non-nil, is the egress proxy: every core gets a door of
	// its own to it (its --egress-socket), whose connections count
	// against its session and principal, closed when the core exits.
	Egress *egress.Proxy

	MaxSessions int // open sessions; 0 means 64
	// MaxPerSubject bounds the sessions one subject holds at once; 0 means
	// a quarter of MaxSessions, at least 1.
	MaxPerSubject int
	IdleTimeout   time.Duration // end a session without requests this long; 0 means 30m
	MaxLifetime   time.Duration // end a session this long after it began; 0 means 12h
	MaxBody       int64         // largest request body; 0 means 4 MiB
	KeepAlive     time.Duration // SSE keep-alive comment interval; 0 means 15s

	// ReadTimeout bounds how long a client takes to send a request once its
	// headers are in (the server's ReadHeaderTimeout bounds those): the
	// body is read within it, and a request refused before its body was
	// read (401, 404, /healthz, ...) is answered at once with
	// Connection: close, its connection closed once the rest of the body
	// has come or ReadTimeout has passed. 0 means 30s.
	ReadTimeout time.Duration
	// WriteTimeout bounds each piece of a response: a client that reads
	// nothing of it for this long is cut off, and what the gateway held for
	// it is released. A slow client that keeps reading is not. 0 means 30s.
	WriteTimeout time.Duration
	// MaxMessage is the largest message a core may send: a larger reply is
	// dropped and its request answered with a JSON-RPC error; the session
	// goes on. 0 means 64 MiB (a view of the largest image the core
	// returns, base64-encoded, fits).
	MaxMessage int64
	// MaxBuffered bounds the bytes of one session's core messages the
	// gateway holds (read from the core, not yet written to the client):
	// beyond it, replies are dropped and their requests answered with a
	// JSON-RPC error until the client reads or gives up. 0 means 64 MiB.
	MaxBuffered int64
	// MaxBufferedTotal is the same bound for all sessions together. 0 means
	// 512 MiB.
	MaxBufferedTotal int64
	// MaxInFlight bounds a session's requests in flight, cancelled ones the
	// core has not finished included; more get 429. 0 means 32.
	MaxInFlight int
	// ReplayBuffer bounds what each SSE stream of a session keeps so a
	// client that lost its connection can resume it with Last-Event-ID:
	// its events' bytes (and 64 bytes each), its newest event always kept.
	// What is kept counts in MaxBuffered and MaxBufferedTotal, which drop
	// kept events already sent, oldest first, before refusing a new
	// message. 0 means 1 MiB.
	ReplayBuffer int64
	// ReplayWindow is how long a stream's events are kept for resumption.
	// 0 means 5m.
	ReplayWindow time.Duration

	// Security of the HTTP surface; see checkOrigin.
	AllowedOrigins []string
	PublicURL      string
	Loopback       bool // the listener is on a loopback address
	// TrustedProxies are the peers whose X-Forwarded-For names the client
	// in logs; from anyone else the header is ignored.
	TrustedProxies []netip.Prefix

	// Principal, if non-nil, returns the authenticated principal of a
	// request that passed Authenticate. If nil, every request is anonymous.
	Principal func(*http.Request) Principal
	// Authenticate, if non-nil, wraps the MCP endpoint (not /healthz) to
	// refuse unauthenticated requests.
	Authenticate func(http.Handler) http.Handler
	// Metadata, if non-nil, serves RFC 9728 protected-resource metadata at
	// /.well-known/oauth-protected-resource (and below it), unauthenticated.
	Metadata http.Handler

	// TasksDB, if set, is the one task board every core uses (a team's),
	// given to each as --tasks-db. If empty, each principal has its own.
	TasksDB string
	// BoardsDir, if set, holds the boards of authenticated principals
	// (BoardsDir/NAME/boris.db); every core's file tools are denied it.
	// See boardOf.
	BoardsDir string
	// PrincipalsDir, if set, holds each principal's core state directory
	// (PrincipalsDir/NAME, given as --state-dir), outside its working
	// directory; every core's file tools are denied it. See stateOf.
	PrincipalsDir string
	// CachesDir, if set, holds each principal's build caches
	// (CachesDir/NAME: Go's, npm's, XDG_CACHE_HOME), which its commands
	// may write. If empty, cores keep the environment's caches, or under
	// --workdir-template WORKDIR/.cache. See cachesOf.
	CachesDir string
	// Dashboard configures /dashboard and /metrics; see dashboard.Options.
	Dashboard dashboard.Options
	// NodeID, if set, names this gateway among several behind one load
	// balancer (docs/reference/distribution.md#several-hosts): session ids are NodeID + "." + 128 random bits,
	// so a proxy routes a session's requests to its node by matching the
	// id's prefix, and every response carries X-Boris-Node.
	NodeID string
	// WarmCores, if positive, keeps up to that many cores started ahead
	// of the sessions that will take them: a principal's next core is
	// started as soon as one is taken (see launch.WarmPool).
	WarmCores int
	// SSEPath, if set, is where the 2024-11-05 HTTP+SSE transport is served
	// (see legacy.go): GET opens a session, POST ?sessionId= sends it a
	// message. "" serves no such transport.
	SSEPath string

	Logger *slog.Logger // nil means no logs
}

// Handler serves /mcp, /healthz, /dashboard and /metrics. Create it with
// NewHandler; call Close to end every session.
type Handler struct {
	opts     Options
	log      *slog.Logger
	table    *table
	spawner  *launch.Spawner
	root     http.Handler
	lim      limits
	stopReap context.CancelFunc
	draining chan struct{}        // closed by Drain: GET streams end
	warm     *launch.WarmPool     // cores started ahead; nil without WarmCores
	obs      *dashboard.Observer  // what /dashboard and /metrics show
	dash     *dashboard.Dashboard // /dashboard and /metrics
	// closing is set by StartDrain: no new session or principal core
	// starts (503), and /healthz says so, while the load balancer moves
	// new work to other nodes.
	closing atomic.Bool
}

// NewHandler returns a Handler and starts its session reaper.
func NewHandler(opts Options) *Handler {
	opts = withDefaults(opts)
	h := &Handler{opts: opts, log: opts.Logger, spawner: launch.NewSpawner(opts.Reaper), draining: make(chan struct{})}
	h.table = newTable(opts.MaxSessions, opts.IdleTimeout, opts.MaxLifetime, h.log)
	h.table.window = opts.ReplayWindow
	h.warm = launch.NewWarmPool(opts.WarmCores, h.table.grace, h.startWarm)
	h.obs = dashboard.NewObserver(h.table)
	h.lim = limits{
		maxMessage: opts.MaxMessage, buffered: opts.MaxBuffered, total: &budget{max: opts.MaxBufferedTotal},
		maxInFlight:   opts.MaxInFlight,
		replay:        replayLimits{bytes: opts.ReplayBuffer, window: opts.ReplayWindow, evicted: h.obs.ReplayEvicted},
		shedElsewhere: h.table.shedReplay,
	}
	if h.warm != nil {
		h.obs.WarmCores(h.warm.HitRate)
	}
	if p := opts.Egress; p != nil {
		h.obs.Egress(func() metrics.Egress {
			s := p.Stats()
			return metrics.Egress{Open: s.Open, Tunnels: s.Tunnels, IdleClosed: s.IdleClosed, Refused: s.Refused, Destinations: s.Destinations}
		})
	}
	h.dash = dashboard.New(opts.Dashboard, h.dashboardGateway(), h.obs)
	var ctx context.Context
	ctx, h.stopReap = context.WithCancel(context.Background())
	go h.table.reap(ctx)
	h.root = h.routes()
	return h
}

func withDefaults(o Options) Options {
	if o.MaxSessions <= 0 {
		o.MaxSessions = 64
	}
	if o.MaxPerSubject <= 0 {
		o.MaxPerSubject = max(1, o.MaxSessions/4)
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 30 * time.Minute
	}
	if o.MaxLifetime <= 0 {
		o.MaxLifetime = 12 * time.Hour
	}
	if o.MaxBody <= 0 {
		o.MaxBody = 4 << 20
	}
	if o.KeepAlive <= 0 {
		o.KeepAlive = 15 * time.Second
	}
	o.ReadTimeout = cmp.Or(max(o.ReadTimeout, 0), 30*time.Second)
	o.WriteTimeout = cmp.Or(max(o.WriteTimeout, 0), 30*time.Second)
	o.MaxMessage = cmp.Or(max(o.MaxMessage, 0), 64<<20)
	o.MaxBuffered = cmp.Or(max(o.MaxBuffered, 0), 64<<20)
	o.MaxBufferedTotal = cmp.Or(max(o.MaxBufferedTotal, 0), 512<<20)
	o.MaxInFlight = cmp.Or(max(o.MaxInFlight, 0), 32)
	o.ReplayBuffer = cmp.Or(max(o.ReplayBuffer, 0), 1<<20)
	o.ReplayWindow = cmp.Or(max(o.ReplayWindow, 0), 5*time.Minute)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Environ == nil {
		o.Environ = os.Environ()
	}
	if o.Principal == nil {
		o.Principal = func(*http.Request) Principal { return Principal{} }
	}
	return o
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.root.ServeHTTP(w, r) }

// Sessions reports how many sessions are open.
func (h *Handler) Sessions() int { return h.table.Count() }

// Drain ends every open GET stream, so a server shutdown is not held up by
// streams that never finish; POSTs in flight carry on.
func (h *Handler) Drain() {
	select {
	case <-h.draining:
	default:
		close(h.draining)
	}
}

// Close ends every session and its core, and the cores waiting for one,
// and stops the reaper.
func (h *Handler) Close() {
	h.Drain()
	h.stopReap()
	h.warm.Close()
	h.table.endAll("gateway shutting down")
}

// routes builds the handler tree: request logging outermost, then the
// bound on reading requests, CORS, Origin and Host checks, authentication,
// and the MCP endpoint.
func (h *Handler) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", h.healthz)
	mux.HandleFunc("GET /{$}", h.serveIndex)
	if h.opts.Metadata != nil {
		mux.Handle("GET /.well-known/oauth-protected-resource", h.opts.Metadata)
		mux.Handle("GET /.well-known/oauth-protected-resource/", h.opts.Metadata)
	}
	// OAuth clients probe these paths and parse what comes back as JSON.
	for _, path := range oauthPaths {
		mux.HandleFunc(path, h.oauthNotFound)
	}
	var mcp http.Handler = http.HandlerFunc(h.serveMCP)
	if h.opts.Authenticate != nil {
		mcp = h.opts.Authenticate(mcp)
	}
	mux.Handle("/mcp", h.cors(h.checkOrigin(mcp)))
	if h.opts.SSEPath != "" {
		var sse http.Handler = http.HandlerFunc(h.serveSSE)
		if h.opts.Authenticate != nil {
			sse = h.opts.Authenticate(sse)
		}
		mux.Handle(h.opts.SSEPath, h.cors(h.checkOrigin(sse)))
	}
	h.dash.Routes(mux)
	if h.opts.NodeID != "" {
		return h.logRequests(h.boundReads(h.nodeHeader(mux)))
	}
	return h.logRequests(h.boundReads(mux))
}

// nodeHeader names this node on every response.
func (h *Handler) nodeHeader(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Boris-Node", h.opts.NodeID)
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
func (h *Handler) boundReads(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(h.opts.ReadTimeout))
		if r.ContentLength != 0 {
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r)
	})
}

func (h *Handler) healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if h.closing.Load() {
		// Draining: a load balancer's health check takes the node out.
		w.WriteHeader(http.StatusServiceUnavailable)
		_ = json.NewEncoder(w).Encode(map[string]any{"status": "draining", "sessions": h.table.Count()})
		return
	}
	principals := h.table.CountPrincipals()
	body := map[string]any{"status": "ok", "sessions": h.table.Count() - principals, "principal_cores": principals}
	if h.warm != nil {
		hits, misses := h.warm.HitRate()
		body["warm_cores"] = h.warm.Count()
		body["warm_hits"], body["warm_misses"] = hits, misses
	}
	if h.opts.Isolation != nil {
		body["isolation"] = h.opts.Isolation
	}
	_ = json.NewEncoder(w).Encode(body)
}

// serveMCP dispatches the MCP endpoint's methods (Streamable HTTP).
func (h *Handler) serveMCP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet:
		h.get(w, r)
	case http.MethodDelete:
		h.delete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		wire.WriteError(w, http.StatusMethodNotAllowed, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "method not allowed: use POST, GET or DELETE")
	}
}

// newSessionID returns 128 random bits in hex (visible ASCII,
// unguessable), after the node's name and a dot when there is one.
func (h *Handler) newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	if h.opts.NodeID != "" {
		return h.opts.NodeID + "." + hex.EncodeToString(b[:])
	}
	return hex.EncodeToString(b[:])
}

// groupName returns a session cgroup's name: 96 random bits, tied to
// nothing a client sends or receives.
func groupName() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "s-" + hex.EncodeToString(b[:])
}

// StartDrain begins a node's drain (SIGTERM): from now on no session or
// principal core starts (503, so a load balancer retries elsewhere),
// /healthz answers 503, and GET streams end. Requests to open sessions
// are still served until EndSessions.
func (h *Handler) StartDrain() {
	h.closing.Store(true)
	h.Drain()
	h.warm.Close()
}

// Busy reports whether any client request is in flight.
func (h *Handler) Busy() bool { return h.table.busy() }

// EndSessions ends every session and principal core: their ids answer
// 404 from then on, so their clients initialise anew, on another node.
func (h *Handler) EndSessions(reason string) { h.table.endAll(reason) }

// session finds the session a request names, answering 400 when it names
// none, 404 when it is unknown, ended, or another principal's (a session
// belongs to the principal that created it: the same kind of identity, the
// same subject and the same scopes, see Principal.Key), and 400 for an
// unsupported MCP-Protocol-Version.
func (h *Handler) session(w http.ResponseWriter, r *http.Request) *session {
	sid := r.Header.Get("Mcp-Session-Id")
	if sid == "" {
		wire.WriteError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "missing Mcp-Session-Id header: send initialize first")
		return nil
	}
	if v := r.Header.Get("MCP-Protocol-Version"); v != "" && !slices.Contains(supportedVersions, v) {
		wire.WriteError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "unsupported MCP-Protocol-Version "+v)
		return nil
	}
	s := h.table.lookup(sid, h.opts.Principal(r).Key)
	if s == nil || s.legacy() { // a 2024-11-05 session is reached at SSEPath only
		wire.WriteError(w, http.StatusNotFound, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "session not found: it ended or never existed; initialize a new one")
		return nil
	}
	s.touch()
	return s
}

// readBody reads a POST body within the size limit, answering 413 beyond it.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	// A client trickling its body cannot hold the connection: the read
	// deadline set by boundReads stays in force until the whole body is in.
	// After a failed read it stays, and so does Connection: close, so the
	// error is answered at once and the connection closed.
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		wire.WriteError(w, http.StatusRequestEntityTooLarge, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "request body over the gateway's limit")
		return nil, false
	case err != nil:
		wire.WriteError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeParseError, "could not read the request body")
		return nil, false
	}
	wire.UnboundReads(w)
	w.Header().Del("Connection") // the connection may serve another request
	return body, true
}
