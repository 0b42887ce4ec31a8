package deploy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	nodesConfPath  = "deploy/nginx/boris-nodes.conf"
	caddyNodesPath = "deploy/caddy/Caddyfile.nodes"
)

// nodeTokens are the principals of the several-hosts tests: each node
// knows all of them, as a team's nodes share their tokens.
var nodeTokens = map[string]string{
	"alice": "alice-0123456789abcdef0123456789",
	"bob":   "bob-0123456789abcdef0123456789ab",
	"carol": "carol-0123456789abcdef0123456789",
	"dave":  "dave-0123456789abcdef0123456789a",
}

// startNode starts boris-gateway --node-id node as startGateway starts
// one, with every principal of nodeTokens and a short --drain-linger.
func startNode(t *testing.T, publicURL, node string) *gatewayProc {
	t.Helper()
	args := []string{"--listen", "127.0.0.1:0", "--public-url", publicURL, "--node-id", node, "--drain-linger", "3s",
		"--trusted-proxies", "127.0.0.1/32,::1/128", "--max-sessions", "128", "--max-sessions-per-subject", "64"}
	for name, tok := range nodeTokens {
		args = append(args, "--token", name+"="+tok)
	}
	args = append(args, "--", "--workdir", t.TempDir())
	cmd := exec.Command(gatewayBin, args...)
	cmd.Env = cleanEnv()
	g := &gatewayProc{proc: startProc(t, "boris-gateway "+node, cmd)}
	var m []string
	if !waitFor(15*time.Second, func() bool {
		m = listeningRE.FindStringSubmatch(g.output.String())
		return m != nil || exited(g.proc)
	}) || m == nil {
		t.Fatalf("boris-gateway %s did not report its address:\n%s", node, g.output.String())
	}
	g.addr = m[1]
	t.Cleanup(func() { stopGateway(t, g) })
	return g
}

// seen is what one request learnt: the session it named (or the
// principal, for a request without one) and the node that answered.
type seen struct {
	session, principal, node string
	method                   string // Mcp-Method: set by 2026-07-28 clients
	status                   int
}

// nodeRecorder sends a principal's requests through the proxy and
// records which node answered each.
type nodeRecorder struct {
	next      http.RoundTripper
	principal string
	mu        *sync.Mutex
	log       *[]seen
}

func (r nodeRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+nodeTokens[r.principal])
	resp, err := r.next.RoundTrip(req)
	if err == nil {
		r.mu.Lock()
		*r.log = append(*r.log, seen{session: req.Header.Get("Mcp-Session-Id"), principal: r.principal, node: resp.Header.Get("X-Boris-Node"),
			method: req.Header.Get("Mcp-Method"), status: resp.StatusCode})
		r.mu.Unlock()
	}
	return resp, err
}

// cluster is three nodes behind one proxy, and the clients' record.
type cluster struct {
	t     *testing.T
	base  string
	tr    *clientTransport
	nodes map[string]*gatewayProc
	mu    sync.Mutex
	log   []seen
}

func (c *cluster) connect(ctx context.Context, principal, version string) (*mcp.ClientSession, error) {
	hc := &http.Client{Transport: nodeRecorder{next: c.tr, principal: principal, mu: &c.mu, log: &c.log}}
	client := mcp.NewClient(&mcp.Implementation{Name: "boris-nodes-test", Version: "1"}, nil)
	return client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: c.base + "/mcp", HTTPClient: hc, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
}

func echo(ctx context.Context, s *mcp.ClientSession, word string) error {
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "echo " + word}})
	if err != nil {
		return err
	}
	if res.IsError || !strings.Contains(resultText(res), word) {
		return fmt.Errorf("bash echo %s: %q", word, resultText(res))
	}
	return nil
}

// nodeOf is the node a session id names.
func nodeOf(sid string) string {
	node, _, _ := strings.Cut(sid, ".")
	return node
}

// startNodes starts three nodes, n1 to n3, for a proxy serving
// https://testHost:port of proxyAddr, and the substitutions of their
// addresses in a shipped configuration (10.0.0.11:8080 ... 10.0.0.13:8080).
func startNodes(t *testing.T, proxyAddr string) (*cluster, [][2]string) {
	public := "https://" + testHost + ":" + portOf(proxyAddr) + "/mcp"
	c := &cluster{t: t, base: "https://" + net.JoinHostPort(testHost, portOf(proxyAddr)), nodes: map[string]*gatewayProc{}}
	var repl [][2]string
	for i, node := range []string{"n1", "n2", "n3"} {
		c.nodes[node] = startNode(t, public, node)
		repl = append(repl, [2]string{fmt.Sprintf("10.0.0.1%d:8080", i+1), c.nodes[node].addr})
	}
	return c, repl
}

// TestNginxNodes runs three boris-gateway nodes behind real nginx with
// deploy/nginx/boris-nodes.conf as shipped (addresses, names and
// certificates substituted as in TestNginx): new sessions spread over
// every node, each session's requests reach its own node, a principal's
// 2026-07-28 requests all reach one node, a drained node moves its
// clients to the others, and a node killed with SIGKILL costs only its
// own sessions.
func TestNginxNodes(t *testing.T) {
	nginx := ensureInstalled(t, "nginx", "nginx")
	dir := t.TempDir()
	certs := makeCert(t, dir)
	proxyAddr, redirectAddr := proxyAddress(t), proxyAddress(t)
	c, repl := startNodes(t, proxyAddr)
	repl = append(repl, [][2]string{
		{"/etc/letsencrypt/live/mcp.example.com/fullchain.pem", certs.cert},
		{"/etc/letsencrypt/live/mcp.example.com/privkey.pem", certs.key},
		{"mcp.example.com", testHost},
		{"listen 443 ", "listen " + proxyAddr + " "},
		{"listen 80;", "listen " + redirectAddr + ";"},
	}...)
	conf := substitute(t, nodesConfPath, deployFile(t, nodesConfPath), repl)
	conf = regexp.MustCompile(`(?m)^\s*listen \[::\]:.*$`).ReplaceAllString(conf, "")
	site := filepath.Join(dir, "boris-nodes.conf")
	writeText(t, site, conf)
	main := filepath.Join(dir, "nginx.conf")
	writeText(t, main, nginxMain(dir, site))
	p := startProc(t, "nginx", exec.Command(nginx, "-p", dir+"/", "-c", main, "-e", filepath.Join(dir, "error.log"), "-g", "daemon off;"))
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Logf("nginx error.log:\n%s", b)
		}
	})
	c.tr = newClientTransport(proxyAddr, certs.pool, false)
	waitReady(t, p, c.base, c.tr)
	testNodes(t, c)
}

// TestCaddyNodes is TestNginxNodes with real Caddy and
// deploy/caddy/Caddyfile.nodes (substituted as in TestCaddy).
func TestCaddyNodes(t *testing.T) {
	caddy := ensureInstalled(t, "caddy", "caddy")
	if out, err := exec.Command(caddy, "fmt", filepath.Join(repoRoot, caddyNodesPath)).Output(); err != nil || string(out) != deployFile(t, caddyNodesPath) {
		t.Errorf("%s is not formatted as `caddy fmt` writes it (%v)", caddyNodesPath, err)
	}
	dir := t.TempDir()
	certs := makeCert(t, dir)
	proxyAddr, redirectAddr := proxyAddress(t), proxyAddress(t)
	c, repl := startNodes(t, proxyAddr)
	const certs0 = "/etc/letsencrypt/live/mcp.example.com/fullchain.pem /etc/letsencrypt/live/mcp.example.com/privkey.pem"
	repl = append(repl, [][2]string{
		{"# tls " + certs0, "tls " + certs.cert + " " + certs.key},
		{"mcp.example.com", testHost},
	}...)
	site := substitute(t, caddyNodesPath, deployFile(t, caddyNodesPath), repl)
	global := fmt.Sprintf("{\n\tadmin off\n\tdefault_bind 127.0.0.1\n\thttps_port %s\n\thttp_port %s\n\tskip_install_trust\n}\n\n", portOf(proxyAddr), portOf(redirectAddr))
	conf := filepath.Join(dir, "Caddyfile")
	writeText(t, conf, global+site)
	cmd := exec.Command(caddy, "run", "--config", conf, "--adapter", "caddyfile")
	cmd.Dir = dir
	cmd.Env = cleanEnv("HOME="+dir, "XDG_DATA_HOME="+filepath.Join(dir, "data"), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	p := startProc(t, "caddy", cmd)
	// HTTP/2, as browsers and Go clients speak to Caddy over TLS: Caddy
	// can cut an HTTP/1.1 client's streamed POST response a few ms after
	// its headers (caddyserver/caddy#5431, open; seen here about once in
	// 120 calls under load, "reading from backend: use of closed network
	// connection"). docs/deployment.md says so; TestNginxNodes covers
	// HTTP/1.1 clients, and TestCaddy both.
	c.tr = newClientTransport(proxyAddr, certs.pool, true)
	waitReady(t, p, c.base, c.tr)
	testNodes(t, c)
}

// testNodes is the several-hosts scenario through a proxy in front of
// c's three nodes.
func testNodes(t *testing.T, c *cluster) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	principals := []string{"alice", "bob", "carol", "dave"}

	// 60 session clients, 3 at a time, each calling twice.
	type held struct {
		s    *mcp.ClientSession
		node string
	}
	var sessions []held
	var smu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 3)
	for i := range 60 {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			s, err := c.connect(ctx, principals[i%len(principals)], "2025-11-25")
			if err != nil {
				t.Errorf("session %d: initialize through the proxy: %v", i, err)
				return
			}
			for k := range 2 {
				if err := echo(ctx, s, fmt.Sprintf("s%d-%d", i, k)); err != nil {
					t.Errorf("session %d (%s): %v", i, s.ID(), err)
				}
			}
			smu.Lock()
			sessions = append(sessions, held{s, nodeOf(s.ID())})
			smu.Unlock()
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	perNode := map[string]int{}
	for _, h := range sessions {
		perNode[h.node]++
	}
	for node := range c.nodes {
		if perNode[node] == 0 {
			t.Errorf("no session on node %s: sessions per node %v, want them spread over all three", node, perNode)
		}
	}

	// 2026-07-28: each principal's requests all reach one node.
	for _, who := range principals {
		s, err := c.connect(ctx, who, "2026-07-28")
		if err != nil {
			t.Fatalf("%s: 2026-07-28 client: %v", who, err)
		}
		for k := range 4 {
			if err := echo(ctx, s, fmt.Sprintf("%s-%d", who, k)); err != nil {
				t.Errorf("%s, 2026-07-28: %v", who, err)
			}
		}
		_ = s.Close()
	}
	c.mu.Lock()
	byPrincipal := map[string]map[string]bool{}
	for _, x := range c.log {
		switch {
		case x.session != "" && x.node != nodeOf(x.session):
			t.Errorf("a request of session %s was answered by node %q (status %d)", x.session, x.node, x.status)
		case x.session == "" && x.method != "":
			if byPrincipal[x.principal] == nil {
				byPrincipal[x.principal] = map[string]bool{}
			}
			byPrincipal[x.principal][x.node] = true
		}
	}
	c.log = nil
	c.mu.Unlock()
	for _, who := range principals {
		if nodes := byPrincipal[who]; len(nodes) != 1 {
			t.Errorf("%s's 2026-07-28 requests were answered by nodes %v, want exactly one", who, nodes)
		}
	}
	t.Logf("sessions per node: %v; 2026-07-28 principals' nodes: %v", perNode, byPrincipal)

	// Drain n1: its sessions answer 404 and their clients start again
	// elsewhere; it exits 0 and leaves no core.
	drained := c.nodes["n1"]
	_ = syscall.Kill(drained.cmd.Process.Pid, syscall.SIGTERM)
	var moved int
	for _, h := range sessions {
		if h.node != "n1" {
			continue
		}
		err := echo(ctx, h.s, "after-drain")
		if err == nil {
			// Still in flight-finishing time; the session ends shortly.
			waitFor(10*time.Second, func() bool { return echo(ctx, h.s, "after-drain") != nil })
			err = echo(ctx, h.s, "after-drain")
		}
		if err == nil {
			t.Errorf("session %s on the drained node still answers", h.s.ID())
			continue
		}
		// As a client does on 503 with Retry-After: try again shortly
		// (a proxy that checks health actively may still pick the
		// draining node until its next check).
		var s *mcp.ClientSession
		for try := 0; try < 10; try++ {
			if s, err = c.connect(ctx, "alice", "2025-11-25"); err == nil {
				break
			}
			time.Sleep(300 * time.Millisecond)
		}
		if err != nil {
			t.Errorf("re-initialise after the drain: %v", err)
			continue
		}
		if node := nodeOf(s.ID()); node == "n1" || echo(ctx, s, "moved") != nil {
			t.Errorf("re-initialised session %s: want it on another node, answering", s.ID())
		}
		moved++
		_ = s.Close()
	}
	if moved == 0 {
		t.Errorf("no session was on n1 to move: %v", perNode)
	}
	select {
	case <-drained.exited:
		if drained.err != nil {
			t.Errorf("drained node exit: %v, want 0", drained.err)
		}
	case <-time.After(30 * time.Second):
		t.Errorf("drained node n1 still running 30 s after SIGTERM")
	}

	// SIGKILL n2: its sessions fail (502 from the proxy); n3's go on.
	c.mu.Lock()
	c.log = nil
	c.mu.Unlock()
	killed := c.nodes["n2"]
	_ = syscall.Kill(-killed.cmd.Process.Pid, syscall.SIGKILL)
	<-killed.exited
	for _, h := range sessions {
		err := echo(ctx, h.s, "after-kill")
		switch h.node {
		case "n2":
			if err == nil {
				t.Errorf("session %s of the killed node still answers", h.s.ID())
			}
		case "n3":
			if err != nil {
				t.Errorf("session %s of the surviving node n3: %v", h.s.ID(), err)
			}
		}
	}
	c.mu.Lock()
	for _, x := range c.log {
		if x.session != "" && nodeOf(x.session) == "n2" && x.status != http.StatusBadGateway && x.status != http.StatusNotFound {
			t.Errorf("a request of session %s on the killed node: status %d, want 502 from the proxy", x.session, x.status)
		}
	}
	c.mu.Unlock()
	for _, h := range sessions {
		if h.node == "n3" {
			_ = h.s.Close()
		}
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Error("the scenario ran out of time")
	}
}
