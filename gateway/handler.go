package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"os"
	"slices"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mjkoo/boris/gateway/dashboard"
	"github.com/mjkoo/boris/gateway/launch"
	"github.com/mjkoo/boris/gateway/metrics"
	"github.com/mjkoo/boris/gateway/pgroles"
	"github.com/mjkoo/boris/gateway/sessions"
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

// owner is the owner p's sessions have in the session table.
func (p Principal) owner() sessions.Owner { return sessions.Owner{Key: p.Key, Subject: p.SubjectKey} }

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

	// Settings are the flags a Handler reads as they are; a zero or
	// negative one selects its default.
	Settings

	// Loopback is set when the listener is on a loopback address; see
	// checkOrigin.
	Loopback bool
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
	// TasksDBPasswordFile, if set, holds the password of TasksDB's
	// PostgreSQL role: given to each core with --tasks-db-password-file.
	TasksDBPasswordFile string
	// Roles, if non-nil, gives each principal its own PostgreSQL role and
	// board (--tasks-db-per-principal): its cores are given the role's
	// URL as --tasks-db and its password as PGPASSWORD (which a core keeps
	// from its commands), and the dashboard reads its board as that role.
	// TasksDB is empty then.
	Roles *pgroles.Registry
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
	table    *sessions.Table
	streams  *sessions.Streamer // writes sessions' streams on responses
	cores    *starter           // starts cores and opens their sessions
	surface  *surface           // Origin, Host, CORS, read bounds, logs
	root     http.Handler
	stopReap context.CancelFunc
	draining chan struct{}        // closed by Drain: GET streams end
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
	h := &Handler{opts: opts, log: opts.Logger, draining: make(chan struct{}), surface: &surface{opts: opts, log: opts.Logger}}
	h.table = sessions.NewTable(opts.MaxSessions, opts.IdleTimeout, opts.MaxLifetime, opts.ReplayWindow, h.log)
	h.streams = &sessions.Streamer{WriteTimeout: opts.WriteTimeout, KeepAlive: opts.KeepAlive, Draining: h.draining}
	h.obs = dashboard.NewObserver(h.table)
	h.cores = newStarter(opts, h.table, h.obs)
	if w := h.cores.warm; w != nil {
		h.obs.WarmCores(w.HitRate)
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
	go h.table.Reap(ctx)
	go h.obs.Sample(ctx)
	h.root = h.routes()
	return h
}

// withDefaults returns o with every setting left unset at its default.
func withDefaults(o Options) Options {
	o.Settings = o.Settings.withDefaults()
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
	h.cores.warm.Close()
	h.table.EndAll("gateway shutting down")
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
		mux.HandleFunc(path, oauthNotFound)
	}
	var mcp http.Handler = http.HandlerFunc(h.serveMCP)
	if h.opts.Authenticate != nil {
		mcp = h.opts.Authenticate(mcp)
	}
	mux.Handle("/mcp", h.surface.cors(h.surface.checkOrigin(mcp)))
	if h.opts.SSEPath != "" {
		var sse http.Handler = http.HandlerFunc(h.serveSSE)
		if h.opts.Authenticate != nil {
			sse = h.opts.Authenticate(sse)
		}
		mux.Handle(h.opts.SSEPath, h.surface.cors(h.surface.checkOrigin(sse)))
	}
	h.dash.Routes(mux)
	if h.opts.NodeID != "" {
		return h.surface.logRequests(h.surface.boundReads(h.surface.nodeHeader(mux)))
	}
	return h.surface.logRequests(h.surface.boundReads(mux))
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
	if h.cores.warm != nil {
		hits, misses := h.cores.warm.HitRate()
		body["warm_cores"] = h.cores.warm.Count()
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

// StartDrain begins a node's drain (SIGTERM): from now on no session or
// principal core starts (503, so a load balancer retries elsewhere),
// /healthz answers 503, and GET streams end. Requests to open sessions
// are still served until EndSessions.
func (h *Handler) StartDrain() {
	h.closing.Store(true)
	h.Drain()
	h.cores.warm.Close()
}

// Busy reports whether any client request is in flight.
func (h *Handler) Busy() bool { return h.table.Busy() }

// EndSessions ends every session and principal core: their ids answer
// 404 from then on, so their clients initialise anew, on another node.
func (h *Handler) EndSessions(reason string) { h.table.EndAll(reason) }

// session finds the session a request names, answering 400 when it names
// none, 404 when it is unknown, ended, or another principal's (a session
// belongs to the principal that created it: the same kind of identity, the
// same subject and the same scopes, see Principal.Key), and 400 for an
// unsupported MCP-Protocol-Version.
func (h *Handler) session(w http.ResponseWriter, r *http.Request) *sessions.Session {
	sid := r.Header.Get("Mcp-Session-Id")
	if sid == "" {
		wire.WriteError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "missing Mcp-Session-Id header: send initialize first")
		return nil
	}
	if v := r.Header.Get("MCP-Protocol-Version"); v != "" && !slices.Contains(supportedVersions, v) {
		wire.WriteError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "unsupported MCP-Protocol-Version "+v)
		return nil
	}
	s := h.table.Lookup(sid, h.opts.Principal(r).Key)
	if s == nil || s.Legacy() { // a 2024-11-05 session is reached at SSEPath only
		wire.WriteError(w, http.StatusNotFound, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "session not found: it ended or never existed; initialize a new one")
		return nil
	}
	s.Touch()
	return s
}

// readBody reads a POST body within the size limit, answering 413 beyond it.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	// A client trickling its body cannot hold the connection: the read
	// deadline set by boundReads stays in force until the whole body is in.
	// After a failed read it stays, and so does Connection: close, so the
	// error is answered at once and the connection closed.
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(h.opts.MaxBody)))
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
