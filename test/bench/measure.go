package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mjkoo/boris/test/bench/benchkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Time limits that turn a hung server into an error instead of a hung run.
const (
	spawnTimeout     = 30 * time.Second // one spawn, handshake and close
	callPhaseTimeout = 5 * time.Minute  // all calls on one session
)

// serverResult is what was measured for one server.
type serverResult struct {
	name string
	init benchkit.Stats // spawn→initialized
	call benchkit.Stats // one small read on a warm session
	ping benchkit.Stats // one ping on the same session: the protocol round-trip floor
}

// measure times cfg.spawns handshakes of s, then cfg.calls small reads of
// the fixture and cfg.calls pings on one session.
func measure(ctx context.Context, cfg config, s server, fx benchkit.Fixture, logw io.Writer) (serverResult, error) {
	fmt.Fprintf(logw, "bench: %s: %d spawns\n", s.name, cfg.spawns)
	initDs, err := measureInit(ctx, cfg, s, fx)
	if err != nil {
		return serverResult{}, err
	}
	fmt.Fprintf(logw, "bench: %s: %d warm-up + %d timed %s calls, then as many pings\n", s.name, cfg.warmup, cfg.calls, s.tool)
	r, err := measureSession(ctx, cfg, s, fx)
	if err != nil {
		return serverResult{}, err
	}
	r.name, r.init = s.name, benchkit.Summarize(initDs)
	return r, nil
}

// connect spawns s on the fixture directory and completes the handshake
// (initialize, its response, notifications/initialized). It returns the
// session, the server's captured stderr and the time from spawn to
// initialized. The client has no roots capability, so neither server
// sends roots/list during the handshake and both see the same client.
func connect(ctx context.Context, cfg config, s server, fx benchkit.Fixture) (*mcp.ClientSession, *bytes.Buffer, time.Duration, error) {
	cmd := s.command(fx.Dir)
	stderr := new(bytes.Buffer)
	cmd.Stderr = stderr
	t := benchkit.CommandTransport(cmd)
	opts := &mcp.ClientSessionOptions{ProtocolVersion: cfg.protocol}
	client := benchkit.NewClient("boris-bench")
	start := time.Now()
	cs, err := client.Connect(ctx, t, opts)
	elapsed := time.Since(start)
	if err != nil {
		return nil, stderr, 0, fmt.Errorf("spawn %s: %w%s", s.name, err, stderrNote(stderr))
	}
	return cs, stderr, elapsed, nil
}

// measureInit times one untimed warm-up spawn (so both servers start with
// warm file caches) and then cfg.spawns timed ones, closing each session.
func measureInit(ctx context.Context, cfg config, s server, fx benchkit.Fixture) ([]time.Duration, error) {
	ds := make([]time.Duration, 0, cfg.spawns)
	for i := range cfg.spawns + 1 {
		d, err := spawnOnce(ctx, cfg, s, fx)
		if err != nil {
			return nil, fmt.Errorf("spawn %d: %w", i, err)
		}
		if i > 0 {
			ds = append(ds, d)
		}
	}
	return ds, nil
}

// spawnOnce starts s, completes the handshake, closes the session (which
// waits for the server to exit) and returns the spawn→initialized time.
func spawnOnce(ctx context.Context, cfg config, s server, fx benchkit.Fixture) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, spawnTimeout)
	defer cancel()
	cs, stderr, d, err := connect(ctx, cfg, s, fx)
	if err != nil {
		return 0, err
	}
	if err := cs.Close(); err != nil {
		return 0, fmt.Errorf("close %s: %w%s", s.name, err, stderrNote(stderr))
	}
	return d, nil
}

// measureSession opens one session and times the small call, then ping.
func measureSession(ctx context.Context, cfg config, s server, fx benchkit.Fixture) (serverResult, error) {
	ctx, cancel := context.WithTimeout(ctx, callPhaseTimeout)
	defer cancel()
	cs, stderr, _, err := connect(ctx, cfg, s, fx)
	if err != nil {
		return serverResult{}, err
	}
	var r serverResult
	read := benchkit.ReadCall{Tool: s.tool, Args: s.args(fx.Path), Fixture: fx}
	r.call, r.ping, err = benchkit.TimeSession(ctx, cs, read, cfg.warmup, cfg.calls)
	closeErr := cs.Close()
	if err != nil {
		return serverResult{}, fmt.Errorf("%s: %w%s", s.name, err, stderrNote(stderr))
	}
	if closeErr != nil {
		return serverResult{}, fmt.Errorf("close %s: %w%s", s.name, closeErr, stderrNote(stderr))
	}
	return r, nil
}

// stderrNote formats a server's captured stderr for an error message.
func stderrNote(stderr *bytes.Buffer) string {
	s := strings.TrimSpace(stderr.String())
	if s == "" {
		return ""
	}
	return "\nserver stderr:\n" + benchkit.Clip(s)
}
