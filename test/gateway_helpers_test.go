package test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// gatewayBin returns the boris-gateway binary TestMain built beside
// borisBin (the gateway finds its core next to its own executable).
func gatewayBin(t *testing.T) string {
	t.Helper()
	return filepath.Join(filepath.Dir(borisBin), "boris-gateway")
}

// gatewayProc is a running boris-gateway whose cores work in a directory of
// their own: the marker that finds them in /proc.
type gatewayProc struct {
	t       *testing.T
	cmd     *exec.Cmd
	url     string // the MCP endpoint, http://127.0.0.1:PORT/mcp
	dir     string // the cores' --workdir
	stderr  *syncWriter
	exited  chan struct{}
	waitErr error // cmd.Wait's result, valid once exited is closed
}

var gatewayListeningRe = regexp.MustCompile(`msg="boris-gateway listening" url=(\S+)`)

// startGateway runs boris-gateway on 127.0.0.1:0 without authentication,
// with flags, and cores started with --workdir in a fresh directory (and
// the flags after a "--" in flags). It
// waits for the listening line and stops the gateway (SIGTERM, then
// SIGKILL) at the end of the test.
func startGateway(t *testing.T, flags ...string) *gatewayProc {
	t.Helper()
	dir := realTempDir(t)
	// Flags after a "--" are the cores', beside --workdir.
	var coreArgs []string
	if i := slices.Index(flags, "--"); i >= 0 {
		flags, coreArgs = flags[:i], flags[i+1:]
	}
	args := append([]string{"--listen", "127.0.0.1:0", "--auth", "none"}, flags...)
	args = append(append(args, "--", "--workdir", dir), coreArgs...)
	cmd := exec.Command(gatewayBin(t), args...)
	cmd.Env = cleanEnv()
	return runGatewayProc(t, cmd, dir, true)
}

// runGatewayProc starts cmd, a boris-gateway whose cores work in dir, and
// waits for its listening line; at the end of the test it is stopped
// (SIGTERM, then SIGKILL), which strict makes a failure when it takes
// more than 15 s.
func runGatewayProc(t *testing.T, cmd *exec.Cmd, dir string, strict bool) *gatewayProc {
	t.Helper()
	g := &gatewayProc{t: t, cmd: cmd, dir: dir, stderr: &syncWriter{b: &strings.Builder{}}, exited: make(chan struct{})}
	g.cmd.Stderr = g.stderr
	if err := g.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		g.waitErr = g.cmd.Wait()
		close(g.exited)
	}()
	t.Cleanup(func() {
		if !g.stop(syscall.SIGTERM, 15*time.Second) {
			_ = g.cmd.Process.Kill()
			<-g.exited
			if strict {
				t.Errorf("boris-gateway still running 15 s after SIGTERM; log:\n%s", g.stderr)
			}
		}
		if t.Failed() {
			t.Logf("boris-gateway log:\n%s", g.stderr)
		}
	})
	waitFor(t, "boris-gateway to listen", func() bool {
		select {
		case <-g.exited:
			t.Fatalf("boris-gateway exited before listening: %v\n%s", g.waitErr, g.stderr)
		default:
		}
		if m := gatewayListeningRe.FindStringSubmatch(g.stderr.String()); m != nil {
			g.url = m[1]
		}
		return g.url != ""
	})
	return g
}

// stop signals the gateway and reports whether it exited within timeout.
func (g *gatewayProc) stop(sig syscall.Signal, timeout time.Duration) bool {
	select {
	case <-g.exited:
		return true
	default:
	}
	_ = g.cmd.Process.Signal(sig)
	select {
	case <-g.exited:
		return true
	case <-time.After(timeout):
		return false
	}
}

// sessionRevision is the revision tests of sessions pin: go-sdk's client
// would otherwise speak 2026-07-28, which has none.
const sessionRevision = "2025-11-25"

// connect opens an MCP session through the gateway with go-sdk's
// Streamable HTTP client. Nil client options are the client's defaults;
// nil session options pin sessionRevision (a zero ClientSessionOptions
// leaves the client to negotiate).
func (g *gatewayProc) connect(copts *mcp.ClientOptions, sopts *mcp.ClientSessionOptions) *mcp.ClientSession {
	g.t.Helper()
	if sopts == nil {
		sopts = &mcp.ClientSessionOptions{ProtocolVersion: sessionRevision}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "boris-e2e-gateway", Version: "1"}, copts)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: g.url}, sopts)
	if err != nil {
		g.t.Fatalf("connect through the gateway: %v\ngateway log:\n%s", err, g.stderr)
	}
	g.t.Cleanup(func() { _ = session.Close() })
	return session
}

// cores returns the pids of this gateway's live boris cores: processes
// named boris whose arguments carry the gateway's core --workdir. (The
// gateway's own command line carries it too, after --.)
func (g *gatewayProc) cores() []string {
	var pids []string
	for _, pid := range processesWith(g.dir) {
		b, err := os.ReadFile("/proc/" + pid + "/cmdline")
		if err != nil {
			continue
		}
		argv0, _, _ := strings.Cut(string(b), "\x00")
		// A core's child between fork and exec still shows the core's
		// command line: cores are the gateway's own children.
		if n, _ := strconv.Atoi(pid); filepath.Base(argv0) == "boris" && parentOf(n) == g.cmd.Process.Pid {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitNoCores polls until none of the gateway's cores is alive, failing the
// test after a generous deadline.
func (g *gatewayProc) waitNoCores() {
	g.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		pids := g.cores()
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			g.t.Fatalf("boris cores still running: pids %v", pids)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// sessions reads the session count from /healthz.
func (g *gatewayProc) sessions() int {
	g.t.Helper()
	resp, err := http.Get(strings.TrimSuffix(g.url, "/mcp") + "/healthz")
	if err != nil {
		g.t.Fatalf("healthz: %v", err)
	}
	defer resp.Body.Close()
	var h struct {
		Status   string `json:"status"`
		Sessions *int   `json:"sessions"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil || resp.StatusCode != http.StatusOK || h.Sessions == nil {
		g.t.Fatalf("healthz: got %d %+v %v, want 200 and a session count", resp.StatusCode, h, err)
	}
	return *h.Sessions
}

// principalCores reports the gateway's principal cores (2026-07-28
// clients), from /healthz.
func (g *gatewayProc) principalCores() int {
	g.t.Helper()
	resp, err := http.Get(strings.TrimSuffix(g.url, "/mcp") + "/healthz")
	if err != nil {
		g.t.Fatalf("healthz: %v", err)
	}
	defer resp.Body.Close()
	var h struct {
		Principals *int `json:"principal_cores"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil || h.Principals == nil {
		g.t.Fatalf("healthz: got %d %+v %v, want a principal_cores count", resp.StatusCode, h, err)
	}
	return *h.Principals
}

// gwHeader is what a well-behaved client sends with a POST, plus the
// session id when sid is not empty, plus name/value pairs kv.
func gwHeader(sid string, kv ...string) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		h.Set("Mcp-Session-Id", sid)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

// gwClient bounds every raw request, body included.
var gwClient = &http.Client{Timeout: 30 * time.Second}

// request sends a raw HTTP request to the MCP endpoint and returns the
// response with its body unread. A Host entry in h becomes the request's
// Host.
func (g *gatewayProc) request(method string, h http.Header, body io.Reader) *http.Response {
	g.t.Helper()
	req, err := http.NewRequest(method, g.url, body)
	if err != nil {
		g.t.Fatal(err)
	}
	req.Header = h
	if host := h.Get("Host"); host != "" {
		req.Host = host
	}
	resp, err := gwClient.Do(req)
	if err != nil {
		g.t.Fatalf("%s %s: %v", method, g.url, err)
	}
	return resp
}

// do sends a raw request and reads the whole response body.
func (g *gatewayProc) do(method string, h http.Header, body string) (*http.Response, []byte) {
	g.t.Helper()
	resp := g.request(method, h, strings.NewReader(body))
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		g.t.Fatalf("%s: read body: %v", method, err)
	}
	return resp, b
}

const gwInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// initialize opens a session in raw HTTP (initialize, then
// notifications/initialized) and returns its id.
func (g *gatewayProc) initialize() string {
	g.t.Helper()
	sid, err := g.tryInitialize()
	if err != nil {
		g.t.Fatal(err)
	}
	return sid
}

// tryInitialize is initialize reporting failure as an error, for use off
// the test's goroutine.
func (g *gatewayProc) tryInitialize() (string, error) {
	post := func(sid, body string) (*http.Response, []byte, error) {
		req, err := http.NewRequest("POST", g.url, strings.NewReader(body))
		if err != nil {
			return nil, nil, err
		}
		req.Header = gwHeader(sid)
		resp, err := gwClient.Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp, b, err
	}
	resp, body, err := post("", gwInitialize)
	if err != nil {
		return "", fmt.Errorf("initialize: %w", err)
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" || !strings.Contains(string(body), `"result"`) {
		return "", fmt.Errorf("initialize: got %d, session id %q, body %s; want 200, an id and a result", resp.StatusCode, sid, body)
	}
	resp, body, err = post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if err != nil || resp.StatusCode != http.StatusAccepted {
		return "", fmt.Errorf("notifications/initialized: got %v %s %v, want 202", resp, body, err)
	}
	return sid, nil
}

// gwCall encodes a tools/call of bash running command; a non-empty token
// asks for progress notifications.
func gwCall(id int, command, token string) string {
	params := map[string]any{"name": "bash", "arguments": map[string]any{"command": command}}
	if token != "" {
		params["_meta"] = map[string]any{"progressToken": token}
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
	return string(b)
}

// gwMarkerSeq makes gateway tests' sleep markers unique within the run.
var gwMarkerSeq atomic.Int64

// gwSleepMarker returns a unique, long sleep duration to find a command
// in /proc.
func gwSleepMarker() string {
	return fmt.Sprintf("7%02d.%06d", gwMarkerSeq.Add(1)%100, time.Now().UnixNano()/1000%1000000)
}

// startRawSleep posts a bash call running `sleep marker` with headers h
// (and progress when token is not empty), and waits until the command
// runs. The pending response (nil on a transport error) arrives on the
// returned channel once its headers do; cancelling ctx drops the
// connection.
func (g *gatewayProc) startRawSleep(ctx context.Context, h http.Header, id int, token string) (string, <-chan *http.Response) {
	g.t.Helper()
	marker := gwSleepMarker()
	done := make(chan *http.Response, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", g.url, strings.NewReader(gwCall(id, "sleep "+marker, token)))
		req.Header = h
		resp, err := gwClient.Do(req)
		if err != nil {
			resp = nil
		}
		done <- resp
	}()
	waitFor(g.t, "sleep "+marker+" to start", func() bool { return len(processesWith("sleep "+marker)) > 0 })
	return marker, done
}

// lastMessage reads a POST response, JSON or event stream, and returns its
// final JSON-RPC message.
func lastMessage(t *testing.T, resp *http.Response) map[string]any {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read response: %v", err)
	}
	data := string(b)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		data = ""
		for _, line := range strings.Split(string(b), "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				data = d
			}
		}
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		t.Fatalf("got %q, want a JSON-RPC message", b)
	}
	return m
}

// readProcStat returns /proc/PID/stat.
func readProcStat(pid int) (string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return string(b), err
}

// toJSON encodes v for messages and substring checks.
func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
