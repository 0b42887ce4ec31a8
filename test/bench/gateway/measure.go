package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// Time limits that turn a hung gateway or core into an error instead of a
// hung run.
const (
	connectTimeout = 30 * time.Second // one session create
	phaseTimeout   = 5 * time.Minute  // one measuring phase
)

// gatewayResult is what was measured for one gateway.
type gatewayResult struct {
	name       string
	create     benchkit.Stats // connect (initialize + initialized) on a new session
	call       benchkit.Stats // one small view on a warm session
	ping       benchkit.Stats // one ping on the same session: the transport floor
	rawCall    benchkit.Stats // the small call by a minimal HTTP client (raw.go)
	rawStdio   benchkit.Stats // the same call straight to boris, taking turns with rawCall
	throughput float64        // checked calls per second from cfg.workers sessions
	mem        memory         // process tree with cfg.open sessions open
	clean      bool           // exited on SIGTERM without being killed
}

// stdioResult is the baseline: the same calls straight to boris over stdio.
type stdioResult struct {
	call benchkit.Stats
	ping benchkit.Stats
}

// measureGateway starts spec, runs every phase against it and stops it.
func measureGateway(ctx context.Context, cfg config, spec gatewaySpec, bins binaries, fx benchkit.Fixture, logw io.Writer) (gatewayResult, error) {
	r := gatewayResult{name: spec.name}
	g, err := startGateway(ctx, spec)
	if err != nil {
		return r, err
	}
	fmt.Fprintf(logw, "bench-gateway: %s listening at %s\n", spec.name, g.url)
	err = runPhases(ctx, cfg, g, bins, fx, &r, logw)
	r.clean = g.stop()
	if err != nil {
		return r, fmt.Errorf("%s: %w%s", spec.name, err, g.note())
	}
	return r, nil
}

// runPhases measures session creates, small calls, throughput and memory,
// in that order, each phase on its own sessions.
func runPhases(ctx context.Context, cfg config, g *gatewayProc, bins binaries, fx benchkit.Fixture, r *gatewayResult, logw io.Writer) error {
	hc := newHTTPClient()
	defer hc.CloseIdleConnections()
	c := &dialer{url: g.url, hc: hc}
	var err error
	fmt.Fprintf(logw, "bench-gateway: %s: 1 warm-up + %d timed session creates\n", g.name, cfg.sessions)
	if r.create, err = measureCreate(ctx, cfg, c); err != nil {
		return fmt.Errorf("session create: %w", err)
	}
	fmt.Fprintf(logw, "bench-gateway: %s: %d warm-up + %d timed view calls, then as many pings\n", g.name, cfg.warmup, cfg.calls)
	if r.call, r.ping, err = measureSessionCalls(ctx, cfg, c, fx); err != nil {
		return err
	}
	fmt.Fprintf(logw, "bench-gateway: %s: %d warm-up + %d timed view calls by a minimal HTTP client, each after one by a minimal stdio client\n", g.name, cfg.warmup, cfg.calls)
	if r.rawStdio, r.rawCall, err = measureRawHop(ctx, cfg, bins.boris, g.url, fx); err != nil {
		return err
	}
	fmt.Fprintf(logw, "bench-gateway: %s: %d sessions calling for %v\n", g.name, cfg.workers, cfg.duration)
	if r.throughput, err = measureThroughput(ctx, cfg, c, fx); err != nil {
		return fmt.Errorf("throughput: %w", err)
	}
	fmt.Fprintf(logw, "bench-gateway: %s: memory with %d open sessions\n", g.name, cfg.open)
	if r.mem, err = measureMemory(ctx, cfg, c, g.cmd.Process.Pid, bins.boris); err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	return nil
}

// newHTTPClient returns a client that keeps enough idle connections for
// every session of a phase: http.DefaultClient keeps 2 per host, which
// would make the concurrent phases open a TCP connection per call.
func newHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:               nil, // loopback only
		MaxIdleConns:        512,
		MaxIdleConnsPerHost: 512,
		IdleConnTimeout:     time.Minute,
	}}
}

// dialer opens client sessions on one gateway.
type dialer struct {
	url string
	hc  *http.Client
}

// connect opens a session (initialize, its response, notifications/initialized)
// and returns it with the time Connect took. As a real client does, the
// session then opens its standalone GET stream in the background.
func (d *dialer) connect(ctx context.Context) (*mcp.ClientSession, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	t := &mcp.StreamableClientTransport{Endpoint: d.url, HTTPClient: d.hc}
	start := time.Now()
	cs, err := newClient().Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: protocolVersion})
	elapsed := time.Since(start)
	if err != nil {
		return nil, 0, fmt.Errorf("connect to %s: %w", d.url, err)
	}
	return cs, elapsed, nil
}

// newClient returns the benchmark's client, without the roots capability,
// so no core sends roots/list during the handshake.
func newClient() *mcp.Client { return benchkit.NewClient("boris-bench-gateway") }

// measureCreate times one untimed then cfg.sessions timed session creates,
// closing each (DELETE) before the next.
func measureCreate(ctx context.Context, cfg config, d *dialer) (benchkit.Stats, error) {
	ds := make([]time.Duration, 0, cfg.sessions)
	for i := range cfg.sessions + 1 {
		cs, elapsed, err := d.connect(ctx)
		if err != nil {
			return benchkit.Stats{}, fmt.Errorf("session %d: %w", i, err)
		}
		if err := cs.Close(); err != nil {
			return benchkit.Stats{}, fmt.Errorf("session %d: close: %w", i, err)
		}
		if i > 0 {
			ds = append(ds, elapsed)
		}
	}
	return benchkit.Summarize(ds), nil
}

// measureWarmCreate times session creates on a gateway started by spec,
// which keeps a core started ahead (--warm-cores).
// It also returns the isolation the gateway's /healthz reports.
func measureWarmCreate(ctx context.Context, cfg config, spec gatewaySpec, logw io.Writer) (benchkit.Stats, string, error) {
	g, err := startGateway(ctx, spec)
	if err != nil {
		return benchkit.Stats{}, "", err
	}
	hc := newHTTPClient()
	defer hc.CloseIdleConnections()
	iso, err := isolationOf(ctx, hc, g.url)
	if err == nil {
		fmt.Fprintf(logw, "bench-gateway: %s: 1 warm-up + %d timed session creates\n", spec.name, cfg.sessions)
		var st benchkit.Stats
		st, err = measureCreate(ctx, cfg, &dialer{url: g.url, hc: hc})
		if clean := g.stop(); err == nil && !clean {
			err = errors.New("did not exit on SIGTERM")
		}
		if err == nil {
			return st, iso, nil
		}
	} else {
		g.stop()
	}
	return benchkit.Stats{}, "", fmt.Errorf("%s: %w%s", spec.name, err, g.note())
}

// isolationOf reads what the gateway at url (its MCP endpoint) says it
// enforces, from /healthz: "sandbox=landlock cgroup=v2" and the like.
func isolationOf(ctx context.Context, hc *http.Client, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(url, "/mcp")+"/healthz", nil)
	if err != nil {
		return "", err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", fmt.Errorf("healthz: %w", err)
	}
	defer resp.Body.Close()
	var h struct {
		Isolation struct {
			Sandbox string `json:"sandbox"`
			Cgroup  string `json:"cgroup"`
		} `json:"isolation"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		return "", fmt.Errorf("healthz: %w", err)
	}
	return fmt.Sprintf("sandbox=%s cgroup=%s", h.Isolation.Sandbox, h.Isolation.Cgroup), nil
}

// measureSessionCalls opens one session and times small calls, then pings.
func measureSessionCalls(ctx context.Context, cfg config, d *dialer, fx benchkit.Fixture) (call, ping benchkit.Stats, err error) {
	ctx, cancel := context.WithTimeout(ctx, phaseTimeout)
	defer cancel()
	cs, _, err := d.connect(ctx)
	if err != nil {
		return call, ping, err
	}
	call, ping, err = benchkit.TimeSession(ctx, cs, viewRead(fx), cfg.warmup, cfg.calls)
	if cerr := cs.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close: %w", cerr)
	}
	return call, ping, err
}

// measureStdio times the same calls and pings straight to boris over stdio.
func measureStdio(ctx context.Context, cfg config, boris string, fx benchkit.Fixture) (stdioResult, error) {
	ctx, cancel := context.WithTimeout(ctx, phaseTimeout)
	defer cancel()
	t := benchkit.CommandTransport(exec.Command(boris, "--workdir", fx.Dir))
	cs, err := newClient().Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		return stdioResult{}, fmt.Errorf("direct stdio: spawn boris: %w", err)
	}
	var r stdioResult
	r.call, r.ping, err = benchkit.TimeSession(ctx, cs, viewRead(fx), cfg.warmup, cfg.calls)
	if cerr := cs.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close: %w", cerr)
	}
	if err != nil {
		return stdioResult{}, fmt.Errorf("direct stdio: %w", err)
	}
	return r, nil
}

// viewRead is the small call of every phase: a checked view of the fixture.
func viewRead(fx benchkit.Fixture) benchkit.ReadCall {
	return benchkit.ReadCall{Tool: "view", Args: map[string]any{"path": fx.Path}, Fixture: fx}
}

// hop is the gateway's small call p50 by a minimal client over the p50 of
// the same call straight to boris, the two taking turns.
func (r gatewayResult) hop() time.Duration { return r.rawCall.P50 - r.rawStdio.P50 }
