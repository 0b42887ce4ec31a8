package deploy

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The proxy tests serve the deploy/ configurations on loopback under a
// name that is not loopback, so the gateway's Host check only passes
// because the proxy forwards Host and --public-url names it. The client
// dials the proxy's address whatever the name resolves to.
const (
	testHost  = "mcp.boris.test" // .test is reserved (RFC 6761): never a real host
	testToken = "0123456789abcdef0123456789abcdef"
	// clientIP is the loopback address the X-Forwarded-For test connects
	// from: the gateway trusts only 127.0.0.1 (the proxy), so it must log
	// this one, which only the proxy's X-Forwarded-For tells it.
	clientIP = "127.0.0.2"
	// forgedClient is an X-Forwarded-For entry the client sends itself; it
	// must never be taken for the client's address.
	forgedClient = "203.0.113.7"
)

// tlsFiles is a self-signed certificate for testHost, localhost and
// 127.0.0.1, written as PEM files, and a pool that trusts it.
type tlsFiles struct {
	cert, key string
	pool      *x509.CertPool
}

func makeCert(t *testing.T, dir string) tlsFiles {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: testHost},
		DNSNames:              []string{testHost, "localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	f := tlsFiles{cert: filepath.Join(dir, "cert.pem"), key: filepath.Join(dir, "key.pem"), pool: x509.NewCertPool()}
	writePEM(t, f.cert, "CERTIFICATE", der, 0o644)
	writePEM(t, f.key, "PRIVATE KEY", keyDER, 0o600)
	cert, _ := x509.ParseCertificate(der)
	f.pool.AddCert(cert)
	return f
}

func writePEM(t *testing.T, path, typ string, der []byte, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), mode); err != nil {
		t.Fatal(err)
	}
}

// gatewayProc is a running boris-gateway.
type gatewayProc struct {
	*proc
	addr string // host:port it listens on
}

var listeningRE = regexp.MustCompile(`boris-gateway listening.* url=http://([^/ ]+)/mcp`)

// startGateway starts boris-gateway on a loopback port it picks itself, as
// the systemd deployment runs it: the public URL is the proxy's, loopback
// proxies are trusted, one static token.
func startGateway(t *testing.T, publicURL string) *gatewayProc {
	t.Helper()
	work := t.TempDir()
	cmd := exec.Command(gatewayBin,
		"--listen", "127.0.0.1:0",
		"--public-url", publicURL,
		"--token", "test="+testToken,
		"--trusted-proxies", "127.0.0.1/32,::1/128",
		"--", "--workdir", work)
	cmd.Env = cleanEnv()
	g := &gatewayProc{proc: startProc(t, "boris-gateway", cmd)}
	var m []string
	if !waitFor(15*time.Second, func() bool {
		m = listeningRE.FindStringSubmatch(g.output.String())
		return m != nil || exited(g.proc)
	}) || m == nil {
		t.Fatalf("boris-gateway did not report its address:\n%s", g.output.String())
	}
	g.addr = m[1]
	t.Cleanup(func() { stopGateway(t, g) }) // before startProc's: checks for cores
	return g
}

func exited(p *proc) bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// stopGateway stops the gateway and checks that no core outlived it.
func stopGateway(t *testing.T, g *gatewayProc) {
	t.Helper()
	g.stop(t)
	var left []string
	if !waitFor(5*time.Second, func() bool { left = leftoverCores(); return len(left) == 0 }) {
		t.Errorf("cores still running after the gateway stopped:\n%s", strings.Join(left, "\n"))
	}
}

// exchange is one HTTP request the client made, as the proxy answered it.
type exchange struct {
	method string
	status int
	proto  int // HTTP major version
}

// clientTransport sends every request to the proxy's loopback address over
// TLS trusting the test certificate, adds the bearer token unless the
// request carries an Authorization header already, and records exchanges.
type clientTransport struct {
	base *http.Transport
	mu   sync.Mutex
	log  []exchange
}

func newClientTransport(proxyAddr string, pool *x509.CertPool, http2 bool) *clientTransport {
	return newClientTransportFrom(nil, proxyAddr, pool, http2)
}

// newClientTransportFrom is newClientTransport with the connections' local
// address set.
func newClientTransportFrom(local net.Addr, proxyAddr string, pool *x509.CertPool, http2 bool) *clientTransport {
	dialer := &net.Dialer{Timeout: 5 * time.Second, LocalAddr: local}
	base := &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, network, proxyAddr)
		},
		TLSClientConfig:   &tls.Config{RootCAs: pool},
		ForceAttemptHTTP2: http2,
	}
	if !http2 {
		base.TLSClientConfig.NextProtos = []string{"http/1.1"}
	}
	return &clientTransport{base: base}
}

func (c *clientTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Header.Get("Authorization") == "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+testToken)
	}
	resp, err := c.base.RoundTrip(r)
	if err == nil {
		c.mu.Lock()
		c.log = append(c.log, exchange{method: r.Method, status: resp.StatusCode, proto: resp.ProtoMajor})
		c.mu.Unlock()
	}
	return resp, err
}

func (c *clientTransport) exchanges() []exchange {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]exchange(nil), c.log...)
}

// waitReady waits until the proxy answers /healthz from the gateway.
func waitReady(t *testing.T, proxy *proc, base string, tr *clientTransport) {
	t.Helper()
	client := &http.Client{Transport: tr, Timeout: 2 * time.Second}
	var last string
	ok := waitFor(20*time.Second, func() bool {
		proxy.running(t)
		resp, err := client.Get(base + "/healthz")
		if err != nil {
			last = err.Error()
			return false
		}
		resp.Body.Close()
		last = resp.Status
		return resp.StatusCode == http.StatusOK
	})
	if !ok {
		t.Fatalf("%s never answered GET /healthz with 200 (last: %s)", proxy.name, last)
	}
}

// testThroughProxy runs the MCP scenario through a proxy serving
// https://testHost:port, once over HTTP/1.1 and once over HTTP/2: the
// protocols real clients use.
func testThroughProxy(t *testing.T, proxy *proc, proxyAddr string, certs tlsFiles, gw *gatewayProc) {
	t.Helper()
	base := "https://" + net.JoinHostPort(testHost, portOf(proxyAddr))
	waitReady(t, proxy, base, newClientTransport(proxyAddr, certs.pool, false))
	for _, tc := range []struct {
		name  string
		http2 bool
	}{{"HTTP1.1", false}, {"HTTP2", true}} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newClientTransport(proxyAddr, certs.pool, tc.http2)
			defer tr.base.CloseIdleConnections()
			testSession(t, base, tr)
			testStateless(t, base, tr)
			testRefusals(t, base, tr)
			want := 1
			if tc.http2 {
				want = 2
			}
			for _, x := range tr.exchanges() {
				if x.proto != want {
					t.Errorf("%s answered over HTTP/%d, want HTTP/%d", x.method, x.proto, want)
				}
			}
		})
	}
	t.Run("X-Forwarded-For", func(t *testing.T) {
		local := &net.TCPAddr{IP: net.ParseIP(clientIP)}
		testForwardedFor(t, base, newClientTransportFrom(local, proxyAddr, certs.pool, false), gw)
	})
}

// testSession: initialize, a long tool call whose progress arrives while it
// runs, DELETE, then 404 for the ended session: all through the proxy.
func testSession(t *testing.T, base string, tr *clientTransport) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var mu sync.Mutex
	var arrivals []time.Time
	client := mcp.NewClient(&mcp.Implementation{Name: "boris-deploy-test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, _ *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			arrivals = append(arrivals, time.Now())
			mu.Unlock()
		},
	})
	start := time.Now()
	// A session revision: this scenario ends its session with DELETE
	// (go-sdk's client would otherwise speak 2026-07-28, without sessions).
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: tr}, MaxRetries: -1,
	}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("initialize through the proxy: %v", err)
	}
	sid := session.ID()
	// Connect returns once the GET stream's response headers are in. The
	// gateway's first SSE keep-alive comes after 15 s; a connect that takes
	// about that long means the proxy held the headers until a body byte
	// came (nginx does over HTTP/2 when the gateway flushes headers alone).
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("initialize and the GET stream took %v, want well under the gateway's 15 s keep-alive: "+
			"the proxy held the SSE response headers back until the first keep-alive (nginx over HTTP/2 sends "+
			"headers only with the first body byte; the gateway should write an SSE comment as it opens a stream)", d.Round(time.Millisecond))
	}

	// 3 s of output, a line every 100 ms. The core sends progress once a
	// second; a proxy that buffers delivers it all with the result.
	params := &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{
		"command": "for i in $(seq 1 30); do echo tick $i; sleep 0.1; done",
	}}
	params.SetProgressToken("deploy-progress")
	res, err := session.CallTool(ctx, params)
	done := time.Now()
	if err != nil {
		t.Fatalf("tools/call bash through the proxy: %v", err)
	}
	if got := resultText(res); res.IsError || !strings.Contains(got, "tick 30") || !strings.Contains(got, "exit_code: 0") {
		t.Fatalf("bash result: isError=%v %q, want the 30 ticks and exit_code: 0", res.IsError, got)
	}
	mu.Lock()
	got := append([]time.Time(nil), arrivals...)
	mu.Unlock()
	if len(got) == 0 || !got[0].Before(done) {
		t.Fatalf("got %d progress notifications before the result, want at least 1 while the command ran", len(got))
	}
	if lead := done.Sub(got[0]); lead < time.Second {
		t.Errorf("first progress notification arrived %v before the result, want at least 1s: the proxy held it back (buffering)", lead)
	}

	if err := session.Close(); err != nil {
		t.Errorf("close session (DELETE): %v", err)
	}
	if !hasExchange(tr.exchanges(), http.MethodDelete, http.StatusNoContent) {
		t.Errorf("no DELETE answered 204 among %v", tr.exchanges())
	}
	resp := post(t, tr, base+"/mcp", `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, map[string]string{"Mcp-Session-Id": sid})
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST with the deleted session's id: got %s, want 404 Not Found", resp.Status)
	}
}

// testStateless: a 2026-07-28 client (no session; Mcp-Method, Mcp-Name
// and MCP-Protocol-Version headers the proxy must pass) keeps its
// principal's working directory between calls and gets its progress.
func testStateless(t *testing.T, base string, tr *clientTransport) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var progress atomic.Int32
	client := mcp.NewClient(&mcp.Implementation{Name: "boris-deploy-test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { progress.Add(1) },
	})
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: tr}, MaxRetries: -1,
	}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatalf("2026-07-28 client through the proxy: %v", err)
	}
	defer session.Close()
	if v := session.InitializeResult().ProtocolVersion; v != "2026-07-28" || session.ID() != "" {
		t.Fatalf("2026-07-28 client: negotiated %q with session %q, want 2026-07-28 and none", v, session.ID())
	}
	call := func(command string) string {
		params := &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": command}}
		params.SetProgressToken("deploy-2026")
		res, err := session.CallTool(ctx, params)
		if err != nil || res.IsError {
			t.Fatalf("2026-07-28 bash %q through the proxy: %v %v", command, res, err)
		}
		return resultText(res)
	}
	call("mkdir -p stateless-dir && cd stateless-dir")
	if got := call("sleep 1.5; pwd"); !strings.Contains(got, "/stateless-dir") {
		t.Errorf("2026-07-28 pwd after a cd in an earlier request: %q, want the principal core's cd kept", got)
	}
	if progress.Load() == 0 {
		t.Error("no progress notification reached the 2026-07-28 client through the proxy")
	}
}

// testRefusals: errors of the gateway and limits of the proxy reach the
// client with their status and headers.
func testRefusals(t *testing.T, base string, tr *clientTransport) {
	t.Helper()
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	resp := post(t, tr, base+"/mcp", initialize, map[string]string{"Authorization": "Bearer wrong-token-wrong-token"})
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Errorf("initialize with a wrong token: got %s, WWW-Authenticate %q; want 401 with a Bearer challenge",
			resp.Status, resp.Header.Get("WWW-Authenticate"))
	}
	// Just over the gateway's default --max-body, 4 MiB.
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","pad":"` + strings.Repeat("x", 4<<20) + `"}`
	resp = post(t, tr, base+"/mcp", big, nil)
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("POST of %d bytes: got %s, want 413 (proxy and gateway limits are 4 MiB)", len(big), resp.Status)
	}
}

// testForwardedFor: the gateway's request log names the client the proxy
// saw (from X-Forwarded-For, the proxy being a trusted one), not the proxy,
// and not an address the client wrote into X-Forwarded-For itself.
func testForwardedFor(t *testing.T, base string, tr *clientTransport, gw *gatewayProc) {
	req, _ := http.NewRequest(http.MethodGet, base+"/healthz", nil)
	req.Header.Set("X-Forwarded-For", forgedClient)
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("GET /healthz from %s: %v", clientIP, err)
	}
	resp.Body.Close()
	want := "remote=" + clientIP
	if !waitFor(5*time.Second, func() bool { return strings.Contains(gw.output.String(), want) }) {
		t.Errorf("gateway log has no %q for a request from %s through the proxy", want, clientIP)
	}
	if strings.Contains(gw.output.String(), "remote="+forgedClient) {
		t.Errorf("gateway logged the client-forged X-Forwarded-For %s as the client", forgedClient)
	}
}

// post sends a raw JSON-RPC POST (the token is added by the transport
// unless headers carry an Authorization) and returns the closed response.
func post(t *testing.T, tr *clientTransport, url, body string, headers map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Transport: tr, Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	resp.Body.Close()
	return resp
}

func hasExchange(xs []exchange, method string, status int) bool {
	for _, x := range xs {
		if x.method == method && x.status == status {
			return true
		}
	}
	return false
}

func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func portOf(addr string) string {
	_, port, _ := net.SplitHostPort(addr)
	return port
}

// substitute applies the test's replacements to a deploy/ file. Each must
// match, so a config edited out from under the test fails loudly here rather
// than being tested half-substituted.
func substitute(t *testing.T, name, text string, repl [][2]string) string {
	t.Helper()
	for _, r := range repl {
		if !strings.Contains(text, r[0]) {
			t.Fatalf("%s no longer contains %q: update the substitutions in this test", name, r[0])
		}
		text = strings.ReplaceAll(text, r[0], r[1])
	}
	return text
}

// proxyAddress is where a proxy under test listens.
func proxyAddress(t *testing.T) string {
	return fmt.Sprintf("127.0.0.1:%d", freePort(t))
}
