//go:build linux

package test

import (
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// What the egress tests (issue 38) need besides the network tests' world:
// a network namespace of the test's own, so that addresses the proxy must
// never dial can be given to this "host" and served, with no way for a
// packet to leave the machine; and a DNS server that answers each name
// with the address the test gives it.

// privateNetEnv names the test that runs, in the child process, inside the
// namespace netPrivate made.
const privateNetEnv = "E2E_PRIVATE_NETNS"

// netPrivate runs the calling (top-level) test again, in a child process
// in a network namespace of its own whose loopback is up and which setup
// (shell commands, such as ip addr add) prepared; it returns true in that
// child, where the test goes on, and false in the parent, where the
// child's outcome has become the test's. The namespace has no interface
// but its loopback: nothing a test dials there can leave this machine.
func netPrivate(t *testing.T, setup string) bool {
	t.Helper()
	if os.Getenv(privateNetEnv) == t.Name() {
		return true
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root: runs itself in a network namespace of its own (unshare --net), to serve addresses the egress proxy must refuse")
	}
	for _, p := range []string{"unshare", "ip"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed on this machine: the test runs itself in a network namespace of its own, made and set up with it", p)
		}
	}
	script := "set -e\nip link set lo up\n" + setup + "\nexec \"$@\""
	cmd := exec.Command("unshare", "--net", "--", "sh", "-c", script, "sh",
		os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v", "-test.timeout=10m")
	cmd.Env = append(os.Environ(), privateNetEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	switch {
	case strings.Contains(string(out), "--- SKIP: "+t.Name()):
		t.Skipf("in its network namespace: %s", out)
	case err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()):
		t.Fatalf("in its network namespace: %v\n%s", err, out)
	}
	return false
}

// fakeDNS is a DNS server on 127.0.0.1 answering A and AAAA questions
// from a table (an IPv4-mapped address is answered as AAAA), and nothing
// for other names. It counts the questions it gets.
type fakeDNS struct {
	pc      net.PacketConn
	answers map[string]netip.Addr // by name, lower case, with the final dot
	asked   atomic.Int32
}

// startFakeDNS starts it; it stops at the end of the test.
func startFakeDNS(t *testing.T, answers map[string]string) *fakeDNS {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	d := &fakeDNS{pc: pc, answers: map[string]netip.Addr{}}
	for name, a := range answers {
		d.answers[strings.ToLower(name)+"."] = netip.MustParseAddr(a)
	}
	go d.serve()
	return d
}

// addr is where it listens.
func (d *fakeDNS) addr() string { return d.pc.LocalAddr().String() }

func (d *fakeDNS) serve() {
	buf := make([]byte, 1500)
	for {
		n, from, err := d.pc.ReadFrom(buf)
		if err != nil {
			return
		}
		d.asked.Add(1)
		if out, err := d.answer(buf[:n]); err == nil {
			d.pc.WriteTo(out, from)
		}
	}
}

// answer builds the response to one query.
func (d *fakeDNS) answer(query []byte) ([]byte, error) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return nil, err
	}
	q, err := p.Question()
	if err != nil {
		return nil, err
	}
	a, known := d.answers[strings.ToLower(q.Name.String())]
	h.Response, h.Authoritative, h.RecursionAvailable = true, true, true
	if !known {
		h.RCode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, h)
	b.EnableCompression()
	if err := b.StartQuestions(); err != nil {
		return nil, err
	}
	if err := b.Question(q); err != nil {
		return nil, err
	}
	if err := b.StartAnswers(); err != nil {
		return nil, err
	}
	rh := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 1}
	switch {
	case known && q.Type == dnsmessage.TypeA && a.Is4():
		err = b.AResource(rh, dnsmessage.AResource{A: a.As4()})
	case known && q.Type == dnsmessage.TypeAAAA && a.Is6():
		err = b.AAAAResource(rh, dnsmessage.AAAAResource{AAAA: a.As16()})
	}
	if err != nil {
		return nil, err
	}
	return b.Finish()
}
