//go:build linux

package test

import (
	"fmt"
	"io"
	"net"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The egress proxy's bounds (issue 38): tunnels idle too long are
// closed; one session, and one principal, hold at most so many
// connections; the gateway keeps descriptors for new sessions; and each
// refusal says why, with its status, and is counted in /metrics.

// holdServer is the destination of the tests' tunnels: it keeps every
// connection open, echoing what it reads, and counts them.
type holdServer struct {
	ln    net.Listener
	mu    sync.Mutex
	open  int
	total int
}

// startHoldServer starts it on 127.0.0.1; it stops at the end of the test.
func startHoldServer(t *testing.T) *holdServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &holdServer{ln: ln}
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			h.mu.Lock()
			h.open++
			h.total++
			conns = append(conns, c)
			h.mu.Unlock()
			go func() {
				_, _ = io.Copy(c, c)
				c.Close()
				h.mu.Lock()
				h.open--
				h.mu.Unlock()
			}()
		}
	}()
	return h
}

// counts returns the connections open and ever accepted.
func (h *holdServer) counts() (open, total int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.open, h.total
}

// holdFlags are the gateway flags that let sessions reach h as hold.test.
func (h *holdServer) holdFlags() []string {
	return []string{"--egress-allow", "hold.test:*", "--egress-resolve", "hold.test=127.0.0.1", "--metrics-auth", "none"}
}

// holdScript opens n tunnels to hold.test through the proxy from one
// bash, keeps those answered 200, and writes to file a line
// "held=H refused=R" and one line per refusal status line seen, then
// holds them until killed.
func holdScript(port string, n int, file string) string {
	return fmt.Sprintf(`ulimit -n 4096 2>/dev/null
declare -A seen; ok=0; no=0
for i in $(seq %d); do
  exec {fd}<>/dev/tcp/127.0.0.1/3128 || { no=$((no+1)); seen[connect-failed]=1; continue; }
  printf 'CONNECT hold.test:%s HTTP/1.1\r\nHost: hold.test:%s\r\n\r\n' >&$fd
  IFS= read -r -t 20 line <&$fd; line=${line%%$'\r'}
  case "$line" in
    *" 200 "*) ok=$((ok+1)); IFS= read -r -t 20 _ <&$fd ;;
    *) no=$((no+1)); body=
       while IFS= read -r -t 5 l <&$fd; do case "$l" in *"boris egress proxy"*) body=${l%%$'\r'}; break ;; esac; done
       seen["$line: $body"]=1; exec {fd}<&- ;;
  esac
done
{ echo "held=$ok refused=$no"; for k in "${!seen[@]}"; do echo "seen $k"; done; } > %s.tmp && mv %s.tmp %s
exec sleep 600
`, n, port, port, file, file, file)
}

var heldRe = regexp.MustCompile(`held=(\d+) refused=(\d+)`)

// holdTunnels starts holdScript as a background task of s and waits for
// its report: tunnels held, refused, and the refusals' lines.
func holdTunnels(t *testing.T, s *isoSession, port string, n int) (held, refused int, seen string) {
	t.Helper()
	file := fmt.Sprintf("held-%d.txt", time.Now().UnixNano())
	isoStartTask(t, s, holdScript(port, n, file))
	var out string
	waitFor(t, fmt.Sprintf("%d tunnels opened", n), func() bool {
		out = isoFirstLineAll(isoBash(t, s, "cat "+file+" 2>/dev/null"))
		return heldRe.MatchString(out)
	})
	m := heldRe.FindStringSubmatch(out)
	held, _ = strconv.Atoi(m[1])
	refused, _ = strconv.Atoi(m[2])
	return held, refused, out
}

// isoFirstLineAll returns all of stdout in a bash result.
func isoFirstLineAll(out string) string {
	_, rest, _ := strings.Cut(out, "stdout:\n")
	return rest
}

// metricValue reads one sample of the gateway's /metrics, -1 without it.
func metricValue(t *testing.T, g *isoGateway, sample string) int {
	t.Helper()
	resp, err := gwClient.Get(strings.TrimSuffix(g.url, "/mcp") + "/metrics")
	if err != nil {
		t.Fatalf("GET /metrics: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for line := range strings.Lines(string(body)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), sample+" "); ok {
			n, _ := strconv.ParseFloat(v, 64)
			return int(n)
		}
	}
	return -1
}

// TestNetEgressTunnelCaps: one session holds at most
// --egress-max-per-session connections through the egress proxy, one
// principal at most --egress-max-per-principal; past them a tunnel is
// answered 429 naming the flag, counted in /metrics, while another
// principal's tunnels still open.
func TestNetEgressTunnelCaps(t *testing.T) {
	netNeeds(t, "timeout")
	h := startHoldServer(t)
	port := netPort(h.ln.Addr())
	g := egressGateway(t, append(h.holdFlags(), "--egress-max-per-session", "100", "--egress-max-per-principal", "150")...)
	a1, a2 := g.open(t, authAlice, true), g.open(t, authAlice, true)
	held, refused, seen := holdTunnels(t, a1, port, 120)
	if held != 100 || refused != 20 || !strings.Contains(seen, "429 Too Many Requests: boris egress proxy: this session has 100 connections") || !strings.Contains(seen, "--egress-max-per-session") {
		t.Errorf("alice's first session, 120 tunnels: got held=%d refused=%d, %q; want 100 held and 20 answered 429 naming --egress-max-per-session", held, refused, seen)
	}
	held, refused, seen = holdTunnels(t, a2, port, 120)
	if held != 50 || refused != 70 || !strings.Contains(seen, "429 Too Many Requests: boris egress proxy: your sessions have 150 connections") || !strings.Contains(seen, "--egress-max-per-principal") {
		t.Errorf("alice's second session, 120 tunnels: got held=%d refused=%d, %q; want 50 held and 70 answered 429 naming --egress-max-per-principal", held, refused, seen)
	}
	bob := g.netBob(t)
	if held, refused, seen := holdTunnels(t, bob, port, 20); held != 20 || refused != 0 {
		t.Errorf("bob's 20 tunnels beside alice's 150: got held=%d refused=%d %q, want all 20", held, refused, seen)
	}
	for sample, want := range map[string]int{
		`boris_gateway_egress_refused_total{reason="session_limit"}`:   20,
		`boris_gateway_egress_refused_total{reason="principal_limit"}`: 70,
		`boris_gateway_egress_tunnels`:                                 170,
	} {
		if got := metricValue(t, g, sample); got != want {
			t.Errorf("/metrics %s: got %d, want %d", sample, got, want)
		}
	}
	// Ending a session ends its tunnels and gives its principal's room back.
	if err := a1.Close(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "alice's first session's tunnels to end", func() bool { open, _ := h.counts(); return open == 70 })
	if held, refused, _ := holdTunnels(t, a2, port, 10); held != 10 || refused != 0 {
		t.Errorf("alice's second session after the first ended: got held=%d refused=%d, want 10 more held", held, refused)
	}
}

// TestNetEgressDescriptorReserve: the finding's attack. With the
// gateway's descriptors limited to 1024, one tenant opens 1,000 idle
// tunnels (from four sessions); the gateway refuses those that would eat
// into the descriptors it keeps for new sessions (503, naming
// --egress-fd-reserve), and another principal still starts sessions and
// runs commands.
func TestNetEgressDescriptorReserve(t *testing.T) {
	netNeeds(t, "timeout", "prlimit")
	h := startHoldServer(t)
	port := netPort(h.ln.Addr())
	f := newIsoFixture(t)
	root := realTempDir(t) + "/work"
	args := f.args(root, append(h.holdFlags(), "--egress-max-per-session", "1000", "--egress-max-per-principal", "1000", "--max-sessions", "16")...)
	if !landlockAvailable() {
		args = append(args, "--allow-readable-secrets")
	}
	cmd := exec.Command("prlimit", append([]string{"--nofile=1024:1024", "--", gatewayBin(t), "--listen", "127.0.0.1:0"}, args...)...)
	g := &isoGateway{authGateway: runAuthGateway(t, cmd, isoEnv(t)), root: root}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("boris-gateway log:\n%s", g.stderr)
		}
	})
	total, refused := 0, 0
	var seen string
	for range 4 {
		s := g.open(t, authAlice, true)
		hd, rf, sn := holdTunnels(t, s, port, 250)
		total, refused, seen = total+hd, refused+rf, seen+sn
	}
	if total+refused != 1000 || refused == 0 || !strings.Contains(seen, "503 Service Unavailable: boris egress proxy: the gateway keeps its last 256 file descriptors for new sessions (--egress-fd-reserve)") {
		t.Errorf("alice's 1,000 tunnels: got %d held, %d refused, %q; want some answered 503 naming --egress-fd-reserve, the rest held", total, refused, seen)
	}
	if strings.Contains(seen, "connect-failed") || strings.Contains(seen, "seen :") {
		t.Errorf("alice's tunnels: got failures without an answer: %q", seen)
	}
	t.Logf("alice holds %d tunnels, %d refused", total, refused)
	for i := range 3 {
		bob := g.netBob(t)
		if out := isoBash(t, bob, "echo bob-runs"); !strings.Contains(out, "bob-runs") || isoExitCode(out) != 0 {
			t.Errorf("bob's session %d beside alice's tunnels: got %q, want his command to run", i, out)
		}
	}
	if got := metricValue(t, g, `boris_gateway_egress_refused_total{reason="fd_reserve"}`); got != refused {
		t.Errorf("/metrics refused for fd_reserve: got %d, want %d", got, refused)
	}
}

// TestNetEgressIdleTimeout: a tunnel through which nothing moves for
// --egress-idle-timeout is closed; one that keeps talking is not.
func TestNetEgressIdleTimeout(t *testing.T) {
	netNeeds(t, "timeout")
	h := startHoldServer(t)
	port := netPort(h.ln.Addr())
	g := egressGateway(t, append(h.holdFlags(), "--egress-idle-timeout", "2s")...)
	alice := g.open(t, authAlice, true)
	connect := fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/3128; printf 'CONNECT hold.test:%[1]s HTTP/1.1\r\nHost: hold.test:%[1]s\r\n\r\n' >&3; IFS= read -r -t 10 l <&3; IFS= read -r -t 10 _ <&3; echo "$l"; `, port)
	// Idle: the proxy closes the tunnel, and the command reads its end.
	out := isoBash(t, alice, connect+`start=$SECONDS; timeout 60 cat <&3; echo "closed after $((SECONDS-start))s"`)
	if !strings.Contains(out, "200 Connection established") || !strings.Contains(out, "closed after") || isoExitCode(out) != 0 {
		t.Errorf("an idle tunnel: got %q, want it established, then closed by the proxy (not by timeout 60)", out)
	}
	if m := regexp.MustCompile(`closed after (\d+)s`).FindStringSubmatch(out); m == nil || m[1] == "60" {
		t.Errorf("an idle tunnel: got %q, want it closed before the command's own 60 s", out)
	}
	// Busy: a byte every half second for 6 s keeps it open, echoed back.
	out = isoBash(t, alice, connect+`for i in $(seq 12); do printf x >&3; sleep 0.5; done; printf 'end\n' >&3; IFS= read -r -t 10 got <&3; echo "echoed=$got"`)
	if !strings.Contains(out, "echoed=xxxxxxxxxxxxend") {
		t.Errorf("a busy tunnel past the idle timeout: got %q, want all 12 bytes and the end echoed", out)
	}
	if got := metricValue(t, g, "boris_gateway_egress_idle_closed_total"); got < 1 {
		t.Errorf("/metrics idle closed: got %d, want at least 1", got)
	}
}
