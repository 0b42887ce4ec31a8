package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// Time limits that turn a hung gateway into an error instead of a hung run.
const (
	startTimeout = 30 * time.Second       // from exec to /healthz answering
	stopTimeout  = 15 * time.Second       // from SIGTERM to exit, before SIGKILL
	pollEvery    = 20 * time.Millisecond  // between /healthz or /proc polls
	tailBytes    = 2000                   // of the gateway's log, in errors
	healthWait   = 200 * time.Millisecond // one /healthz request
	// leakWait is how long, after every gateway and stdio core was
	// stopped, processes naming the fixture get to exit before they count
	// as leftovers.
	leakWait = 10 * time.Second
)

// isolation is what a gateway's /healthz says it enforces; the fields
// the benchmark reports, named as /healthz names them.
type isolation struct {
	Sandbox     string `json:"sandbox"` // "landlock" or "none"
	LandlockABI int    `json:"landlock_abi"`
	Cgroup      string `json:"cgroup"` // "v2" or "off"
}

// String formats the reading: "sandbox=landlock cgroup=v2 landlock_abi=7",
// or "not reported" when /healthz had no isolation object.
func (i isolation) String() string {
	if i == (isolation{}) {
		return "not reported"
	}
	return fmt.Sprintf("sandbox=%s cgroup=%s landlock_abi=%d", i.Sandbox, i.Cgroup, i.LandlockABI)
}

// gatewayProc is a running boris-gateway.
type gatewayProc struct {
	cmd    *exec.Cmd
	base   string        // http://127.0.0.1:PORT
	log    string        // file holding its stdout and stderr
	exited chan struct{} // closed once the process is reaped

	stopOnce sync.Once
	clean    bool // exited on SIGTERM, without SIGKILL
}

// startGateway runs boris-gateway for s on a free loopback port, without
// authentication (--auth none, loopback only), serving cores scoped to
// dir, and waits until its /healthz answers. Its log goes to a file in
// dir's parent, the workspace, not to a pipe that would need draining.
func startGateway(ctx context.Context, bins binaries, s setup, dir string) (*gatewayProc, error) {
	// A free port: /healthz is then found there without reading the log.
	port, err := benchkit.FreePort()
	if err != nil {
		return nil, err
	}
	logPath := filepath.Join(filepath.Dir(dir), fmt.Sprintf("gateway-sandbox-%s-cgroups-%s-net-%s.log", s.sandboxArg(), s.cgroupsArg(), s.netArg()))
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("start gateway: %w", err)
	}
	defer logf.Close()
	args := []string{"--listen", "127.0.0.1:" + strconv.Itoa(port), "--auth", "none",
		"--cgroups", s.cgroupsArg(), "--core", bins.boris, "--sandbox-net", s.netArg()}
	if s.net == "proxy" {
		// The download's server, on this host's loopback, by a pinned name.
		args = append(args, "--egress-allow", downloadName+":*", "--egress-resolve", downloadName+"=127.0.0.1")
	}
	cmd := exec.Command(bins.gateway, append(args, "--", "--workdir", dir, "--sandbox", s.sandboxArg())...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = coreEnv(os.Environ())
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start gateway: %w", err)
	}
	g := &gatewayProc{cmd: cmd, base: "http://127.0.0.1:" + strconv.Itoa(port), log: logPath, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(g.exited) }()
	if err := g.awaitHealthy(ctx); err != nil {
		g.stop()
		return nil, fmt.Errorf("start gateway (%s): %w%s", s.name(), err, g.logTail())
	}
	return g, nil
}

// url is the gateway's MCP endpoint.
func (g *gatewayProc) url() string { return g.base + "/mcp" }

// awaitHealthy polls /healthz until it answers, the gateway exits, or
// startTimeout passes.
func (g *gatewayProc) awaitHealthy(ctx context.Context) error {
	deadline := time.Now().Add(startTimeout)
	for {
		if _, err := g.health(ctx); err == nil {
			return nil
		}
		select {
		case <-g.exited:
			return errors.New("exited before serving /healthz")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pollEvery):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("/healthz not answering after %v", startTimeout)
		}
	}
}

// health reads what /healthz says the gateway enforces.
func (g *gatewayProc) health(ctx context.Context) (isolation, error) {
	ctx, cancel := context.WithTimeout(ctx, healthWait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, g.base+"/healthz", nil)
	if err != nil {
		return isolation{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return isolation{}, fmt.Errorf("GET /healthz: %w", err)
	}
	defer resp.Body.Close()
	return parseHealth(resp)
}

// parseHealth decodes a /healthz response's isolation object.
func parseHealth(resp *http.Response) (isolation, error) {
	if resp.StatusCode != http.StatusOK {
		return isolation{}, fmt.Errorf("GET /healthz: status %s", resp.Status)
	}
	var body struct {
		Status    string    `json:"status"`
		Isolation isolation `json:"isolation"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return isolation{}, fmt.Errorf("GET /healthz: %w", err)
	}
	if body.Status != "ok" {
		return isolation{}, fmt.Errorf("GET /healthz: status %q, want ok", body.Status)
	}
	return body.Isolation, nil
}

// stop sends SIGTERM, so the gateway ends its sessions and their cores
// (and cgroups) as it would in production, and waits for it to exit;
// after stopTimeout it is killed. It reports whether the gateway exited
// on its own. Calling it again returns the first answer.
func (g *gatewayProc) stop() bool {
	g.stopOnce.Do(func() { g.clean = g.terminate() })
	return g.clean
}

// terminate is stop's first call.
func (g *gatewayProc) terminate() bool {
	select {
	case <-g.exited:
		return false // it did not wait for a signal
	default:
	}
	return benchkit.Terminate(g.cmd, g.exited, stopTimeout)
}

// logTail returns the end of the gateway's log, for an error message.
func (g *gatewayProc) logTail() string {
	data, err := os.ReadFile(g.log)
	if err != nil || len(bytes.TrimSpace(data)) == 0 {
		return ""
	}
	if len(data) > tailBytes {
		data = data[len(data)-tailBytes:]
	}
	return "\ngateway log (end):\n" + strings.TrimSpace(string(data))
}
