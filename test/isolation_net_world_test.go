//go:build linux

package test

import (
	"archive/zip"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The network tests' "outside world" (issue 29): servers the test starts
// on the host, which a session's commands may reach only through the
// gateway's egress proxy, under names the proxy is told to pin to
// 127.0.0.1 (--egress-resolve) and allows (*.example.test on any port),
// and listeners that count whatever reaches them any other way.

// netWorld is the outside world of one test.
type netWorld struct {
	plain, secure, git, goproxy string // allowed host:port
	denied                      string // a pinned name no rule allows, host:port
	deniedHits                  atomic.Int32
	holding                     atomic.Int32 // requests to secure's /hold not yet ended
	caPEM                       []byte       // the CA secure's certificate chains to

	tcp      net.Listener // a raw TCP service on every host address
	tcpHits  atomic.Int32
	udp      net.PacketConn // a UDP service on every host address
	udpHits  atomic.Int32
	dns      net.PacketConn // the proxy's DNS server (--egress-dns): counts, never answers
	dnsHits  atomic.Int32
	hostAddr string // a non-loopback address of this host, "" without one
}

// netNames are the names the world's servers go by.
const (
	netPlainName   = "plain.example.test"
	netSecureName  = "secure.example.test"
	netGitName     = "git.example.test"
	netGoproxyName = "goproxy.example.test"
	netDeniedName  = "denied.example.invalid"
	netDNSName     = "unpinned.example.test" // allowed, not pinned: the proxy asks DNS
)

// netWorldStart starts the world; everything stops at the end of the test.
func netWorldStart(t *testing.T) *netWorld {
	t.Helper()
	w := &netWorld{}
	plain := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Write([]byte("hello from outside over http\n"))
	}))
	t.Cleanup(plain.Close)
	w.plain = netNamed(netPlainName, plain.Listener)

	cert, ca := netCert(t, netSecureName)
	w.caPEM = ca
	secure := httptest.NewUnstartedServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" { // keeps a tunnel open until the client goes
			w.holding.Add(1)
			defer w.holding.Add(-1)
			rw.WriteHeader(http.StatusOK)
			rw.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		rw.Write([]byte("hello from outside over https\n"))
	}))
	secure.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	secure.StartTLS()
	t.Cleanup(secure.Close)
	w.secure = netNamed(netSecureName, secure.Listener)

	denied := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.deniedHits.Add(1)
		rw.Write([]byte("the denied server answered\n"))
	}))
	t.Cleanup(denied.Close)
	w.denied = netNamed(netDeniedName, denied.Listener)

	gitSrv := httptest.NewServer(http.FileServer(http.Dir(netGitRepos(t))))
	t.Cleanup(gitSrv.Close)
	w.git = netNamed(netGitName, gitSrv.Listener)
	goproxy := httptest.NewServer(netGoproxy(t))
	t.Cleanup(goproxy.Close)
	w.goproxy = netNamed(netGoproxyName, goproxy.Listener)

	w.startCounters(t)
	return w
}

// netNamed is name:port of a listener on 127.0.0.1.
func netNamed(name string, ln net.Listener) string {
	return net.JoinHostPort(name, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
}

// startCounters starts the raw TCP and UDP services and the DNS server.
func (w *netWorld) startCounters(t *testing.T) {
	t.Helper()
	var err error
	if w.tcp, err = net.Listen("tcp", ":0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.tcp.Close() })
	go func() {
		for {
			c, err := w.tcp.Accept()
			if err != nil {
				return
			}
			w.tcpHits.Add(1)
			c.Write([]byte("raw tcp service\n"))
			c.Close()
		}
	}()
	count := func(pc net.PacketConn, n *atomic.Int32) {
		buf := make([]byte, 2048)
		for {
			if _, _, err := pc.ReadFrom(buf); err != nil {
				return
			}
			n.Add(1)
		}
	}
	if w.udp, err = net.ListenPacket("udp", ":0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.udp.Close() })
	go count(w.udp, &w.udpHits)
	if w.dns, err = net.ListenPacket("udp", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.dns.Close() })
	go count(w.dns, &w.dnsHits)
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && !ipn.IP.IsLoopback() && ipn.IP.To4() != nil {
			w.hostAddr = ipn.IP.String()
			break
		}
	}
}

// port returns the port of a listener's address.
func netPort(a net.Addr) string {
	_, p, _ := net.SplitHostPort(a.String())
	return p
}

// gatewayArgs are the egress flags that make the world reachable.
func (w *netWorld) gatewayArgs() []string {
	var pins []string
	for _, name := range []string{netPlainName, netSecureName, netGitName, netGoproxyName, netDeniedName} {
		pins = append(pins, name+"=127.0.0.1")
	}
	return []string{
		"--egress-allow", "*.example.test:*",
		"--egress-resolve", strings.Join(pins, ","),
		"--egress-dns", w.dns.LocalAddr().String(),
	}
}

// netCert makes a self-signed certificate for name, returning it and its
// PEM (which is also the CA to trust).
func netCert(t *testing.T, name string) (tls.Certificate, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(29), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// netGitRepos makes a directory holding repo.git, a bare repository with
// one commit, served as git's "dumb" HTTP protocol serves it (static
// files after update-server-info).
func netGitRepos(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		return t.TempDir() // the clone case skips, saying why
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	writeFile(t, filepath.Join(src, "README"), "cloned through the egress proxy\n")
	for _, args := range [][]string{
		{"-C", src, "init", "-q"},
		{"-C", src, "add", "README"},
		{"-C", src, "-c", "user.name=E2E", "-c", "user.email=e2e@example.com", "commit", "-q", "-m", "one"},
		{"clone", "-q", "--bare", src, filepath.Join(dir, "repo.git")},
		{"-C", filepath.Join(dir, "repo.git"), "update-server-info"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Env = cleanEnv("GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// netModule is the module the fake Go module proxy serves.
const (
	netModule  = "example.test/hello"
	netVersion = "v1.0.0"
)

// netGoproxy is a Go module proxy (GOPROXY protocol: list, info, mod,
// zip) serving netModule at netVersion.
func netGoproxy(t *testing.T) http.Handler {
	t.Helper()
	mod := "module " + netModule + "\n\ngo 1.21\n"
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	for name, body := range map[string]string{"go.mod": mod, "hello.go": "package hello\n\n// Hello greets.\nfunc Hello() string { return \"hello\" }\n"} {
		f, err := zw.Create(netModule + "@" + netVersion + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]string{"Version": netVersion, "Time": "2024-01-01T00:00:00Z"})
	files := map[string][]byte{
		"/" + netModule + "/@v/list":                    []byte(netVersion + "\n"),
		"/" + netModule + "/@v/" + netVersion + ".info": info,
		"/" + netModule + "/@v/" + netVersion + ".mod":  []byte(mod),
		"/" + netModule + "/@v/" + netVersion + ".zip":  zbuf.Bytes(),
	}
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(rw, r)
			return
		}
		rw.Write(b)
	})
}

// netNeeds skips the test unless this machine can run it: the
// namespaces (as boris --check finds them) and the programs the commands use.
func netNeeds(t *testing.T, programs ...string) {
	t.Helper()
	if why := netNamespacesMissing(); why != "" {
		t.Skip(why)
	}
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			if filepath.IsAbs(p) {
				t.Skipf("%s is not on this machine: the commands of this test run it", p)
			}
			t.Skipf("%s is not installed on this machine: the commands of this test use it", p)
		}
	}
}

// netNamespacesMissing says why boris cannot give a session namespaces
// here, "" when it can.
func netNamespacesMissing() string {
	out, err := exec.Command(borisBin, "--check", "--sandbox-net", "none", "--workdir", os.TempDir()).Output()
	if err != nil {
		return "boris --check --sandbox-net none failed: " + err.Error()
	}
	var rep struct {
		Sandbox struct {
			NetEnforced string `json:"net_enforced"`
			NotEnforced string `json:"not_enforced"`
		} `json:"sandbox"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		return "boris --check: " + err.Error()
	}
	if rep.Sandbox.NetEnforced != "namespace" {
		return "this machine cannot give a session namespaces of its own (boris --check: " + rep.Sandbox.NotEnforced + ")"
	}
	return ""
}

// jsonDecode decodes one JSON value from r into v.
func jsonDecode(r io.Reader, v any) error { return json.NewDecoder(r).Decode(v) }

// commandWithEnv is exec.Command with its environment set.
func commandWithEnv(path string, args, env []string) *exec.Cmd {
	cmd := exec.Command(path, args...)
	cmd.Env = env
	return cmd
}
