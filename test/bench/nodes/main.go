// Command nodes measures boris-gateway nodes behind nginx with the shipped
// several-hosts configuration (deploy/nginx/boris-nodes.conf; TLS left out,
// the rest as shipped), in one run on this machine (issue 16):
//
//   - throughput: small calls (a view of a 50-line file) per second from
//     -concurrency session clients calling at once for -duration, with 1,
//     2 and 3 nodes behind nginx, and where the CPU time went meanwhile
//     (nginx, the gateways, their cores, this client), read from /proc;
//   - the proxy's added latency: p50/p99 of the same call by one client,
//     through nginx and straight to a node, calls taking turns.
//
// nginx comes from Debian's package (installed with apt-get when missing,
// as the deployment tests do). Run it from the module root:
// `go run ./test/bench/nodes` (or `make bench-nodes`). It never fails on
// speed; it exits non-zero when a call fails or a process is left behind.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/internal/procstat"
	"github.com/mjkoo/boris/test/bench/benchkit"
)

const prog = "bench-nodes"

func main() {
	workers := flag.Int("concurrency", 8, "session clients calling at once in the throughput phase")
	duration := flag.Duration("duration", 5*time.Second, "length of each throughput phase")
	calls := flag.Int("calls", 500, "timed calls per path in the latency phase")
	flag.Parse()
	if *workers < 1 || *duration <= 0 || *calls < 1 {
		benchkit.ExitUsage(prog, "-concurrency and -calls must be at least 1, -duration positive")
	}
	os.Exit(benchkit.Run(prog, os.Stderr, func(ctx context.Context) error {
		return run(ctx, *workers, *duration, *calls, os.Stdout)
	}))
}

func run(ctx context.Context, workers int, duration time.Duration, calls int, out io.Writer) error {
	nginx, err := findNginx(ctx)
	if err != nil {
		return err
	}
	ws, err := benchkit.NewWorkspace(ctx, "boris-bench-nodes-", "boris nodes bench")
	if err != nil {
		return err
	}
	defer ws.Close()
	if _, err := benchkit.Build(ctx, ws.Root, ws.Dir, "boris"); err != nil {
		return err
	}
	gw, err := benchkit.Build(ctx, ws.Root, ws.Dir, "boris-gateway")
	if err != nil {
		return err
	}
	shipped, err := os.ReadFile(filepath.Join(ws.Root, "deploy", "nginx", "boris-nodes.conf"))
	if err != nil {
		return err
	}
	fx := ws.Fixture
	read := benchkit.ReadCall{Tool: "view", Args: map[string]any{"path": fx.Path}, Fixture: fx}

	var nodes []*benchkit.Gateway
	defer func() {
		for _, n := range nodes {
			n.Stop()
		}
	}()
	type row struct {
		nodes      int
		callsPerS  float64
		cpu        map[string]time.Duration
		wall       time.Duration
		perNodeSes map[string]int
	}
	var rows []row
	var latency [2]benchkit.Stats
	for n := 1; n <= 3; n++ {
		nd, err := benchkit.StartGateway(ctx, gw, "--listen", "127.0.0.1:0", "--auth", "none", "--node-id", fmt.Sprintf("n%d", n),
			"--max-sessions", "256", "--", "--workdir", fx.Dir, "--checkpoints", "off")
		if err != nil {
			return err
		}
		nodes = append(nodes, nd)
		proxy, stop, nginxGroup, err := startNginx(ctx, nginx, ws.Dir, string(shipped), nodes)
		if err != nil {
			return err
		}
		gateways := map[int]bool{}
		for _, nd := range nodes {
			gateways[nd.Pid()] = true
		}
		cpuNow := func() map[string]time.Duration { return cpuByKind(fx.Dir, gateways, nginxGroup) }
		fmt.Fprintf(os.Stderr, "%s: %d node(s): %d clients for %v\n", prog, n, workers, duration)
		done, cpu, wall, perNode, err := throughput(ctx, "http://"+proxy+"/mcp", read, workers, duration, cpuNow)
		if err == nil && n == 1 {
			fmt.Fprintf(os.Stderr, "%s: latency: %d calls through nginx and straight to the node, taking turns\n", prog, calls)
			latency, err = proxyLatency(ctx, "http://"+proxy+"/mcp", nodes[0].URL(), read, calls)
		}
		stop()
		if err != nil {
			return err
		}
		rows = append(rows, row{nodes: n, callsPerS: float64(done) / wall.Seconds(), cpu: cpu, wall: wall, perNodeSes: perNode})
	}

	fmt.Fprintf(out, "boris-gateway nodes behind nginx (deploy/nginx/boris-nodes.conf, no TLS), %d CPUs\n", runtime.NumCPU())
	fmt.Fprintf(out, "throughput: %d session clients calling view of a %d-line file for %v\n\n", workers, benchkit.FixtureLines, duration)
	fmt.Fprintf(out, "%-6s %10s  %-22s %s\n", "nodes", "calls/s", "sessions per node", "CPU time (share of the phase's CPU)")
	for _, r := range rows {
		var total time.Duration
		for _, d := range r.cpu {
			total += d
		}
		var parts []string
		for _, k := range []string{"cores", "gateways", "nginx", "client"} {
			parts = append(parts, fmt.Sprintf("%s %.0f%%", k, 100*float64(r.cpu[k])/float64(max(total, 1))))
		}
		fmt.Fprintf(out, "%-6d %10.0f  %-22s %s (%.1f CPU-s of %.1f s)\n", r.nodes, r.callsPerS, fmt.Sprint(r.perNodeSes), strings.Join(parts, ", "),
			total.Seconds(), r.wall.Seconds())
	}
	fmt.Fprintf(out, "\nlatency of one client, %d calls each, taking turns\n", calls)
	fmt.Fprintf(out, "%-24s %10s %10s\n", "path", "p50", "p99")
	fmt.Fprintf(out, "%-24s %10s %10s\n", "through nginx", benchkit.FormatMs(latency[0].P50), benchkit.FormatMs(latency[0].P99))
	fmt.Fprintf(out, "%-24s %10s %10s\n", "straight to the node", benchkit.FormatMs(latency[1].P50), benchkit.FormatMs(latency[1].P99))
	fmt.Fprintf(out, "%-24s %10s\n", "nginx adds", benchkit.FormatMs(latency[0].P50-latency[1].P50))

	for _, nd := range nodes {
		nd.Stop()
	}
	return benchkit.CheckNoneLeft(ctx, fx.Dir)
}

// findNginx returns nginx, installing Debian's package when it is missing
// (after "apt-get update" if the first try fails).
func findNginx(ctx context.Context) (string, error) {
	look := func() string {
		for _, p := range []string{"nginx", "/usr/sbin/nginx"} {
			if path, err := exec.LookPath(p); err == nil {
				return path
			}
		}
		return ""
	}
	if p := look(); p != "" {
		return p, nil
	}
	fmt.Fprintln(os.Stderr, prog+": installing nginx (apt-get)")
	apt := func(args ...string) error {
		cmd := exec.CommandContext(ctx, "apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("apt-get %s: %w\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	install := []string{"install", "-y", "--no-install-recommends", "nginx"}
	if err := apt(install...); err != nil {
		if err := apt("update"); err != nil {
			return "", err
		}
		if err := apt(install...); err != nil {
			return "", err
		}
	}
	if p := look(); p != "" {
		return p, nil
	}
	return "", fmt.Errorf("apt-get installed nginx but it is not on PATH or in /usr/sbin")
}

// startNginx runs nginx with the shipped file for nodes: their addresses
// in, the absent nodes' servers out, plain HTTP on a loopback port.
func startNginx(ctx context.Context, nginx, dir, shipped string, nodes []*benchkit.Gateway) (addr string, stop func(), group int, err error) {
	conf := shipped
	for i := 1; i <= 3; i++ {
		placeholder := fmt.Sprintf("10.0.0.1%d:8080", i)
		if i <= len(nodes) {
			conf = strings.ReplaceAll(conf, placeholder, nodes[i-1].Addr)
		} else {
			conf = regexp.MustCompile(`(?m)^.*`+regexp.QuoteMeta(placeholder)+`.*$`).ReplaceAllString(conf, "")
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, 0, err
	}
	addr = ln.Addr().String()
	ln.Close()
	conf = regexp.MustCompile(`(?m)^\s*(listen|ssl_\w+) .*$`).ReplaceAllString(conf, "")
	conf = strings.Replace(conf, "server_name mcp.example.com;  # CHANGE\n    return 301", "listen 127.0.0.1:1;\n    server_name redirect.invalid;\n    return 301", 1)
	conf = strings.Replace(conf, "server_name mcp.example.com;  # CHANGE\n", "listen "+addr+";\n    server_name _;\n", 1)
	site := filepath.Join(dir, "boris-nodes.conf")
	if err := os.WriteFile(site, []byte(conf), 0o644); err != nil {
		return "", nil, 0, err
	}
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;"
	}
	main := fmt.Sprintf("%s\nworker_processes 1;\npid %[2]s/nginx.pid;\nerror_log %[2]s/nginx-error.log;\nevents { worker_connections 1024; }\n"+
		"http {\n    access_log off;\n    client_body_temp_path %[2]s/cb;\n    proxy_temp_path %[2]s/px;\n    include %[3]s;\n}\n", user, dir, site)
	mainPath := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(mainPath, []byte(main), 0o644); err != nil {
		return "", nil, 0, err
	}
	cmd := exec.CommandContext(ctx, nginx, "-p", dir+"/", "-c", mainPath, "-g", "daemon off;")
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return "", nil, 0, err
	}
	stop = func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		_ = cmd.Wait()
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return addr, stop, cmd.Process.Pid, nil
			}
		}
		if time.Now().After(deadline) {
			stop()
			return "", nil, 0, fmt.Errorf("nginx did not answer /healthz on %s", addr)
		}
	}
}

// connect opens a 2025-11-25 session through url.
func connect(ctx context.Context, url string, hc *http.Client) (*mcp.ClientSession, error) {
	t := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1, DisableStandaloneSSE: true}
	return benchkit.NewClient(prog).Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
}

// throughput runs workers sessions calling read for d and returns the
// calls done, the CPU time spent by each kind of process meanwhile, the
// phase's length and how many sessions each node got.
func throughput(ctx context.Context, url string, read benchkit.ReadCall, workers int, d time.Duration, cpuNow func() map[string]time.Duration) (int64, map[string]time.Duration, time.Duration, map[string]int, error) {
	hc := &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: workers * 2}}
	sessions := make([]*mcp.ClientSession, workers)
	perNode := map[string]int{}
	for i := range sessions {
		s, err := connect(ctx, url, hc)
		if err != nil {
			return 0, nil, 0, nil, err
		}
		defer s.Close()
		sessions[i] = s
		node, _, _ := strings.Cut(s.ID(), ".")
		perNode[node]++
	}
	before := cpuNow()
	start := time.Now()
	var done atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	for _, s := range sessions {
		call := read.On(ctx, s)
		wg.Go(func() {
			for time.Since(start) < d {
				if err := call(); err != nil {
					once.Do(func() { firstErr = err })
					return
				}
				done.Add(1)
			}
		})
	}
	wg.Wait()
	wall := time.Since(start)
	after := cpuNow()
	cpu := map[string]time.Duration{}
	for k, v := range after {
		cpu[k] = v - before[k]
	}
	return done.Load(), cpu, wall, perNode, firstErr
}

// proxyLatency times one client's calls through the proxy and straight
// to the node, taking turns.
func proxyLatency(ctx context.Context, viaProxy, direct string, read benchkit.ReadCall, calls int) ([2]benchkit.Stats, error) {
	var out [2]benchkit.Stats
	hc := &http.Client{Transport: &http.Transport{Proxy: nil}}
	var ops [2]func() error
	for i, url := range []string{viaProxy, direct} {
		s, err := connect(ctx, url, hc)
		if err != nil {
			return out, err
		}
		defer s.Close()
		ops[i] = read.On(ctx, s)
	}
	ds := [2][]time.Duration{}
	for i := range calls + 50 {
		for k := range ops {
			start := time.Now()
			if err := ops[k](); err != nil {
				return out, err
			}
			if i >= 50 {
				ds[k] = append(ds[k], time.Since(start))
			}
		}
	}
	return [2]benchkit.Stats{benchkit.Summarize(ds[0]), benchkit.Summarize(ds[1])}, nil
}

// cpuByKind sums user+system CPU time of this run's processes of each
// kind: the boris cores (their command lines name dir), the boris-gateway
// nodes, nginx's processes, and this benchmark itself.
func cpuByKind(dir string, gateways map[int]bool, nginxGroup int) map[string]time.Duration {
	out := map[string]time.Duration{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := procstat.Read(pid)
		if err != nil {
			continue
		}
		comm, pgrp, d := st.Comm, st.PGRP, st.CPU
		switch {
		case pid == os.Getpid():
			out["client"] += d
		case gateways[pid]:
			out["gateways"] += d
		case pgrp == nginxGroup && comm == "nginx":
			out["nginx"] += d
		case comm == "boris":
			if cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && strings.Contains(string(cmdline), dir) {
				out["cores"] += d
			}
		}
	}
	return out
}
