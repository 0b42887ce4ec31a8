//go:build linux

package test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The network and process tests (issue 29, docs/reference/security.md#network-modes "Tenants neither see
// nor reach each other") attack the documented multi-user set-up (see
// isolation_test.go) with the gateway's default --sandbox-net, which is
// proxy: each session's commands in PID, IPC and network namespaces of
// their own, outbound HTTP(S) only through the egress proxy. alice is the
// static token, bob a JWT with every scope; the world outside is
// netWorld's servers on the host.

// netPython is the Python the commands run: the system's, which the
// sandbox lets them read (a pyenv under /root would not be).
const netPython = "/usr/bin/python3"

// netTenantPort is where both tenants' own servers listen, each on its
// own loopback.
const netTenantPort = 18998

// netHealth is the network and mount part of /healthz's isolation report.
type netHealth struct {
	Net          string `json:"net"`
	NetEnforced  string `json:"net_enforced"`
	PIDNamespace bool   `json:"pid_namespace"`
	PrivateRoot  bool   `json:"private_root"`
}

// netHealthOf reads it.
func netHealthOf(t *testing.T, url string) netHealth {
	t.Helper()
	resp, err := gwClient.Get(strings.TrimSuffix(url, "/mcp") + "/healthz")
	if err != nil {
		t.Fatalf("/healthz: %v", err)
	}
	defer resp.Body.Close()
	var body struct {
		Isolation *netHealth `json:"isolation"`
	}
	if err := jsonDecode(resp.Body, &body); err != nil || body.Isolation == nil {
		t.Fatalf("/healthz: got %v %v, want an isolation report", body.Isolation, err)
	}
	return *body.Isolation
}

// netGateway starts a gateway of the multi-user set-up with the world's
// egress flags, extra flags and extra environment.
func netGateway(t *testing.T, w *netWorld, env []string, extra ...string) *isoGateway {
	t.Helper()
	f := newIsoFixture(t)
	root := filepath.Join(realTempDir(t), "work")
	if !landlockAvailable() {
		extra = append(extra, "--allow-readable-secrets")
	}
	args := f.args(root, append(w.gatewayArgs(), extra...)...)
	g := &isoGateway{authGateway: startAuthGateway(t, append(isoEnv(t), env...), args...), root: root}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("boris-gateway log:\n%s", g.stderr)
		}
	})
	return g
}

// netBob opens a session of bob with every scope.
func (g *isoGateway) netBob(t *testing.T) *isoSession {
	return g.open(t, authHMACToken(t, "bob", "boris:read boris:write boris:exec"), true)
}

// gwPort is the gateway's own port.
func (g *isoGateway) gwPort() string {
	_, rest, _ := strings.Cut(g.url, "://127.0.0.1:")
	port, _, _ := strings.Cut(rest, "/")
	return port
}

// netWant fails unless out holds every want and none of wantNot.
func netWant(t *testing.T, what, out string, want, wantNot []string) {
	t.Helper()
	for _, s := range want {
		if !strings.Contains(out, s) {
			t.Errorf("%s: got %.1500q, want it to hold %q", what, out, s)
		}
	}
	for _, s := range wantNot {
		if strings.Contains(out, s) {
			t.Errorf("%s: got %.1500q, want no trace of %q", what, out, s)
		}
	}
}

// netFails fails unless the command's exit code is not zero.
func netFails(t *testing.T, what, out string) {
	t.Helper()
	if isoExitCode(out) == 0 {
		t.Errorf("%s: got exit_code 0 (%.800q), want a failure", what, out)
	}
}

// netServe starts, as a background task of s, a web server on its
// loopback at netTenantPort serving a file named name holding body, and
// waits until s's own commands reach it.
func netServe(t *testing.T, s *isoSession, name, body string) {
	t.Helper()
	dir := "srv-" + name
	isoOK(t, s, "create_file", map[string]any{"path": dir + "/" + name, "content": body + "\n"})
	isoStartTask(t, s, fmt.Sprintf("exec "+netPython+" -m http.server %d --bind 127.0.0.1 --directory %s", netTenantPort, dir))
	out := isoBash(t, s, fmt.Sprintf("for i in $(seq 100); do curl -sf http://127.0.0.1:%d/%s && exit 0; sleep 0.1; done; exit 1", netTenantPort, name))
	if isoExitCode(out) != 0 || !strings.Contains(out, body) {
		t.Fatalf("the session's own server: got %q, want %q", out, body)
	}
}

// procScan prints every visible process's command line, environment and
// open files, and marker: the scan finds its own command.
const procScan = `: %s; for p in /proc/[0-9]*; do tr '\0' ' ' < $p/cmdline; echo; tr '\0' '\n' < $p/environ; ls -l $p/fd; done 2>/dev/null; ps auxww; pgrep -af api-key; cat /proc/net/tcp /proc/net/tcp6 /proc/net/unix`

// TestNetTenants: two tenants on a gateway with the default network
// settings see only their own processes and reach only their own
// loopback; outbound traffic goes through the egress proxy only, to
// allowed names only; ordinary work (background tasks, job control, ps,
// git clone, go mod download) keeps working; and a session's namespaces,
// processes and proxy connections end with it.
func TestNetTenants(t *testing.T) {
	netNeeds(t, "curl", netPython)
	w := netWorldStart(t)
	g := netGateway(t, w, nil)
	if h := netHealthOf(t, g.url); h.Net != "proxy" || h.NetEnforced != "namespace" || !h.PIDNamespace {
		t.Errorf("/healthz: got %+v, want net proxy (the default) enforced by namespace, with a PID namespace", h)
	}
	t.Run("processes and listeners", func(t *testing.T) { testNetTenants(t, g) })
	t.Run("proxy", func(t *testing.T) { testNetProxy(t, g, w) })
	t.Run("everyday", func(t *testing.T) { testNetEveryday(t, g) })
	t.Run("session end", func(t *testing.T) { testNetSessionEnd(t, g, w) })
}

// testNetTenants: bob looks for alice's processes and reaches for her
// server, the gateway and a service of the host; alice sees and reaches
// her own.
func testNetTenants(t *testing.T, g *isoGateway) {
	alice, bob := g.open(t, authAlice, true), g.netBob(t)
	m := gwSleepMarker()
	isoStartTask(t, alice, "exec -a 'worker --api-key=SECRET-"+m+"' sleep 600")
	isoStartTask(t, alice, "echo x > open-"+m+".txt && SECRET_ENV=ENV-"+m+" exec sleep 601 3<open-"+m+".txt")
	netServe(t, alice, "alice-"+m+".txt", "alice's page "+m)
	port := fmt.Sprintf(":%04X ", netTenantPort) // as /proc/net/tcp writes it
	secrets := []string{"SECRET-" + m, "ENV-" + m, "open-" + m, "alice's page"}

	// The scan can fail: run by alice it finds all of hers.
	netWant(t, "alice's scan of /proc, ps, pgrep and /proc/net", isoBash(t, alice, fmt.Sprintf(procScan, "alice-"+m)),
		append(secrets[:3:3], port), nil)
	out := isoBash(t, bob, fmt.Sprintf(procScan, "bob-"+m))
	netWant(t, "bob's scan of /proc, ps, pgrep and /proc/net", out, []string{"bob-" + m}, append(secrets, port))

	gw := g.gwPort()
	attacks := []struct{ name, command string }{
		{"alice's server", fmt.Sprintf("curl -sS -m 5 http://127.0.0.1:%d/alice-%s.txt", netTenantPort, m)},
		{"alice's server through the proxy", fmt.Sprintf("curl -sS -m 5 --noproxy '' -x http://127.0.0.1:3128 -f http://127.0.0.1:%d/alice-%s.txt", netTenantPort, m)},
		{"the gateway's port", "curl -sS -m 5 http://127.0.0.1:" + gw + "/healthz"},
		{"the gateway's port through the proxy", "curl -sS -m 5 -f --noproxy '' -x http://127.0.0.1:3128 http://127.0.0.1:" + gw + "/healthz"},
		{"the gateway's port by localhost through the proxy", "curl -sS -m 5 -f --noproxy '' -x http://127.0.0.1:3128 http://localhost:" + gw + "/healthz"},
	}
	for _, a := range attacks {
		out := isoBash(t, bob, a.command)
		netFails(t, "bob: "+a.name, out)
		netWant(t, "bob: "+a.name, out, nil, []string{"alice's page", `"status"`, `"sessions"`})
	}
	// Alice reaches her own server; bob may run his on the same port,
	// and reaches his, not hers.
	netWant(t, "alice: her own server", isoBash(t, alice, fmt.Sprintf("curl -sS -m 5 http://127.0.0.1:%d/alice-%s.txt", netTenantPort, m)), []string{"alice's page " + m}, nil)
	netServe(t, bob, "bob-"+m+".txt", "bob's page "+m)
	netWant(t, "bob: his own server on the same port", isoBash(t, bob, fmt.Sprintf("curl -sS -m 5 http://127.0.0.1:%d/", netTenantPort)), []string{"bob-" + m + ".txt"}, []string{"alice-" + m})
}

// testNetProxy: through the proxy, allowed names answer over HTTP and
// HTTPS, git clone and go mod download work; denied names get a 403
// naming the rule and are never resolved; nothing else gets out: raw TCP,
// UDP and DNS reach nothing.
func testNetProxy(t *testing.T, g *isoGateway, w *netWorld) {
	alice := g.open(t, authAlice, true)
	isoOK(t, alice, "create_file", map[string]any{"path": "ca.pem", "content": string(w.caPEM)})
	cases := []struct {
		name, command string
		want, wantNot []string
		fails         bool
	}{
		{"allowed over http", "curl -sS -m 20 http://" + w.plain + "/", []string{"hello from outside over http"}, nil, false},
		{"allowed over https (CONNECT)", "curl -sS -m 20 --cacert ca.pem https://" + w.secure + "/", []string{"hello from outside over https"}, nil, false},
		{"denied over http", "curl -sS -m 20 -w '\\ncode=%{http_code}\\n' http://" + w.denied + "/",
			[]string{"code=403", "boris egress proxy", netDeniedName, "--egress-allow", "rule: deny by default"}, []string{"denied server answered"}, false},
		{"denied over https (CONNECT)", "curl -sS -m 20 -k https://" + w.denied + "/", []string{"403"}, []string{"denied server answered"}, true},
		{"denied IP literal", "curl -sS -m 20 --noproxy '' -w '\\ncode=%{http_code}\\n' http://" + strings.Replace(w.denied, netDeniedName, "127.0.0.1", 1) + "/", []string{"code=403"}, []string{"denied server answered"}, false},
		{"raw TCP to the host's loopback", "exec 3<>/dev/tcp/127.0.0.1/" + netPort(w.tcp.Addr()) + " && cat <&3", nil, []string{"raw tcp service"}, true},
		{"raw TCP to the denied server", "exec 3<>/dev/tcp/127.0.0.1/" + strings.TrimPrefix(w.denied, netDeniedName+":") + " && echo connected", nil, []string{"connected"}, true},
		{"DNS lookup in the namespace", "getent hosts " + netPlainName + " || getent hosts example.com", nil, []string{"127.0.0.1"}, true},
		{"git clone", "git clone -q http://" + w.git + "/repo.git cloned-" + gwSleepMarker() + " && cat cloned-*/README", []string{"cloned through the egress proxy"}, nil, false},
		{"go mod download", `cd "$(mktemp -d)" && GOPROXY=http://` + w.goproxy + ` GOSUMDB=off GONOSUMDB='*' go mod download -json ` + netModule + "@" + netVersion,
			[]string{`"Version": "` + netVersion + `"`, `"Zip":`}, nil, false},
	}
	if w.hostAddr != "" {
		cases = append(cases, struct {
			name, command string
			want, wantNot []string
			fails         bool
		}{"raw TCP to the host's address", "exec 3<>/dev/tcp/" + w.hostAddr + "/" + netPort(w.tcp.Addr()) + " && cat <&3", nil, []string{"raw tcp service"}, true})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "git clone" {
				netNeeds(t, "git")
			}
			if c.name == "go mod download" {
				netNeeds(t, "go")
			}
			out := isoBash(t, alice, c.command)
			if c.fails {
				netFails(t, c.name, out)
			} else if isoExitCode(out) != 0 {
				t.Errorf("%s: got %.1500q, want exit_code 0", c.name, out)
			}
			netWant(t, c.name, out, c.want, c.wantNot)
		})
	}
	// UDP to the host's services and the proxy's DNS server: nothing
	// arrives. One datagram the test sends afterwards, over the same
	// loopback, shows the counter counts (and would follow any leak).
	targets := []string{"127.0.0.1:" + netPort(w.udp.LocalAddr()), w.dns.LocalAddr().String()}
	if w.hostAddr != "" {
		targets = append(targets, net.JoinHostPort(w.hostAddr, netPort(w.udp.LocalAddr())))
	}
	var py strings.Builder
	py.WriteString("import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n")
	for _, tg := range targets {
		h, p, _ := net.SplitHostPort(tg)
		fmt.Fprintf(&py, "try:\n    s.sendto(b'leak', (%q, %s))\nexcept OSError as e:\n    print('refused', e)\n", h, p)
	}
	isoOK(t, alice, "create_file", map[string]any{"path": "udp.py", "content": py.String()})
	isoBash(t, alice, netPython+" udp.py")
	for _, pc := range []net.PacketConn{w.udp, w.dns} {
		c, err := net.Dial("udp", "127.0.0.1:"+netPort(pc.LocalAddr()))
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte("sanity"))
		c.Close()
	}
	waitFor(t, "the test's own datagrams", func() bool { return w.udpHits.Load() >= 1 && w.dnsHits.Load() >= 1 })
	if n, d := w.udpHits.Load(), w.dnsHits.Load(); n != 1 || d != 1 {
		t.Errorf("datagrams: the UDP service got %d and the DNS server %d, want 1 each (the test's own): commands' UDP must not leave the namespace, and denied names must not be resolved", n, d)
	}
	if n := w.tcpHits.Load(); n != 0 {
		t.Errorf("raw TCP service: got %d connections, want 0", n)
	}
	if n := w.deniedHits.Load(); n != 0 {
		t.Errorf("the denied server: got %d requests, want 0", n)
	}
	// The DNS server counts what the proxy asks it: an allowed name that is
	// not pinned is looked up there (and the test's server never answers).
	isoBash(t, alice, "curl -sS -m 3 http://"+netDNSName+"/")
	waitFor(t, "the proxy's DNS query for an allowed, unpinned name", func() bool { return w.dnsHits.Load() >= 2 })
}

// testNetEveryday: in its namespaces, a session's job control, setsid,
// background tasks and ps work as on any machine.
func testNetEveryday(t *testing.T, g *isoGateway) {
	alice := g.open(t, authAlice, true)
	out := isoBash(t, alice, `set -m; sleep 100 & echo "job=$(jobs -p)"; kill %1; wait; `+
		`setsid bash -c 'echo "own-session=$(( $(ps -o sid= -p $$) == $$ ))"'; echo "pid1=$(ps -o comm= -p 1)"; ps -e -o pid=,comm= | wc -l | sed 's/^/procs=/'`)
	if isoExitCode(out) != 0 || !regexp.MustCompile(`job=\d+`).MatchString(out) || !strings.Contains(out, "own-session=1") || !strings.Contains(out, "pid1=") {
		t.Errorf("job control, setsid, ps: got %q, want exit 0, a job pid, own-session=1 and PID 1", out)
	}
	if m := regexp.MustCompile(`procs=(\d+)`).FindStringSubmatch(out); m == nil {
		t.Errorf("ps -e: got %q, want a count", out)
	} else if n, _ := strconv.Atoi(m[1]); n < 3 || n > 20 {
		t.Errorf("ps -e in a fresh session: got %d processes, want a few (the session's own), not the host's", n)
	}
	task := isoTask(t, alice, "ps -e -o comm= | sort | uniq | tr '\\n' ' '")
	netWant(t, "ps in a background task", task, []string{"ps", "bash"}, nil)
}

// testNetSessionEnd: when a session ends, its namespaces, processes, its
// bridge and its tunnels through the egress proxy end with it.
func testNetSessionEnd(t *testing.T, g *isoGateway, w *netWorld) {
	// A tunnel through the proxy stays open until both its ends close: the
	// server sees its request end only when the proxy lets go of it.
	before := w.holding.Load()
	s := g.open(t, authAlice, true)
	isoOK(t, s, "create_file", map[string]any{"path": "ca.pem", "content": string(w.caPEM)})
	ns := strings.Fields(isoFirstLine(isoBash(t, s, "echo $(readlink /proc/self/ns/net) $(readlink /proc/self/ns/pid)")))
	if len(ns) != 2 || !strings.HasPrefix(ns[0], "net:[") || !strings.HasPrefix(ns[1], "pid:[") {
		t.Fatalf("readlink /proc/self/ns/{net,pid}: got %q", ns)
	}
	m := gwSleepMarker()
	id := isoStartTask(t, s, "curl -sS --cacert ca.pem https://"+w.secure+"/hold & setsid sleep "+m+" & wait")
	for start := time.Now(); w.holding.Load() <= before || len(processesWith("sleep "+m)) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Since(start) > 15*time.Second {
			t.Fatalf("the held tunnel and the setsid sleep: got %d held requests (%d before) and sleep %s processes %v, want one more request and one process; task: %s",
				w.holding.Load(), before, m, processesWith("sleep "+m), isoOK(t, s, "task_output", map[string]any{"task_id": id}))
		}
	}
	if err := s.Close(); err != nil {
		t.Fatalf("close the session: %v", err)
	}
	holders := func() []string {
		var out []string
		links, _ := filepath.Glob("/proc/[0-9]*/ns/*")
		for _, l := range links {
			if target, err := os.Readlink(l); err == nil && (target == ns[0] || target == ns[1]) {
				out = append(out, l)
			}
		}
		return out
	}
	deadline := time.Now().Add(20 * time.Second)
	for len(holders()) > 0 || w.holding.Load() > before || len(processesWith("sleep "+m)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("20 s after the session ended: namespaces still held by %v, %d tunnels still open (want %d), sleep %s processes %v",
				holders(), w.holding.Load(), before, m, processesWith("sleep "+m))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestNetNone: with --sandbox-net none no connection of any kind leaves a
// session, and its loopback works inside.
func TestNetNone(t *testing.T) {
	netNeeds(t, "curl", netPython)
	w := netWorldStart(t)
	g := netGateway(t, w, nil, "--sandbox-net", "none")
	if h := netHealthOf(t, g.url); h.Net != "none" || h.NetEnforced != "namespace" || !h.PIDNamespace {
		t.Errorf("/healthz: got %+v, want net none enforced by namespace, with a PID namespace", h)
	}
	if strings.Contains(g.stderr.String(), `msg="egress proxy"`) {
		t.Errorf("gateway log: an egress proxy was started with --sandbox-net none")
	}
	alice := g.open(t, authAlice, true)
	netWant(t, "proxy variables", isoBash(t, alice, `echo "proxy=${HTTPS_PROXY:-unset}"`), []string{"proxy=unset"}, nil)
	for _, c := range []struct{ name, command string }{
		{"http to an allowed name", "curl -sS -m 5 http://" + w.plain + "/"},
		{"the proxy's port", "curl -sS -m 5 --noproxy '' -x http://127.0.0.1:3128 http://" + w.plain + "/"},
		{"raw TCP to the host's loopback", "exec 3<>/dev/tcp/127.0.0.1/" + netPort(w.tcp.Addr()) + " && cat <&3"},
		{"raw TCP to the host's address", "exec 3<>/dev/tcp/" + cmpOr(w.hostAddr, "192.0.2.1") + "/" + netPort(w.tcp.Addr()) + " && cat <&3"},
		{"the gateway's port", "curl -sS -m 5 http://127.0.0.1:" + g.gwPort() + "/healthz"},
	} {
		out := isoBash(t, alice, c.command)
		netFails(t, c.name, out)
		netWant(t, c.name, out, nil, []string{"hello from outside", "raw tcp service", `"status"`})
	}
	if n := w.tcpHits.Load(); n != 0 {
		t.Errorf("raw TCP service: got %d connections, want 0", n)
	}
	netServe(t, alice, "own.txt", "loopback works inside")
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// TestNetDegraded: where namespaces cannot be made, --sandbox auto says
// so, in the log and in /healthz, and falls back to Landlock's TCP rules
// (no TCP connect but to the egress bridge); --sandbox required refuses
// to start.
func TestNetDegraded(t *testing.T) {
	netNeeds(t, "curl")
	if abi := landlockABI(); abi < 4 {
		t.Skipf("this kernel's Landlock ABI is %d; the TCP fallback needs ABI 4", abi)
	}
	w := netWorldStart(t)
	off := []string{"BORIS_SANDBOX_NAMESPACES=off"}
	t.Run("auto", func(t *testing.T) {
		g := netGateway(t, w, off)
		if h := netHealthOf(t, g.url); h.Net != "proxy" || h.NetEnforced != "landlock-tcp" || h.PIDNamespace {
			t.Errorf("/healthz: got %+v, want net proxy enforced by landlock-tcp, no PID namespace", h)
		}
		if log := g.stderr.String(); !strings.Contains(log, "level=WARN") || !strings.Contains(log, "BORIS_SANDBOX_NAMESPACES=off") {
			t.Errorf("gateway log: want a warning naming why namespaces are not in force; got:\n%s", log)
		}
		alice := g.open(t, authAlice, true)
		netWant(t, "allowed over http through the bridge", isoBash(t, alice, "curl -sS -m 20 http://"+w.plain+"/"), []string{"hello from outside over http"}, nil)
		out := isoBash(t, alice, "exec 3<>/dev/tcp/127.0.0.1/"+netPort(w.tcp.Addr())+" && cat <&3")
		netFails(t, "raw TCP to the host's loopback", out)
		netWant(t, "raw TCP to the host's loopback", out, []string{"Permission denied"}, []string{"raw tcp service"})
		if n := w.tcpHits.Load(); n != 0 {
			t.Errorf("raw TCP service: got %d connections, want 0", n)
		}
	})
	t.Run("required", func(t *testing.T) {
		f := newIsoFixture(t)
		args := append([]string{"--listen", "127.0.0.1:0"}, f.args(filepath.Join(realTempDir(t), "work"), append(w.gatewayArgs(), "--", "--sandbox", "required")...)...)
		cmd := commandWithEnv(gatewayBin(t), args, cleanEnv(append(isoEnv(t), off...)...))
		out, err := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); err == nil || code != 2 || !strings.Contains(string(out), "namespaces") {
			t.Errorf("--sandbox required without namespaces: got exit %d, output %q; want exit 2 naming the namespaces", code, out)
		}
	})
}

// TestNetStdioHost: local stdio use keeps the host's network and process
// view by default (--sandbox-net host), and --check says so.
func TestNetStdioHost(t *testing.T) {
	dir := realTempDir(t)
	c := startCore(t, "--workdir", dir)
	self := func(ns string) string { l, _ := os.Readlink("/proc/self/ns/" + ns); return l }
	out := c.ok("bash", map[string]any{"command": "readlink /proc/self/ns/net /proc/self/ns/pid"})
	netWant(t, "a stdio core's command namespaces", out, []string{self("net"), self("pid")}, nil)
	check, err := commandWithEnv(borisBin, []string{"--check", "--workdir", dir}, cleanEnv()).Output()
	if err != nil {
		t.Fatal(err)
	}
	netWant(t, "boris --check", string(check), []string{`"net": "host"`, `"net_enforced": "none"`, `"pid_namespace": false`}, nil)
}

// TestNetUnprivileged: a gateway run by an ordinary user (uid 65534) still
// gives each session namespaces of its own (through a user namespace that
// maps that user to itself) and the egress proxy.
func TestNetUnprivileged(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: runs the gateway as uid 65534")
	}
	netNeeds(t, "curl")
	w := netWorldStart(t)
	gateway := nobodyBinaries(t)
	home, work := nobodyDir(t), nobodyDir(t)
	args := append([]string{"--listen", "127.0.0.1:0", "--auth", "none", "--cgroups", "off"}, w.gatewayArgs()...)
	cmd := commandWithEnv(gateway, append(args, "--", "--workdir", work),
		cleanEnv("HOME="+home, "XDG_STATE_HOME="+filepath.Join(home, "state"), "TMPDIR="+home))
	cmd.Dir = home
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	g := runGatewayProc(t, cmd, work, true)
	if h := netHealthOf(t, g.url); h.Net != "proxy" || h.NetEnforced != "namespace" || !h.PIDNamespace {
		t.Fatalf("/healthz: got %+v, want net proxy enforced by namespace, with a PID namespace; log:\n%s", h, g.stderr)
	}
	s := g.connect(nil, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{
		"command": `echo "uid=$(id -u) procs=$(ps -e -o pid= | wc -l) pid1=$(ps -o comm= -p 1)"; curl -sS -m 20 http://` + w.plain + `/`,
	}})
	if err != nil || res.IsError {
		t.Fatalf("bash: %v %v", err, res)
	}
	out := text(res)
	netWant(t, "a command of the unprivileged gateway", out, []string{"uid=65534", "hello from outside over http"}, nil)
	if m := regexp.MustCompile(`procs=(\d+)`).FindStringSubmatch(out); m == nil {
		t.Errorf("ps -e: got %q, want a count", out)
	} else if n, _ := strconv.Atoi(m[1]); n > 10 {
		t.Errorf("ps -e: got %d processes, want only the session's own", n)
	}
}
