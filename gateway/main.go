package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/mjkoo/boris/auth"
	"github.com/mjkoo/boris/core/board"
	"github.com/mjkoo/boris/core/sandbox"
	"github.com/mjkoo/boris/internal/reaper"
	"github.com/mjkoo/boris/internal/version"
)

// Main runs boris-gateway with args (without the program name) and environ
// until SIGTERM or SIGINT, then drains: no new connections, in-flight
// requests get up to --shutdown-timeout, every core is ended, and Main
// returns nil (exit 0). Logs go to stderr; --help and --version to stdout.
func Main(ctx context.Context, args, environ []string, stdout, stderr io.Writer) error {
	cfg, err := ParseConfig(args, environ, stdout)
	if err != nil {
		return err
	}
	if cfg.Version {
		fmt.Fprintf(stdout, "boris-gateway %s\n", version.Version)
		return nil
	}
	log := cfg.logger(stderr)
	// A log reader that goes away (a pipe into tee or less that is quit, a
	// log shipper that dies) must not kill the gateway by SIGPIPE at its
	// next log line, and every session with it: caught (and dropped), the
	// write fails with EPIPE instead. Cores start with the default
	// disposition again (a caught signal is reset on exec).
	sigpipe := make(chan os.Signal, 1)
	signal.Notify(sigpipe, syscall.SIGPIPE)
	defer signal.Stop(sigpipe)
	as, err := cfg.authSetup(ctx, log)
	if err != nil {
		return err
	}
	corePath, err := findCore(cfg.Core)
	if err != nil {
		return err
	}
	proxy, stopEgress, err := cfg.startEgress(log)
	if err != nil {
		return err
	}
	defer stopEgress()
	iso, secrets, err := cfg.isolation(corePath, environ, log)
	if err != nil {
		return err
	}
	// No command may read the gateway's memory or environment (its
	// secrets): only CAP_SYS_PTRACE opens a non-dumpable process's /proc.
	if err := sandbox.NonDumpable(); err != nil {
		log.Warn("cannot make the gateway non-dumpable", "err", err)
	}
	// A subreaper: whatever outlives a core (a command it could not kill
	// because it was killed itself) is adopted here and killed at once.
	rp, err := reaper.New(reaper.Options{KillOrphans: true, Logger: log})
	if err != nil {
		log.Warn("the gateway cannot adopt what outlives a core", "err", err)
		rp = nil
	}
	iso.Subreaper = rp != nil
	cg, err := cfg.cgroups(iso, log)
	if err != nil {
		return err
	}
	if cg != nil {
		defer cg.Close()
	}
	log.Info("isolation", "sandbox", iso.Sandbox, "landlock_abi", iso.LandlockABI, "cgroup", iso.Cgroup,
		"limits", iso.Limits, "subreaper", iso.Subreaper, "per_principal", iso.PerPrincipal,
		"net", iso.Net, "net_enforced", iso.NetEnforced, "pid_namespace", iso.PIDNamespace, "private_root", iso.PrivateRoot)
	shared, err := cfg.sharedTasksDB()
	if err != nil {
		return err
	}
	pgpass, err := cfg.tasksDBPasswordFile()
	if err != nil {
		return err
	}
	roles, err := cfg.principalRoles(ctx, shared, pgpass)
	if err != nil {
		return err
	}
	if roles != nil {
		log.Info("task boards: a PostgreSQL role and schema per principal", "db", board.Redact(shared))
		// The operator's database and credentials provision principals'
		// roles: no core is given them.
		shared, pgpass = "", ""
	}
	boards, err := cfg.boardsDir(environ)
	if err != nil {
		return err
	}
	principals, err := cfg.principalsDir(environ)
	if err != nil {
		return err
	}
	caches, err := cfg.cachesDir(environ)
	if err != nil {
		return err
	}
	cfg.warnOpenBoards(boards, environ, log)
	dash, err := cfg.dashboardOptions()
	if err != nil {
		return err
	}
	proxies, _ := cfg.proxies() // validated by ParseConfig
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return listenError(cfg.Listen, err)
	}
	h := NewHandler(Options{
		Settings: cfg.Settings, Core: corePath, CoreArgs: cfg.CoreArgs, Environ: environ, Secrets: secrets,
		Reaper: rp, Isolation: iso, Cgroups: cg, Egress: proxy, Loopback: cfg.loopback(), Logger: log,
		TrustedProxies: proxies, Authenticate: as.middleware, Principal: cfg.principal, Metadata: as.metadata,
		TasksDB: shared, TasksDBPasswordFile: pgpass, Roles: roles, BoardsDir: boards, PrincipalsDir: principals, CachesDir: caches, Dashboard: dash, SSEPath: cfg.ssePath(),
	})
	if as.middleware == nil {
		log.Warn("authentication is off (--auth none): serving loopback clients only")
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	attrs := []any{"url", url, "dashboard", "http://" + ln.Addr().String() + "/dashboard", "core", corePath, "version", version.Version}
	if cfg.NodeID != "" {
		attrs = append(attrs, "node", cfg.NodeID)
	}
	if p := cfg.ssePath(); p != "" {
		attrs = append(attrs, "sse", "http://"+ln.Addr().String()+p)
	}
	log.Info("boris-gateway listening", attrs...)
	printConnect(stderr, url, as.generated, cfg.onePrincipal() || slices.Contains(cfg.DashboardOperators, generatedSubject) || cfg.MetricsAuth == "none")
	return serve(ctx, ln, h, as.static, cfg.ShutdownTimeout, cfg.drainLinger(), log)
}

// serve runs the HTTP server until a signal, then shuts down in order,
// saying so at once: the drain may take up to drain. With a linger (a
// node of several, docs/reference/distribution.md#several-hosts) the node first drains while still listening:
// no new sessions (503), requests in flight finish, every session ends,
// and for linger its ids answer 404, so the load balancer moves their
// clients to other nodes instead of answering them 502.
func serve(ctx context.Context, ln net.Listener, h *Handler, tokens *auth.StaticTokens, drain, linger time.Duration, log *slog.Logger) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second, // a slow client cannot pin a connection
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	srv.RegisterOnShutdown(h.Drain)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(sigs)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	why := "context done"
wait:
	for {
		select {
		case err := <-errc:
			h.Close()
			return fmt.Errorf("serve: %w", err)
		case sig := <-sigs:
			if sig == syscall.SIGHUP {
				reload(tokens, log)
				continue
			}
			why = sig.String()
			break wait
		case <-ctx.Done():
			break wait
		}
	}
	if linger > 0 {
		lingerDrain(h, sigs, drain, linger, why, log)
	}
	log.Info("shutting down: no new connections; requests in flight may finish, then every core ends",
		"signal", why, "timeout", drain, "sessions", h.Sessions())
	sctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	err := srv.Shutdown(sctx)
	h.Close()
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		log.Warn("requests still in flight at the end of the drain were cut off", "timeout", drain)
	case err != nil:
		return fmt.Errorf("shutdown: %w", err)
	}
	_ = srv.Close()
	log.Info("boris-gateway stopped")
	return nil
}

// lingerDrain is a node's drain before the server shuts down: see serve.
// A second signal cuts it short.
func lingerDrain(h *Handler, sigs <-chan os.Signal, drain, linger time.Duration, why string, log *slog.Logger) {
	log.Info("draining: no new sessions; requests in flight may finish, then sessions end and their ids answer 404",
		"signal", why, "timeout", drain, "linger", linger, "sessions", h.Sessions())
	h.StartDrain()
	deadline := time.NewTimer(drain)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	cut := func() bool { // a second SIGTERM or SIGINT
		for {
			select {
			case sig := <-sigs:
				if sig != syscall.SIGHUP {
					return true
				}
			default:
				return false
			}
		}
	}
	for h.Busy() && !cut() {
		select {
		case <-tick.C:
		case <-deadline.C:
			log.Warn("requests still in flight at the end of the drain are cut off", "timeout", drain)
			h.EndSessions("node draining")
			return
		}
	}
	h.EndSessions("node draining")
	log.Info("sessions ended; their ids answer 404 while clients move to other nodes", "linger", linger)
	end := time.After(linger)
	for !cut() {
		select {
		case <-end:
			return
		case <-tick.C:
		}
	}
}

// reload re-reads the token file on SIGHUP; a bad file keeps the old tokens.
func reload(tokens *auth.StaticTokens, log *slog.Logger) {
	if tokens == nil {
		return
	}
	if err := tokens.Reload(); err != nil {
		log.Error("token file reload failed; keeping the previous tokens", "err", err)
		return
	}
	log.Info("token file reloaded", "tokens", tokens.Len())
}

// listenError says why the gateway cannot listen on addr, and for an
// address another program holds, how to choose another.
func listenError(addr string, err error) error {
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("listen on %s: %w: another program (perhaps another boris-gateway) listens there; "+
			"stop it, or choose another address with --listen (make run: PORT=8081 make run)", addr, err)
	}
	return fmt.Errorf("listen on %s: %w", addr, err)
}
