// Command scale measures one boris-gateway serving a shared build host:
// -sessions open sessions of -principals principals (static tokens, each
// in its own working directory, with the gateway's isolation on: the
// sandbox, cgroups when it can make them, network namespaces), of which
// -callers (one per principal) call view, grep and bash echo in a loop for
// -duration (a call every -pace each, as agents between thoughts call, or
// back to back with -pace 0) while a session is created (and closed) every -create-every
// beside them. Before that, one principal creates -creates sessions at 10
// a second (with the gateway's -warm-cores), timed. It reports p50 and p99 per tool (each caller's first call of
// each tool apart, all callers at once before the load's clock starts, in
// all and per tool: whatever a session still did on first use rather than
// once its client initialized would show there) and for those creates, the
// errors (which must be 0), the gateway's RSS, the PSS of its whole tree
// per open session and the open file descriptors, with a verdict on each
// of the targets. To tell where the views' tail comes from, it
// also reports how busy the host's CPUs were over the load (every
// process's, from /proc/stat, and the share of time some task waited for
// a CPU, from /proc/pressure/cpu), how late the client itself woke from
// 2 ms sleeps, and how many slow views overlapped a session create. Traffic stays on loopback; every process is
// stopped, and checked gone, at the end.
//
// Run it from the module root with `make bench-scale` (about two minutes
// with the defaults, most of it the load). It needs root for cgroups;
// without them sessions still run, unconfined by cgroups, and the report
// says so.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// The targets.
const (
	targetFirstP50Ms    = 50.0 // a session's first call of each tool
	targetFirstP99Ms    = 150.0
	targetViewP99Ms     = 20.0
	targetPSSPerSession = 6.0   // MB
	targetGatewayRSS    = 200.0 // MB
)

type config struct {
	sessions, principals, callers int
	warmCores, creates            int
	duration, createEvery, pace   time.Duration
	peer                          bool   // also supergateway
	node                          string // the node that runs it
}

func main() {
	var cfg config
	flag.IntVar(&cfg.sessions, "sessions", 500, "sessions held open")
	flag.IntVar(&cfg.principals, "principals", 50, "principals (static tokens) the sessions belong to, in turn")
	flag.IntVar(&cfg.callers, "callers", 50, "sessions calling tools in a loop (one per principal, at most -principals)")
	flag.DurationVar(&cfg.duration, "duration", 60*time.Second, "length of the load")
	flag.DurationVar(&cfg.createEvery, "create-every", 500*time.Millisecond, "a session created and closed this often during the load")
	flag.IntVar(&cfg.warmCores, "warm-cores", 0, "the gateway's --warm-cores")
	flag.IntVar(&cfg.creates, "creates", 30, "before the load: sessions one principal creates (and closes) at 10 a second, timed")
	flag.DurationVar(&cfg.pace, "pace", 500*time.Millisecond, "a caller starts a call this often, as an agent between thoughts does (0: back to back)")
	flag.BoolVar(&cfg.peer, "peer", true, "then the same for supergateway (npm, pinned in test/bench/gateway) serving the same boris, where it survives the load; skipped, saying why, without node and npm")
	flag.StringVar(&cfg.node, "node", "node", "node executable that runs supergateway (v20 or newer)")
	flag.Parse()
	if cfg.sessions < 1 || cfg.principals < 1 || cfg.callers < 1 || cfg.callers > cfg.principals || cfg.duration <= 0 || cfg.createEvery <= 0 || cfg.pace < 0 {
		benchkit.ExitUsage("scale", "-sessions, -principals and -callers must be at least 1, -callers at most -principals, -duration and -create-every positive, -pace not negative")
	}
	os.Exit(benchkit.Run("scale", os.Stderr, func(ctx context.Context) error {
		return run(ctx, cfg, os.Stdout, os.Stderr)
	}))
}

// principal is one token's subject and its token.
type principal struct{ name, token string }

// run builds both binaries, starts the gateway, measures it under the
// load and writes the report; then the same for supergateway.
func run(ctx context.Context, cfg config, out, logw io.Writer) error {
	ws, err := benchkit.NewWorkspace(ctx, "boris-scale-", "boris scale")
	if err != nil {
		return err
	}
	defer ws.Close()
	fmt.Fprintln(logw, "scale: building boris and boris-gateway")
	boris, err := benchkit.Build(ctx, ws.Root, ws.Dir, "boris")
	if err != nil {
		return err
	}
	gateway, err := benchkit.Build(ctx, ws.Root, ws.Dir, "boris-gateway")
	if err != nil {
		return err
	}
	principals, tokenFile, err := writeTokens(ws.Dir, cfg.principals)
	if err != nil {
		return err
	}
	work := filepath.Join(ws.Dir, "work")
	for _, p := range principals { // the fixture in every principal's directory
		if err := writeFixture(filepath.Join(work, p.name)); err != nil {
			return err
		}
	}
	perSubject := (cfg.sessions+cfg.principals-1)/cfg.principals + 2 // the held ones, a caller's, a create's
	g, err := benchkit.StartGateway(ctx, gateway, "--listen", "127.0.0.1:0", "--token-file", tokenFile,
		"--workdir-template", filepath.Join(work, "{sub}"), "--state-dir", filepath.Join(ws.Dir, "state"),
		"--max-sessions", strconv.Itoa(cfg.sessions+cfg.principals+cfg.warmCores+10), "--max-sessions-per-subject", strconv.Itoa(perSubject),
		"--warm-cores", strconv.Itoa(cfg.warmCores))
	if err != nil {
		return err
	}
	defer g.Stop()
	m, err := measure(ctx, cfg, g.URL(), g.Pid(), g.Stop, principals, boris, logw)
	if err != nil {
		return err
	}
	if err := report(out, cfg, m); err != nil || !cfg.peer {
		return err
	}
	return runPeer(ctx, cfg, ws, boris, principals, out, logw)
}

// writeFixture writes the file every call reads into dir.
func writeFixture(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "small.txt"), []byte(strings.Repeat("a line to view and grep\n", 50)), 0o644)
}

// measurement is what one gateway's run measured.
type measurement struct {
	paced, opens benchkit.Stats
	idle, loaded usage
	roles        [2]roleReading // the tree by role: sessions open and idle, after the load
	load         loadResult
	left         []string // boris processes still running after the gateway stopped
	// failed says where the gateway did not survive the run, and why;
	// what comes after it was not measured.
	failed string
}

// measure runs the creates, opens the sessions and runs the load on the
// gateway at url (process pid), then closes the sessions, stops the
// gateway and checks that its cores are gone. A gateway that fails a
// create or an open is reported as failed there, not as an error.
func measure(ctx context.Context, cfg config, url string, pid int, stop func(), principals []principal, boris string, logw io.Writer) (measurement, error) {
	var m measurement
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	defer hc.CloseIdleConnections()
	var held []*mcp.ClientSession
	defer func() {
		for _, cs := range held {
			_ = cs.Close()
		}
	}()
	fmt.Fprintf(logw, "scale: %d session creates of one principal, 10 a second\n", cfg.creates)
	paced, err := pacedCreates(ctx, cfg.creates, hc, url, principals[0])
	if err != nil {
		m.failed = err.Error()
		return m, nil
	}
	m.paced = paced
	fmt.Fprintf(logw, "scale: opening %d sessions of %d principals\n", cfg.sessions, cfg.principals)
	var opens []time.Duration
	for i := range cfg.sessions {
		cs, d, err := connect(ctx, hc, url, principals[i%len(principals)])
		if err != nil {
			m.opens, m.failed = benchkit.Summarize(opens), fmt.Sprintf("opened %d of %d sessions, then: %v", i, cfg.sessions, err)
			return m, nil
		}
		held, opens = append(held, cs), append(opens, d)
	}
	m.opens = benchkit.Summarize(opens)
	if m.idle, err = readUsage(pid, boris); err != nil {
		return m, err
	}
	m.roles[0] = readRoles(pid, boris)
	fmt.Fprintf(logw, "scale: %d callers for %s, a session created every %s\n", cfg.callers, cfg.duration, cfg.createEvery)
	if m.load, err = runLoad(ctx, cfg, hc, url, principals, held); err != nil {
		return m, err
	}
	if m.loaded, err = readUsage(pid, boris); err != nil {
		return m, err
	}
	m.roles[1] = readRoles(pid, boris)
	for _, cs := range held {
		_ = cs.Close()
	}
	held = nil
	stop()
	m.left, err = benchkit.AwaitGone(ctx, boris, 10*time.Second, 50*time.Millisecond)
	return m, err
}

// pacedCreates times n session creates of p, one every 100 ms, each
// closed before the next: a principal's back-to-back sessions.
func pacedCreates(ctx context.Context, n int, hc *http.Client, url string, p principal) (benchkit.Stats, error) {
	var ds []time.Duration
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for i := range n {
		<-tick.C
		cs, d, err := connect(ctx, hc, url, p)
		if err != nil {
			return benchkit.Stats{}, fmt.Errorf("create %d: %w", i, err)
		}
		_ = cs.Close()
		ds = append(ds, d)
	}
	return benchkit.Summarize(ds), nil
}

// writeTokens writes a token file of n principals, p01 ... pNN.
func writeTokens(dir string, n int) ([]principal, string, error) {
	var ps []principal
	var sb strings.Builder
	for i := range n {
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			return nil, "", err
		}
		p := principal{name: fmt.Sprintf("p%02d", i+1), token: hex.EncodeToString(b)}
		ps = append(ps, p)
		fmt.Fprintf(&sb, "%s=%s\n", p.name, p.token)
	}
	file := filepath.Join(dir, "tokens")
	return ps, file, os.WriteFile(file, []byte(sb.String()), 0o600)
}

// bearer adds a principal's token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// connect opens a session of p and returns it with the time it took.
func connect(ctx context.Context, hc *http.Client, url string, p principal) (*mcp.ClientSession, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	start := time.Now()
	cs, err := benchkit.NewClient("boris-scale").Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: url, HTTPClient: &http.Client{Transport: bearer{p.token, hc.Transport}}, DisableStandaloneSSE: true, MaxRetries: -1,
	}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	return cs, time.Since(start), err
}

// loadResult is what the load measured.
type loadResult struct {
	calls map[string][]time.Duration // by tool, once every caller has made its first of each
	first map[string][]time.Duration // by tool, each caller's first call: what a session still starts on first use shows here
	// by tool, the first calls of other held sessions, one session after
	// another before the callers': a first call's own cost, without the
	// queue of every caller's at once
	firstAlone map[string][]time.Duration
	creates    []time.Duration
	closes     []time.Duration // a created session's DELETE, which returns once its core has exited
	errs       []string
	// Where the tail comes from: the host's CPUs over the load, how late
	// this client wakes from short sleeps, the view calls over the target
	// and the spans of the session creates and closes beside them.
	host              hostLoad
	firstHost         hostLoad      // the host's CPUs while the first calls ran
	firstSpan         time.Duration // from the first of them to the last answer
	probe             benchkit.Stats
	slowViews, churn  []window
	started, finished time.Time
}

// loadCall is one of the calls a caller makes in turn, and what its
// result must hold.
type loadCall struct {
	tool string
	args map[string]any
	want string
}

var loadCalls = []loadCall{
	{"view", map[string]any{"path": "small.txt"}, "a line to view"},
	{"grep", map[string]any{"pattern": "view and", "path": "."}, "small.txt"},
	{"bash", map[string]any{"command": "echo hi"}, "hi"},
}

// on makes c on cs and returns its duration, or an error for a failed
// call or a result without what it must hold.
func (c loadCall) on(ctx context.Context, cs *mcp.ClientSession) (time.Duration, error) {
	start := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
	d := time.Since(start)
	switch {
	case err != nil:
		return d, err
	case res.IsError || !strings.Contains(benchkit.ResultText(res), c.want):
		return d, errors.New(benchkit.Clip(benchkit.ResultText(res)))
	}
	return d, nil
}

// runLoad has one held session of each of the first cfg.callers
// principals call view, grep and bash in turn until cfg.duration has
// passed, while a session of another principal in turn is created and
// closed every cfg.createEvery. First, as many other held sessions make
// their first call of each tool one session at a time (a first call's
// own cost); then every caller makes its first call of each tool, all
// callers at once (as agents starting together would):
// those are reported apart (a session that started its spawner or its
// checkpoints on first use would pay for it there), and the load's
// clock, its creates and its host readings start once they are done, so
// their storm is not counted in the steady state's tail.
func runLoad(ctx context.Context, cfg config, hc *http.Client, url string, principals []principal, held []*mcp.ClientSession) (loadResult, error) {
	r := loadResult{calls: map[string][]time.Duration{}, first: map[string][]time.Duration{}, firstAlone: map[string][]time.Duration{}}
	var mu sync.Mutex
	fail := func(what string, err error) {
		mu.Lock()
		defer mu.Unlock()
		if len(r.errs) < 20 {
			r.errs = append(r.errs, what+": "+err.Error())
		} else {
			r.errs = append(r.errs, "")
		}
	}
	// Sessions the callers do not use make their first calls one at a
	// time: what a first call costs a session by itself.
	for _, cs := range held[cfg.callers:min(len(held), 2*cfg.callers)] {
		for _, c := range loadCalls {
			d, err := c.on(ctx, cs)
			if err != nil {
				fail(c.tool+" (first, alone)", err)
				continue
			}
			r.firstAlone[c.tool] = append(r.firstAlone[c.tool], d)
		}
	}
	var wg sync.WaitGroup
	firstAt := readHost()
	for _, cs := range held[:cfg.callers] {
		wg.Go(func() {
			for _, c := range loadCalls {
				d, err := c.on(ctx, cs)
				if err != nil {
					fail(c.tool+" (first)", err)
					continue
				}
				mu.Lock()
				r.first[c.tool] = append(r.first[c.tool], d)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	firstDone := readHost()
	r.firstHost, r.firstSpan = between(firstAt, firstDone), firstDone.at.Sub(firstAt.at)

	ctx, cancel := context.WithTimeout(ctx, cfg.duration)
	defer cancel()
	r.started = time.Now()
	before := readHost()
	for i, cs := range held[:cfg.callers] {
		wg.Go(func() {
			// The callers' calls spread over each pace.
			next := r.started.Add(cfg.pace * time.Duration(i) / time.Duration(cfg.callers))
			for n := 0; ctx.Err() == nil; n++ {
				if cfg.pace > 0 {
					select {
					case <-ctx.Done():
						return
					case <-time.After(time.Until(next)):
					}
					next = next.Add(cfg.pace)
				}
				c := loadCalls[n%len(loadCalls)]
				start := time.Now()
				d, err := c.on(ctx, cs)
				if ctx.Err() != nil {
					return // the load ended mid-call: not counted
				}
				if err != nil {
					fail(c.tool, err)
					continue
				}
				mu.Lock()
				r.calls[c.tool] = append(r.calls[c.tool], d)
				if c.tool == "view" && benchkit.Ms(d) > targetViewP99Ms {
					r.slowViews = append(r.slowViews, window{start, start.Add(d)})
				}
				mu.Unlock()
			}
		})
	}
	wg.Go(func() {
		tick := time.NewTicker(cfg.createEvery)
		defer tick.Stop()
		for n := 0; ; n++ {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			start := time.Now()
			cs, d, err := connect(context.WithoutCancel(ctx), hc, url, principals[n%len(principals)])
			if err != nil {
				fail("create", err)
				continue
			}
			closing := time.Now()
			_ = cs.Close()
			mu.Lock()
			r.creates, r.closes = append(r.creates, d), append(r.closes, time.Since(closing))
			r.churn = append(r.churn, window{start, time.Now()})
			mu.Unlock()
		}
	})
	wg.Go(func() { r.probe = sleepProbe(ctx) })
	wg.Wait()
	r.finished, r.host = time.Now(), between(before, readHost())
	return r, nil
}

// usage is a memory and descriptor reading of the gateway's tree.
type usage struct {
	tree benchkit.TreeUsage
	fds  int // open descriptors of the gateway and every process below it
}

// readUsage reads the tree under the gateway at pid.
func readUsage(pid int, boris string) (usage, error) {
	t, err := benchkit.ReadTree(pid, boris)
	if err != nil {
		return usage{}, err
	}
	n := 0
	for _, p := range benchkit.Descendants(pid) {
		entries, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(p), "fd"))
		if err == nil {
			n += len(entries)
		}
	}
	return usage{tree: t, fds: n}, nil
}
