//go:build linux

package test

import (
	"bufio"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
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

// openFDs counts the open file descriptors of pid.
func openFDs(t *testing.T, pid int) int {
	t.Helper()
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// hostAddr is the host:port of an endpoint URL.
func hostAddr(t *testing.T, endpoint string) string {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// halfRequest is a request whose head announces a 1000-byte body and
// which sends less of it (maybe nothing), then nothing more.
type halfRequest struct {
	name, head string
	sent       int    // body bytes sent
	status     string // the status line's code, as the client must see it
}

// TestGatewayHalfSentBodies: connections that announce a body and never
// finish sending it (issue 10, item 1), before authentication and after,
// on /mcp, /healthz and unknown paths, are answered and closed within the
// read timeout, so 220 of them neither pin the gateway's file descriptors
// nor keep a valid client from being served meanwhile.
func TestGatewayHalfSentBodies(t *testing.T) {
	const token = "hardening-e2e-token-0123456789"
	const readTimeout = time.Second
	g := startAuthGateway(t, nil, "--token", "alice="+token, "--read-timeout", readTimeout.String(), "--", "--workdir", realTempDir(t))
	addr := hostAddr(t, g.url)
	valid := g.connect(token)
	call := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		res, err := valid.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "echo served"}})
		if err == nil && !strings.Contains(text(res), "served") {
			err = fmt.Errorf("got %q, want the command's output", text(res))
		}
		return err
	}
	if err := call(); err != nil {
		t.Fatal(err)
	}
	pid := g.cmd.Process.Pid
	baseline := openFDs(t, pid)

	head := func(method, path, extra string) string {
		return method + " " + path + " HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n" +
			"Accept: application/json, text/event-stream\r\n" + extra + "Content-Length: 1000\r\n\r\n"
	}
	kinds := []halfRequest{
		{"no token, no body", head("POST", "/mcp", ""), 0, "401"},
		{"no token, half a body", head("POST", "/mcp", ""), 500, "401"},
		{"valid token, half a body", head("POST", "/mcp", "Authorization: Bearer "+token+"\r\n"), 500, "400"},
		{"healthz with a body", head("GET", "/healthz", ""), 0, "200"},
		{"unknown path, half a body", head("POST", "/nope", ""), 500, "404"},
	}
	const perKind = 44 // 220 connections in all
	type outcome struct {
		kind     string
		status   string
		closedIn time.Duration
		err      error
	}
	results := make(chan outcome, perKind*len(kinds))
	var conns []net.Conn
	var wg sync.WaitGroup
	for range perKind {
		for _, k := range kinds {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatalf("dial %d: %v", len(conns), err)
			}
			conns = append(conns, conn) // kept open: only the gateway may close them
			start := time.Now()
			if _, err := io.WriteString(conn, k.head+strings.Repeat("x", k.sent)); err != nil {
				t.Fatal(err)
			}
			wg.Go(func() {
				_ = conn.SetReadDeadline(time.Now().Add(readTimeout + 10*time.Second))
				br := bufio.NewReader(conn)
				line, err := br.ReadString('\n')
				status := ""
				if f := strings.Fields(line); len(f) > 1 {
					status = f[1]
				}
				if err == nil {
					_, err = io.Copy(io.Discard, br) // until the gateway closes the connection
				}
				results <- outcome{k.name, status, time.Since(start), err}
			})
		}
	}
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	// While they hang on, the valid client is served.
	for i := range 3 {
		if err := call(); err != nil {
			t.Errorf("valid call %d while %d connections hang: %v", i, len(conns), err)
		}
	}
	wg.Wait()
	close(results)
	want := map[string]string{}
	for _, k := range kinds {
		want[k.name] = k.status
	}
	for r := range results {
		switch {
		case r.err != nil:
			t.Errorf("%s: %v after %v; want an answer and the connection closed by the gateway", r.kind, r.err, r.closedIn.Round(time.Millisecond))
		case r.status != want[r.kind]:
			t.Errorf("%s: got status %s, want %s", r.kind, r.status, want[r.kind])
		case r.closedIn > readTimeout+3*time.Second:
			t.Errorf("%s: connection closed after %v, want within the read timeout (%v) and a little", r.kind, r.closedIn, readTimeout)
		}
	}
	// Every descriptor those connections took is back, though the clients
	// still hold their ends.
	waitFor(t, "the gateway's descriptors to come back", func() bool { return openFDs(t, pid) <= baseline+5 })
	if err := call(); err != nil {
		t.Errorf("valid call after: %v", err)
	}
}

// writePNGFile writes a file the core views as a PNG image of size bytes.
func writePNGFile(t *testing.T, path string, size int) {
	t.Helper()
	b := make([]byte, size)
	_, _ = rand.Read(b)
	copy(b, "\x89PNG\r\n\x1a\n")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

var httpRequestLogRE = regexp.MustCompile(`msg="http request" method=POST path=/mcp`)

// TestGatewayUnreadRepliesMemory: 60 requests for a 6 MB image whose
// client never reads the answers (issue 10, item 2) leave the gateway's
// peak RSS far below what holding them would take (60 x 8.4 MB of
// base64): what it holds is bounded per session, a session takes 32
// requests at once, and a client that leaves a reply unread for
// --write-timeout is cut off. The session then serves its client again.
// (The issue saw it with 9 MB images; 6 MB ones keep the cores' part of
// the test short: 32 views of 9 MB at once take a 2-CPU core 20 s.)
func TestGatewayUnreadRepliesMemory(t *testing.T) {
	g := startGateway(t, "--write-timeout", "2s")
	writePNGFile(t, filepath.Join(g.dir, "big.png"), 6<<20)
	sid := g.initialize()
	addr := hostAddr(t, g.url)
	before := len(httpRequestLogRE.FindAllString(g.stderr.String(), -1))
	const unread = 60
	// A small receive buffer, as over a real network: on loopback the
	// kernel would otherwise take in whole replies for the client.
	dialer := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 64<<10) })
	}}
	for i := range unread {
		conn, err := dialer.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"view","arguments":{"path":"big.png"}}}`, 100+i)
		fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
			"Mcp-Session-Id: %s\r\nContent-Length: %d\r\n\r\n%s", addr, sid, len(body), body)
	}
	// Every one of them is done with: answered, refused, or cut off. (The
	// core takes its time: 32 views of 6 MB at once, minutes on a loaded
	// host.)
	for deadline := time.Now().Add(4 * time.Minute); len(httpRequestLogRE.FindAllString(g.stderr.String(), -1)) < before+unread; {
		if time.Now().After(deadline) {
			t.Fatal("the gateway has not finished the unread requests after 4 minutes")
		}
		time.Sleep(50 * time.Millisecond)
	}
	hwm := peakRSS(t, g.cmd.Process.Pid)
	t.Logf("boris-gateway peak RSS with %d unread 8.4 MB replies: %d MB (%d replies dropped while its budget was full)",
		unread, hwm>>20, strings.Count(g.stderr.String(), `msg="core message dropped"`))
	if hwm > 300<<20 {
		t.Errorf("boris-gateway peak RSS %d MB, want < 300 MB", hwm>>20)
	}
	resp, body := g.do("POST", gwHeader(sid), gwCall(9, "echo still served", ""))
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "still served") {
		t.Errorf("call after the unread replies: got %d %.300s, want 200 and its result", resp.StatusCode, body)
	}
}

// TestGatewayReusedIDAfterCancel: a request id reused after a cancel gets
// its own answer, never the cancelled command's late one (issue 10, item
// 5). The cancelled command traps SIGTERM and answers a second later;
// until then the id is refused with 400, and once the core has answered
// it, the id serves the new request.
func TestGatewayReusedIDAfterCancel(t *testing.T) {
	g := startGateway(t)
	sid := g.initialize()
	marker := gwSleepMarker()
	oldCmd := "trap 'sleep 1; echo old-answer; exit 0' TERM; sleep " + marker + " & wait"
	pending := make(chan *http.Response, 1)
	go func() { pending <- g.request("POST", gwHeader(sid), strings.NewReader(gwCall(7, oldCmd, ""))) }()
	waitFor(t, "the command to start", func() bool { return len(processesWith("sleep "+marker)) > 0 })
	cancel := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`
	if resp, body := g.do("POST", gwHeader(sid), cancel); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("cancel: got %d %s, want 202", resp.StatusCode, body)
	}
	if m := lastMessage(t, <-pending); !strings.Contains(toJSON(m["error"]), "-32800") {
		t.Errorf("cancelled request: got %v, want the -32800 cancellation error", m)
	}
	newCall := gwCall(7, "echo new-answer", "")
	resp, body := g.do("POST", gwHeader(sid), newCall)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "cancelled or abandoned") {
		t.Errorf("id 7 reused while the core still owes its answer: got %d %.300s, want 400 saying the id is reserved", resp.StatusCode, body)
	}
	var final string
	waitFor(t, "id 7 to be free again", func() bool {
		resp, body := g.do("POST", gwHeader(sid), newCall)
		final = string(body)
		return resp.StatusCode == http.StatusOK
	})
	if strings.Contains(final, "old-answer") || !strings.Contains(final, "new-answer") {
		t.Errorf("reused id 7: got %.300s, want its own answer (new-answer), not the cancelled command's", final)
	}
}

// TestGatewayHelpDefaults: --help shows the defaults that apply, not
// "none", for settings whose default is not a plain value (issue 10,
// item 8).
func TestGatewayHelpDefaults(t *testing.T) {
	out, err := exec.Command(gatewayBin(t), "--help").Output()
	if err != nil {
		t.Fatalf("boris-gateway --help: %v", err)
	}
	want := map[string]string{
		"auth":         "authentication on",
		"core":         "next to boris-gateway, then $PATH",
		"jwt-audience": "the --public-url",
		"cgroup-root":  "the gateway's own cgroup",
		"read-timeout": "30s",
	}
	got := map[string]string{}
	flag := ""
	for _, line := range strings.Split(string(out), "\n") {
		if m := regexp.MustCompile(`^  --([a-z-]+)`).FindStringSubmatch(line); m != nil {
			flag = m[1]
		} else if _, def, ok := strings.Cut(line, ", default "); ok && strings.Contains(line, "env BORIS_GATEWAY_") {
			got[flag] = def
		}
	}
	for name, w := range want {
		if !strings.HasPrefix(got[name], w) {
			t.Errorf("--%s: help shows default %q, want %q", name, got[name], w)
		}
	}
}

// TestGatewaySIGINTSaysDraining: Ctrl-C logs at once that the gateway is
// draining, with the timeout, instead of saying nothing while requests in
// flight finish; then it cuts them off and exits 0.
func TestGatewaySIGINTSaysDraining(t *testing.T) {
	g := startGateway(t, "--shutdown-timeout", "2s")
	sid := g.initialize()
	g.startRawSleep(context.Background(), gwHeader(sid), 3, "")
	if err := g.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	signalled := time.Now()
	waitFor(t, "the shutdown line", func() bool { return strings.Contains(g.stderr.String(), `msg="shutting down`) })
	if d := time.Since(signalled); d > time.Second {
		t.Errorf("shutdown logged %v after SIGINT, want at once", d)
	}
	select {
	case <-g.exited:
	case <-time.After(10 * time.Second):
		t.Fatal("boris-gateway still running 10 s after SIGINT with a 2 s drain")
	}
	logs := g.stderr.String()
	for _, want := range []string{`signal=interrupt timeout=2s`, `were cut off`, `msg="boris-gateway stopped"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q", want)
		}
	}
	if g.waitErr != nil {
		t.Errorf("exit: got %v, want 0", g.waitErr)
	}
}

// TestGatewayCoreEarlyExitLogged: a core that exits on its own (here one
// that passes the start-up check, then fails) has its last stderr lines
// logged at warn level, where an operator sees them without debug logs.
func TestGatewayCoreEarlyExitLogged(t *testing.T) {
	stub := filepath.Join(t.TempDir(), "boris")
	script := "#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = --check ] && exec " + borisBin + " \"$@\"; done\n" +
		"echo 'boris: cannot start: the disk is on fire' >&2\nexit 3\n"
	if err := os.WriteFile(stub, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	g := startGateway(t, "--core", stub)
	resp, body := g.do("POST", gwHeader(""), gwInitialize)
	if strings.Contains(string(body), `"result"`) {
		t.Errorf("initialize with a failing core: got %d %s, want an error", resp.StatusCode, body)
	}
	waitFor(t, "the core's exit to be logged", func() bool { return strings.Contains(g.stderr.String(), `msg="core exited"`) })
	line := ""
	for _, l := range strings.Split(g.stderr.String(), "\n") {
		if strings.Contains(l, `msg="core exited"`) {
			line = l
		}
	}
	for _, want := range []string{"level=WARN", "exit status 3", "the disk is on fire"} {
		if !strings.Contains(line, want) {
			t.Errorf("core exit log line %q lacks %q", line, want)
		}
	}
}

// TestMakeRunConfig: make run prints the stdio configuration with the
// directory it serves and the port it listens on, both of which can be
// chosen, and passes gateway flags through (issue 10, item 8).
func TestMakeRunConfig(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	workdir := filepath.Join(t.TempDir(), "my project")
	out, err := exec.Command("make", "-s", "-n", "-C", root, "run", "RUN_WORKDIR="+workdir, "PORT=9123", "RUN_FLAGS=--auth none").CombinedOutput()
	if err != nil {
		t.Fatalf("make -n run: %v\n%s", err, out)
	}
	for _, want := range []string{
		`print-config.sh "` + root + `/bin/boris" "` + workdir + `" "9123"`,
		`--listen 127.0.0.1:9123 --auth none -- --workdir "` + workdir + `"`,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("make -n run lacks %q:\n%s", want, out)
		}
	}
	cfg, err := exec.Command(filepath.Join(root, "scripts", "print-config.sh"), borisBin, workdir, "9123").Output()
	if err != nil {
		t.Fatalf("print-config.sh: %v", err)
	}
	for _, want := range []string{
		`"args": ["--workdir", "` + workdir + `"]`,
		`claude mcp add boris -- "` + borisBin + `" --workdir "` + workdir + `"`,
		"http://127.0.0.1:9123/mcp",
	} {
		if !strings.Contains(string(cfg), want) {
			t.Errorf("print-config.sh output lacks %q:\n%s", want, cfg)
		}
	}
}

// TestGatewaySurvivesClosedLog: a gateway whose log reader goes away (a
// terminal's pipe into tee or less that is quit, a log shipper that dies)
// must not be killed by SIGPIPE at its next log line, with every session
// and core lost: the write fails, the gateway keeps serving, and SIGTERM
// still ends it cleanly.
func TestGatewaySurvivesClosedLog(t *testing.T) {
	dir := realTempDir(t)
	cmd := exec.Command(gatewayBin(t), "--listen", "127.0.0.1:0", "--auth", "none", "--", "--workdir", dir)
	cmd.Env = cleanEnv()
	logR, logW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logW, logW
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	logW.Close()
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	var base string
	sc := bufio.NewScanner(logR)
	for base == "" && sc.Scan() {
		if m := gatewayListeningRe.FindStringSubmatch(sc.Text()); m != nil {
			base = strings.TrimSuffix(m[1], "/mcp")
		}
	}
	if base == "" {
		t.Fatalf("no listening line: %v", sc.Err())
	}
	logR.Close() // the reader is gone: the next log line meets a broken pipe
	for i := range 3 {
		resp, err := http.Get(base + "/healthz") // logged, so written into the broken pipe
		if err != nil {
			t.Fatalf("request %d after the log reader went away: %v", i, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d: status %d", i, resp.StatusCode)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
		if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); ws.Signaled() {
			t.Errorf("boris-gateway ended by %v, want it to stop by itself on SIGTERM", ws.Signal())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("boris-gateway still running 15 s after SIGTERM")
	}
}
