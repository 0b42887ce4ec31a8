package gateway

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mjkoo/boris/gateway/launch"
	"github.com/mjkoo/boris/internal/testbin"
)

// coreBin is the boris binary built once for the package's tests: the
// handler under test spawns it for every session.
var coreBin string

func TestMain(m *testing.M) {
	testbin.Main(m, func(dir string) { coreBin = filepath.Join(dir, "boris") }, "boris")
}

// testGateway is a Handler served by httptest, spawning real cores.
type testGateway struct {
	t   testing.TB
	h   *Handler
	srv *httptest.Server
	url string // the MCP endpoint
	dir string // the cores' --workdir
}

// newTestGateway serves a Handler on a loopback httptest server. Options
// start as Loopback with a 50 ms keep-alive and the test's core; configure
// may change them. Every session ends with the test.
func newTestGateway(t testing.TB, configure ...func(*Options)) *testGateway {
	t.Helper()
	dir := t.TempDir()
	opts := Options{Core: coreBin, CoreArgs: []string{"--workdir", dir}, Loopback: true}
	opts.KeepAlive = 50 * time.Millisecond
	for _, f := range configure {
		f(&opts)
	}
	if opts.PrincipalsDir == "" {
		opts.PrincipalsDir = t.TempDir() // as main makes it in --state-dir
	}
	h := NewHandler(opts)
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close() // ends sessions first, so streams finish and srv.Close returns
		srv.Close()
	})
	return &testGateway{t: t, h: h, srv: srv, url: srv.URL + "/mcp", dir: dir}
}

// header builds an http.Header from name/value pairs.
func header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

// postHeader is what a well-behaved client sends with a POST, plus kv.
func postHeader(sid string, kv ...string) http.Header {
	h := header("Content-Type", "application/json", "Accept", "application/json, text/event-stream")
	if sid != "" {
		h.Set("Mcp-Session-Id", sid)
	}
	for k, v := range header(kv...) {
		h[k] = v
	}
	return h
}

// send makes a request to the MCP endpoint and returns the response with
// its body unread; the caller closes it.
func (g *testGateway) send(method string, h http.Header, body string) *http.Response {
	g.t.Helper()
	req, err := http.NewRequest(method, g.url, strings.NewReader(body))
	if err != nil {
		g.t.Fatal(err)
	}
	req.Header = h
	if host := h.Get("Host"); host != "" {
		req.Host = host
	}
	resp, err := g.client().Do(req)
	if err != nil {
		g.t.Fatalf("%s %s: %v", method, g.url, err)
	}
	return resp
}

// requestTimeout bounds every test request, body included, so a request
// the gateway never answers fails its test instead of hanging the run.
const requestTimeout = 30 * time.Second

// client is the server's client with requestTimeout.
func (g *testGateway) client() *http.Client {
	c := *g.srv.Client()
	c.Timeout = requestTimeout
	return &c
}

// do makes a request and reads the whole response body.
func (g *testGateway) do(method string, h http.Header, body string) (*http.Response, []byte) {
	g.t.Helper()
	resp := g.send(method, h, body)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		g.t.Fatalf("%s: read body: %v", method, err)
	}
	return resp, b
}

// initializeBody is a client's initialize request with the given id.
func initializeBody(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"gateway-test","version":"1"}}}`, id)
}

const initializedBody = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

// initialize opens a session the way a client does (initialize, then
// notifications/initialized) and returns its id.
func (g *testGateway) initialize() string {
	g.t.Helper()
	resp, body := g.do(http.MethodPost, postHeader(""), initializeBody(1))
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		g.t.Fatalf("initialize: got %d, session id %q, body %s; want 200 and an id", resp.StatusCode, sid, body)
	}
	if resp, body := g.do(http.MethodPost, postHeader(sid), initializedBody); resp.StatusCode != http.StatusAccepted {
		g.t.Fatalf("notifications/initialized: got %d %s, want 202", resp.StatusCode, body)
	}
	return sid
}

// callBody encodes a tools/call request. A non-empty token asks for progress.
func callBody(id any, tool string, args map[string]any, token string) string {
	params := map[string]any{"name": tool, "arguments": args}
	if token != "" {
		params["_meta"] = map[string]any{"progressToken": token}
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// rpcMessage is the part of a JSON-RPC message the tests look at.
type rpcMessage struct {
	ID     any             `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// parseMessage decodes one JSON-RPC message or fails the test.
func parseMessage(t testing.TB, b []byte) rpcMessage {
	t.Helper()
	var m rpcMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("got %q, want a JSON-RPC message: %v", b, err)
	}
	return m
}

// toolText returns the joined text content of a tools/call result.
func toolText(t testing.TB, m rpcMessage) string {
	t.Helper()
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if m.Error != nil || json.Unmarshal(m.Result, &r) != nil {
		t.Fatalf("got %+v, want a tools/call result", m)
	}
	var parts []string
	for _, c := range r.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n")
}

// sseItem is one thing read from an event stream: an event's data (and
// its id), or a comment. Events without data (priming ids) are skipped.
type sseItem struct {
	data    string
	id      string
	comment string
}

// readSSE parses a text/event-stream body, sending each event and comment
// on the returned channel, which closes at the end of the stream.
func readSSE(r io.Reader) <-chan sseItem {
	ch := make(chan sseItem, 256)
	go func() {
		defer close(ch)
		br := bufio.NewReader(r)
		var data []string
		id := ""
		for {
			line, err := br.ReadString('\n')
			line = strings.TrimRight(line, "\r\n")
			switch {
			case strings.HasPrefix(line, ":"):
				ch <- sseItem{comment: strings.TrimSpace(line[1:])}
			case strings.HasPrefix(line, "id:"):
				id = strings.TrimPrefix(strings.TrimPrefix(line, "id:"), " ")
			case strings.HasPrefix(line, "data:"):
				if d := strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "); d != "" {
					data = append(data, d)
				}
			case line == "" && len(data) > 0:
				ch <- sseItem{data: strings.Join(data, "\n"), id: id}
				data, id = nil, ""
			case line == "":
				id = ""
			}
			if err != nil {
				return
			}
		}
	}()
	return ch
}

// nextItem returns the next event or comment within a generous deadline,
// failing the test if the stream ends or stalls.
func nextItem(t testing.TB, ch <-chan sseItem) sseItem {
	t.Helper()
	select {
	case it, ok := <-ch:
		if !ok {
			t.Fatal("event stream ended, want it open")
		}
		return it
	case <-time.After(20 * time.Second):
		t.Fatal("nothing on the event stream within 20 s")
	}
	return sseItem{}
}

// nextEvent returns the next event (skipping comments) within a generous
// deadline, failing the test if the stream ends or stalls.
func nextEvent(t testing.TB, ch <-chan sseItem) rpcMessage {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case it, ok := <-ch:
			if !ok {
				t.Fatal("event stream ended, want another event")
			}
			if it.comment == "" {
				return parseMessage(t, []byte(it.data))
			}
		case <-timeout:
			t.Fatal("no event within 20 s")
		}
	}
}

// responseOf reads a POST's response whatever its content type: the JSON
// body, or the last event of a stream, plus any events before it.
func responseOf(t testing.TB, resp *http.Response) (final rpcMessage, before []rpcMessage) {
	t.Helper()
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "application/json") {
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return parseMessage(t, b), nil
	}
	ch := readSSE(resp.Body)
	for {
		m := nextEvent(t, ch)
		if m.Method == "" {
			return m, before
		}
		before = append(before, m)
	}
}

// markerSeq makes sleep arguments unique within the test binary.
var markerSeq atomic.Int64

// sleepMarker returns a unique, long sleep duration: a command line to
// look for in /proc.
func sleepMarker() string {
	return fmt.Sprintf("311.%05d%03d", os.Getpid()%100000, markerSeq.Add(1))
}

// processesWith returns the pids of live (not zombie) processes whose
// command line contains marker.
func processesWith(marker string) []string {
	var pids []string
	entries, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, e := range entries {
		b, err := os.ReadFile(e)
		if err != nil || !strings.Contains(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})), marker) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(filepath.Dir(e), "stat"))
		if err == nil {
			s := string(stat)
			if i := strings.LastIndexByte(s, ')'); i >= 0 && len(s) > i+2 && s[i+2] == 'Z' {
				continue
			}
		}
		pids = append(pids, filepath.Base(filepath.Dir(e)))
	}
	return pids
}

// cores returns the pids of the gateway's live cores: its children (the
// gateway runs in this process) started with its --workdir. Neither the
// sandbox's spawner and git, which name the directory too, nor a core's
// child between fork and exec, which still shows the core's command line,
// is a core.
func (g *testGateway) cores() []string {
	var pids []string
	for _, pid := range processesWith("--workdir " + g.dir) {
		if parentOf(pid) == os.Getpid() {
			pids = append(pids, pid)
		}
	}
	return pids
}

// parentOf returns the parent pid of process pid, -1 when unknown.
func parentOf(pid string) int {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return -1
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 2 {
		return -1
	}
	ppid, err := strconv.Atoi(fields[1])
	if err != nil {
		return -1
	}
	return ppid
}

// waitFor polls cond every 20 ms until it holds, failing the test after a
// generous deadline.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	testbin.WaitFor(t, what, cond)
}

// coreOf returns the core process of an open session.
func (g *testGateway) coreOf(sid string) *launch.Core {
	g.t.Helper()
	s := g.h.table.Get(sid)
	if s == nil {
		g.t.Fatalf("session %s is not open", sid)
	}
	return s.Core
}

// coreExited reports whether a core has been reaped.
func coreExited(p *launch.Core) bool {
	select {
	case <-p.Exited:
		return true
	default:
		return false
	}
}
