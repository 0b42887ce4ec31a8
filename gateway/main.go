package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/signal"
	"syscall"
	"time"

	"github.com/mjkoo/boris/core"
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
		fmt.Fprintf(stdout, "boris-gateway %s\n", core.Version)
		return nil
	}
	log := cfg.logger(stderr)
	if !cfg.loopback() {
		return usage("refusing to listen on non-loopback address %s without authentication", cfg.Listen)
	}
	corePath, err := findCore(cfg.Core)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	h := NewHandler(Options{
		Core: corePath, CoreArgs: cfg.CoreArgs,
		MaxSessions: cfg.MaxSessions, IdleTimeout: cfg.SessionIdleTimeout, MaxLifetime: cfg.SessionMaxLifetime,
		MaxBody: int64(cfg.MaxBody), AllowedOrigins: cfg.AllowedOrigins, PublicURL: cfg.PublicURL,
		Loopback: cfg.loopback(), Logger: log,
	})
	log.Warn("no authentication configured: serving loopback clients only")
	log.Info("boris-gateway listening", "url", "http://"+ln.Addr().String()+"/mcp", "core", corePath, "version", core.Version)
	return serve(ctx, ln, h, cfg.ShutdownTimeout)
}

// serve runs the HTTP server until a signal, then shuts down in order.
func serve(ctx context.Context, ln net.Listener, h *Handler, drain time.Duration) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second, // a slow client cannot pin a connection
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	srv.RegisterOnShutdown(h.Drain)
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		h.Close()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	err := srv.Shutdown(sctx)
	h.Close()
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("shutdown: %w", err)
	}
	_ = srv.Close()
	return nil
}
