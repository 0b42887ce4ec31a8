//go:build linux

package test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
)

// The egress tests (issue 38) attack the gateway's egress proxy from a
// session's commands: allowed names that lead inward, and pinned names
// spelt otherwise.

// egressInward are destinations the proxy must refuse, each answered by
// the fake DNS server for a name the proxy allows: the address, whether
// the test gives it to the namespace's loopback (so that a proxy that
// dialled it would reach the service behind it), and what the refusal
// says. 10.200.0.0/16 is an --egress-internal network of the gateway.
var egressInward = []struct {
	addr  string
	local bool
	want  string
}{
	{"10.99.0.1", true, "private (RFC 1918)"},
	{"172.16.0.1", true, "private (RFC 1918)"},
	{"192.168.0.1", true, "private (RFC 1918)"},
	{"100.64.0.1", true, "carrier-grade NAT"},
	{"127.0.0.2", false, "loopback"},
	{"::1", false, "loopback"},
	{"169.254.169.254", true, "link-local"},
	{"fe80::1", false, "link-local"},
	{"0.0.0.0", false, "this network"},
	{"::", false, "unspecified"},
	{"224.0.0.1", false, "multicast"},
	{"ff02::1", false, "multicast"},
	{"240.0.0.1", false, "reserved"},
	{"198.18.0.1", true, "benchmarking"},
	{"2001:2::1", true, "benchmarking"},
	{"192.0.2.1", true, "TEST-NET-1"},
	{"198.51.100.1", true, "TEST-NET-2"},
	{"203.0.113.1", true, "TEST-NET-3"},
	{"2001:db8::1", true, "documentation"},
	{"3fff::1", true, "documentation"},
	{"fd00::1", true, "unique local"},
	{"fec0::1", true, "site-local"},
	{"100::1", true, "discard-only"},
	{"2002:a63:1::1", true, "6to4"},          // carrying 10.99.0.1
	{"2001:0:a63:1::1", true, "Teredo"},      // likewise
	{"64:ff9b::a63:1", true, "of 10.99.0.1"}, // NAT64 of 10.99.0.1
	{"::ffff:10.99.0.1", false, "private (RFC 1918)"},
	{"198.20.0.1", true, "the gateway's own host"}, // public, but this host's
	{"10.200.0.1", true, "the gateway's own host"}, // inside --egress-internal, but this host's
}

// egressDialled are destinations the proxy connects to, which have no
// route in the test's namespace: a public address, and one of the
// --egress-internal network.
var egressDialled = []string{"198.20.0.2", "10.200.9.9"}

// TestNetEgressOutward: the egress proxy leads out only. A name it allows
// that resolves to a private, shared, unique-local, link-local, loopback,
// unspecified, multicast, benchmarking or documentation address, to a
// 6to4, Teredo, NAT64 or IPv4-mapped form of one, or to an address of the
// gateway's own host is refused (403, naming the range) in absolute form
// and through CONNECT alike, and the service listening there gets
// nothing; public addresses and --egress-internal networks are dialled;
// a --egress-resolve pin opens an internal address on purpose.
func TestNetEgressOutward(t *testing.T) {
	var setup strings.Builder
	for _, d := range egressInward {
		if d.local {
			fmt.Fprintf(&setup, "ip addr add %s dev lo\n", d.addr)
		}
	}
	if !netPrivate(t, setup.String()) {
		return
	}
	netNeeds(t, "curl")
	var hits, pinHits atomic.Int32
	internal := egressService(t, "an internal service", &hits)
	pinned := egressService(t, "the pinned service", &pinHits)

	answers := map[string]string{}
	var names []string
	for i, d := range egressInward {
		names = append(names, fmt.Sprintf("in%d.inward.test", i))
		answers[names[i]] = d.addr
	}
	for i, a := range egressDialled {
		answers[fmt.Sprintf("out%d.inward.test", i)] = a
	}
	dns := startFakeDNS(t, answers)
	g := egressGateway(t, "--egress-allow", "*.inward.test:*", "--egress-dns", dns.addr(),
		"--egress-internal", "10.200.0.0/16", "--egress-resolve", "pinned.inward.test=10.99.0.1")
	alice := g.open(t, authAlice, true)

	res := egressProbe(t, alice, append(names, "out0.inward.test", "out1.inward.test", "pinned.inward.test"), internal, pinned)
	for i, d := range egressInward {
		name := names[i]
		if got := res[name+" abs"]; !strings.Contains(got, "|403") || !strings.Contains(got, d.want) || !strings.Contains(got, "egress-internal") {
			t.Errorf("%s (%s) in absolute form: got %q, want a 403 saying %q and naming --egress-internal", name, d.addr, got, d.want)
		}
		if got := res[name+" connect"]; got != "403" {
			t.Errorf("%s (%s) through CONNECT: got %q, want 403", name, d.addr, got)
		}
	}
	for _, name := range []string{"out0.inward.test", "out1.inward.test"} {
		if got := res[name+" abs"]; !strings.Contains(got, "|502") || !strings.Contains(got, "unreachable") {
			t.Errorf("%s (%s) in absolute form: got %q, want a 502 (dialled, no route here)", name, answers[name], got)
		}
		if got := res[name+" connect"]; got != "502" {
			t.Errorf("%s through CONNECT: got %q, want 502", name, got)
		}
	}
	if got := res["pinned.inward.test abs"]; !strings.Contains(got, "the pinned service|200") {
		t.Errorf("pinned.inward.test (pinned to 10.99.0.1): got %q, want the pinned service's 200", got)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the internal service: got %d requests, want none", n)
	}
	if n := pinHits.Load(); n != 2 {
		t.Errorf("the pinned service: got %d requests, want 2 (absolute form and CONNECT)", n)
	}
}

// egressService serves what on every address of the namespace, counting
// requests, and returns its port.
func egressService(t *testing.T, what string, hits *atomic.Int32) string {
	t.Helper()
	ln, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, what)
	}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return netPort(ln.Addr())
}

// egressProbe asks the proxy, from s's commands, for each name: on the
// internal port in absolute form ("NAME abs": body|status) and through
// CONNECT ("NAME connect": status); the pinned name on the pinned port.
func egressProbe(t *testing.T, s *isoSession, names []string, internal, pinned string) map[string]string {
	t.Helper()
	var script strings.Builder
	script.WriteString("p() { curl --noproxy '' -x http://127.0.0.1:3128 -s -m 10 \"$@\"; }\n")
	for _, name := range names {
		port := internal
		if strings.HasPrefix(name, "pinned.") {
			port = pinned
		}
		u := "http://" + name + ":" + port + "/"
		fmt.Fprintf(&script, "echo \"%s abs=$(p -w '|%%{http_code}' %s | tr '\\n' ' ')\"\n", name, u)
		fmt.Fprintf(&script, "echo \"%s connect=$(p -p -o /dev/null -w '%%{http_connect}' %s)\"\n", name, u)
	}
	isoOK(t, s, "create_file", map[string]any{"path": "probe.sh", "content": script.String()})
	out := isoBash(t, s, "bash probe.sh")
	res := map[string]string{}
	for _, m := range egressProbeRe.FindAllStringSubmatch(out, -1) {
		res[m[1]] = strings.TrimSpace(m[2])
	}
	if len(res) != 2*len(names) {
		t.Fatalf("probe: got %d results, want %d:\n%s", len(res), 2*len(names), out)
	}
	return res
}

var egressProbeRe = regexp.MustCompile(`(?m)^(\S+ (?:abs|connect))=(.*)$`)

// egressGateway starts a gateway of the multi-user set-up with extra
// flags (and no others of the network tests' world).
func egressGateway(t *testing.T, extra ...string) *isoGateway {
	t.Helper()
	f := newIsoFixture(t)
	root := filepath.Join(realTempDir(t), "work")
	if !landlockAvailable() {
		extra = append(extra, "--allow-readable-secrets")
	}
	g := &isoGateway{authGateway: startAuthGateway(t, isoEnv(t), f.args(root, extra...)...), root: root}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("boris-gateway log:\n%s", g.stderr)
		}
	})
	return g
}

// TestNetEgressSpellings: a pinned name reaches its pin however it is
// spelt (case, the trailing dot of a fully qualified name), in absolute
// form and through CONNECT, and is never looked up in DNS.
func TestNetEgressSpellings(t *testing.T) {
	netNeeds(t, "timeout")
	w := netWorldStart(t)
	g := netGateway(t, w, nil)
	alice := g.open(t, authAlice, true)
	_, port, _ := net.SplitHostPort(w.plain)
	for _, host := range []string{"PLAIN.EXAMPLE.TEST", "plain.example.test.", "Plain.Example.Test."} {
		authority := host + ":" + port
		for _, c := range []struct{ form, request string }{
			{"absolute form", "GET http://" + authority + "/ HTTP/1.1\\r\\nHost: " + authority + "\\r\\nConnection: close\\r\\n\\r\\n"},
			{"CONNECT", "CONNECT " + authority + " HTTP/1.1\\r\\nHost: " + authority + "\\r\\n\\r\\nGET / HTTP/1.1\\r\\nHost: " + authority + "\\r\\nConnection: close\\r\\n\\r\\n"},
		} {
			out := isoBash(t, alice, "exec 3<>/dev/tcp/127.0.0.1/3128 && printf '"+c.request+"' >&3 && timeout 20 cat <&3")
			if !strings.Contains(out, "hello from outside over http") {
				t.Errorf("%s in %s: got %.600q, want the pinned server's answer", host, c.form, out)
			}
		}
	}
	if n := w.dnsHits.Load(); n != 0 {
		t.Errorf("DNS: got %d questions, want none (every spelling is the pinned name)", n)
	}
}
