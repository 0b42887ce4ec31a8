package test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/mjkoo/boris/internal/jsonscan"
)

// JSON-RPC 2.0 §5: a response's id "MUST be the same as the value of the id
// member in the Request Object". These are ids a client may send that a
// decoder keeping ids as int64 alters: each must come back byte for byte,
// over stdio, through the gateway on a 2025-11-25 session, and at
// 2026-07-28.
var oddIDs = []string{
	`1.5`, `-0`, `1e2`, `9223372036854775808`, `9223372036854775807`, `9007199254740993`, `12345678901234567890123`, `-7`,
	`"` + strings.Repeat("long-id-", 512) + `"`, `"a\u0041\/b"`, `"<&>"`,
}

// idOf is a message's id exactly as it was written: the last member named
// "id" (as every reader of Boris's takes it).
func idOf(t *testing.T, msg []byte) string {
	t.Helper()
	v, ok := jsonscan.Member(msg, "id")
	if !ok {
		t.Fatalf("no id in %q", msg)
	}
	return string(v)
}

// TestIDsRoundTripStdio sends the built core a ping under each id over
// stdio, one line each and then all in one batch.
func TestIDsRoundTripStdio(t *testing.T) {
	cmd := exec.Command(borisBin, "--workdir", realTempDir(t))
	cmd.Env = cleanEnv()
	stdin, stdout := startPiped(t, cmd)
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	s := &rawSession{t: t, stdin: stdin, lines: rawLines(stdout)}
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	s.await(1)
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, id := range oddIDs {
		s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		line := s.nextLine()
		if got := idOf(t, []byte(line)); got != id || !strings.Contains(line, `"result"`) {
			t.Errorf("ping with id %.40s: got id %.40s in %.80s, want the same id and a result", id, got, line)
		}
	}
	var batch []string
	for _, id := range oddIDs {
		batch = append(batch, `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`)
	}
	s.send("[" + strings.Join(batch, ",") + "]")
	var answers []json.RawMessage
	if err := json.Unmarshal([]byte(s.nextLine()), &answers); err != nil || len(answers) != len(oddIDs) {
		t.Fatalf("batch of %d pings: got %d answers (%v), want one each", len(oddIDs), len(answers), err)
	}
	for i, a := range answers {
		if got := idOf(t, a); got != oddIDs[i] {
			t.Errorf("batch ping %d: got id %.40s, want %.40s", i, got, oddIDs[i])
		}
	}
}

// TestIDsRoundTripGateway sends each id through the gateway: a ping on a
// 2025-11-25 session, a tools/call at 2026-07-28.
func TestIDsRoundTripGateway(t *testing.T) {
	g := startGateway(t)
	sid := g.initialize()
	for _, id := range oddIDs {
		_, body := g.do("POST", gwHeader(sid, "Accept", "application/json"), `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`)
		if got := idOf(t, body); got != id {
			t.Errorf("session ping with id %.40s: got id %.40s in %.80s, want the same", id, got, body)
		}
		call := statelessToolCall(1, "bash", map[string]any{"command": "echo hi"}, "")
		call = strings.Replace(call, `"id":1,`, `"id":`+id+`,`, 1)
		resp := g.request("POST", statelessHeader("tools/call", "bash"), strings.NewReader(call))
		body = lastEvent(t, resp)
		if got := idOf(t, body); got != id || !bytes.Contains(body, []byte("hi")) {
			t.Errorf("2026-07-28 tools/call with id %.40s: got id %.40s in %.80s, want the same and the command's output", id, got, body)
		}
	}
}

// lastEvent is the last JSON-RPC message of a response, raw: the body, or
// the last data line of an event stream.
func lastEvent(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read response: %v", err)
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return b
	}
	var last []byte
	for _, line := range bytes.Split(b, []byte("\n")) {
		if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			last = d
		}
	}
	return last
}
