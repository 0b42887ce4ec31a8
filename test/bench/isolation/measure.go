package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/mjkoo/boris/test/bench/benchkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Time limits that turn a hung gateway or core into an error instead of a
// hung run.
const (
	connectTimeout = 30 * time.Second // one session create
	callTimeout    = 30 * time.Second // one bash call
)

// configResult is what was measured for one configuration.
type configResult struct {
	setup  setup
	health isolation      // what the gateway's /healthz reported; zero over stdio
	create benchkit.Stats // connect (initialize + initialized); zero over stdio
	closed benchkit.Stats // closing that session (DELETE); zero over stdio
	bash   benchkit.Stats // bash `echo hi` on a warm session
	clean  bool           // the gateway exited on SIGTERM; true over stdio
}

// endpoint is one configuration while the run goes on: its gateway (none
// over stdio), the warm session its bash calls go to, and the latencies
// measured so far.
type endpoint struct {
	setup  setup
	gw     *gatewayProc // nil over stdio
	hc     *http.Client // the gateway's client; nil over stdio
	warm   *mcp.ClientSession
	health isolation
	call   *mcp.CallToolParams

	creates, closes, calls []time.Duration
}

// measureAll starts every configuration, warms each up, measures them in
// cfg.rounds rounds, each visiting every configuration in a rotating
// order, then stops them all and returns their results in allSetups order.
func measureAll(ctx context.Context, cfg config, bins binaries, ws *benchkit.Workspace, logw io.Writer) ([]configResult, *downloadResult, error) {
	var eps []*endpoint
	defer func() {
		for _, ep := range eps {
			_, _ = ep.stop() // after a failure; a no-op after finish
		}
	}()
	for _, s := range allSetups() {
		fmt.Fprintf(logw, "%s: starting %s; %d warm-up calls\n", prog, label(s), cfg.warmup)
		ep, err := openEndpoint(ctx, cfg, bins, s, ws.Fixture.Dir)
		if err != nil {
			return nil, nil, err
		}
		eps = append(eps, ep)
	}
	for r := range cfg.rounds {
		creates, calls := share(cfg.sessions, r, cfg.rounds), share(cfg.calls, r, cfg.rounds)
		fmt.Fprintf(logw, "%s: round %d of %d: %d session creates and %d bash calls per configuration\n", prog, r+1, cfg.rounds, creates, calls)
		for i := range eps {
			ep := eps[(r+i)%len(eps)]
			if err := ep.measure(ctx, creates, calls); err != nil {
				return nil, nil, ep.fail(err)
			}
		}
	}
	dl, err := measureDownload(ctx, eps, logw)
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(logw, "%s: stopping every configuration\n", prog)
	out, err := finish(eps)
	return out, dl, err
}

// finish stops every endpoint and summarizes its latencies.
func finish(eps []*endpoint) ([]configResult, error) {
	out := make([]configResult, 0, len(eps))
	for _, ep := range eps {
		clean, err := ep.stop()
		if err != nil {
			return nil, ep.fail(err)
		}
		out = append(out, configResult{
			setup: ep.setup, health: ep.health, clean: clean,
			create: benchkit.Summarize(ep.creates), closed: benchkit.Summarize(ep.closes), bash: benchkit.Summarize(ep.calls),
		})
	}
	return out, nil
}

// share is round r's part of total spread over rounds rounds: the parts
// differ by at most one and add up to total.
func share(total, r, rounds int) int {
	return total*(r+1)/rounds - total*r/rounds
}

// label is a configuration's name with single spaces, for progress lines.
func label(s setup) string { return strings.Join(strings.Fields(s.name()), " ") }

// openEndpoint starts s (a gateway, or boris over stdio), opens its warm
// session and warms it up with cfg.warmup untimed bash calls and, through
// a gateway, one untimed session create.
func openEndpoint(ctx context.Context, cfg config, bins binaries, s setup, dir string) (*endpoint, error) {
	ep := &endpoint{setup: s, call: &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "echo hi"}}}
	if err := ep.open(ctx, bins, dir); err != nil {
		_, _ = ep.stop()
		return nil, ep.fail(err)
	}
	for i := range cfg.warmup {
		if _, err := ep.bash(ctx); err != nil {
			_, _ = ep.stop()
			return nil, ep.fail(fmt.Errorf("warm-up bash call %d: %w", i, err))
		}
	}
	if !s.stdio {
		if _, _, err := ep.create(ctx); err != nil {
			_, _ = ep.stop()
			return nil, ep.fail(fmt.Errorf("warm-up session create: %w", err))
		}
	}
	return ep, nil
}

// open starts the gateway and reads its /healthz, or spawns boris over
// stdio, and connects the warm session.
func (ep *endpoint) open(ctx context.Context, bins binaries, dir string) error {
	var err error
	if ep.setup.stdio {
		cmd := exec.Command(bins.boris, "--workdir", dir, "--sandbox", ep.setup.sandboxArg())
		cmd.Env = coreEnv(os.Environ())
		ep.warm, err = connect(ctx, benchkit.CommandTransport(cmd))
		return err
	}
	if ep.gw, err = startGateway(ctx, bins, ep.setup, dir); err != nil {
		return err
	}
	if ep.health, err = ep.gw.health(ctx); err != nil {
		return err
	}
	ep.hc = newHTTPClient()
	ep.warm, err = connect(ctx, ep.transport())
	return err
}

// measure times creates session creates (through a gateway) and then
// calls bash calls on the warm session.
func (ep *endpoint) measure(ctx context.Context, creates, calls int) error {
	for i := 0; i < creates && !ep.setup.stdio; i++ {
		c, d, err := ep.create(ctx)
		if err != nil {
			return fmt.Errorf("session create %d: %w", len(ep.creates), err)
		}
		ep.creates, ep.closes = append(ep.creates, c), append(ep.closes, d)
	}
	for range calls {
		d, err := ep.bash(ctx)
		if err != nil {
			return fmt.Errorf("bash call %d: %w", len(ep.calls), err)
		}
		ep.calls = append(ep.calls, d)
	}
	return nil
}

// create opens a new session through the gateway and closes it (DELETE),
// returning how long each took.
func (ep *endpoint) create(ctx context.Context) (opened, closed time.Duration, err error) {
	start := time.Now()
	cs, err := connect(ctx, ep.transport())
	opened = time.Since(start)
	if err != nil {
		return 0, 0, err
	}
	start = time.Now()
	if err := cs.Close(); err != nil {
		return 0, 0, fmt.Errorf("close: %w", err)
	}
	return opened, time.Since(start), nil
}

// bash times one checked `echo hi` on the warm session.
func (ep *endpoint) bash(ctx context.Context) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	start := time.Now()
	res, err := ep.warm.CallTool(ctx, ep.call)
	d := time.Since(start)
	return d, checkBash(res, err)
}

// checkBash fails unless the call succeeded, its result is not isError,
// and it shows `echo hi`'s output and a zero exit code in the layout the
// bash tool documents ("stdout:\nhi\n...exit_code: 0").
func checkBash(res *mcp.CallToolResult, err error) error {
	if err != nil {
		return err
	}
	text := benchkit.ResultText(res)
	if res.IsError {
		return fmt.Errorf("isError result: %s", benchkit.Clip(text))
	}
	if !strings.HasPrefix(text, "stdout:\nhi\n") || !strings.HasSuffix(text, "exit_code: 0") {
		return fmt.Errorf("result lacks \"hi\" on stdout or exit code 0; got %q", benchkit.Clip(text))
	}
	return nil
}

// stop closes the warm session and stops the gateway (SIGTERM), reporting
// whether it exited on its own (always true over stdio). A second call
// does nothing.
func (ep *endpoint) stop() (clean bool, err error) {
	if ep.warm != nil {
		if cerr := ep.warm.Close(); cerr != nil {
			err = fmt.Errorf("close the warm session: %w", cerr)
		}
		ep.warm = nil
	}
	if ep.hc != nil {
		ep.hc.CloseIdleConnections()
	}
	if ep.gw == nil {
		return true, err
	}
	return ep.gw.stop(), err
}

// fail names the configuration in err and, through a gateway, appends the
// end of its log.
func (ep *endpoint) fail(err error) error {
	tail := ""
	if ep.gw != nil {
		tail = ep.gw.logTail()
	}
	return fmt.Errorf("%s: %w%s", label(ep.setup), err, tail)
}

// transport is a new Streamable HTTP transport to the endpoint's gateway.
func (ep *endpoint) transport() mcp.Transport {
	return &mcp.StreamableClientTransport{Endpoint: ep.gw.url(), HTTPClient: ep.hc}
}

// connect opens a client session over t: initialize, its response and
// notifications/initialized.
func connect(ctx context.Context, t mcp.Transport) (*mcp.ClientSession, error) {
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	cs, err := benchkit.NewClient("boris-bench-isolation").Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	return cs, nil
}

// newHTTPClient returns a client for one gateway that keeps its
// connections alive between sessions, as the gateway benchmark's does.
func newHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:               nil, // loopback only
		MaxIdleConns:        64,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     time.Minute,
	}}
}
