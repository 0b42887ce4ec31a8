package test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// nextLine returns boris's next stdout line, failing the test after 20 s.
func (s *rawSession) nextLine() string {
	s.t.Helper()
	select {
	case l, ok := <-s.lines:
		if !ok {
			s.t.Fatalf("stdout closed; lines so far %q", s.seen)
		}
		s.seen = append(s.seen, l)
		return l
	case <-time.After(20 * time.Second):
		s.t.Fatalf("no line after 20 s; lines so far %q", s.seen)
	}
	return ""
}

// rawMessages decodes a stdout line: one message, or a batch's array.
func rawMessages(t *testing.T, line string) []map[string]any {
	t.Helper()
	if strings.HasPrefix(line, "[") {
		var msgs []map[string]any
		if err := json.Unmarshal([]byte(line), &msgs); err != nil {
			t.Fatalf("got %q, want a JSON-RPC batch response", line)
		}
		return msgs
	}
	var msg map[string]any
	if err := json.Unmarshal([]byte(line), &msg); err != nil {
		t.Fatalf("got %q, want a JSON-RPC message", line)
	}
	return []map[string]any{msg}
}

// isDuplicateIDError reports whether msg is the -32600 error for a request
// reusing id, answered with a null id (JSON-RPC 2.0 §5: the id cannot be
// told from the other request's) and naming the id.
func isDuplicateIDError(msg map[string]any, id string) bool {
	e, _ := msg["error"].(map[string]any)
	text, _ := e["message"].(string)
	idv, hasID := msg["id"]
	return e != nil && e["code"] == float64(-32600) && hasID && idv == nil && strings.Contains(text, "id "+id)
}

// TestStdioDuplicateIDs: a request whose id another request of its batch
// holds, or one still being answered, gets a -32600 error naming the id
// and the session goes on; the request in flight gets its own answer,
// once, in its own shape (a line, not a batch's element).
func TestStdioDuplicateIDs(t *testing.T) {
	dir := realTempDir(t)
	cmd := exec.Command(borisBin, "--workdir", dir)
	cmd.Env = cleanEnv()
	stdin, stdout := startPiped(t, cmd)
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	s := &rawSession{t: t, stdin: stdin, lines: rawLines(stdout)}
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	s.await(1)
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	t.Run("twice in one batch", func(t *testing.T) {
		s.t = t
		s.send(`[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","id":5,"method":"ping"}]`)
		msgs := rawMessages(t, s.nextLine())
		if len(msgs) != 2 || msgs[0]["id"] != float64(5) || msgs[0]["result"] == nil || !isDuplicateIDError(msgs[1], "5") {
			t.Errorf("batch with id 5 twice: got %v, want the first ping's result and a -32600 error naming id 5", msgs)
		}
		s.send(`{"jsonrpc":"2.0","id":6,"method":"ping"}`)
		if resp := s.await(6); resp["result"] == nil {
			t.Errorf("ping after the batch: got %v, want a result", resp)
		}
	})

	release := filepath.Join(dir, "release")
	wait := `{"jsonrpc":"2.0","id":@ID@,"method":"tools/call","params":{"name":"bash","arguments":{"command":"while [ ! -e ` + release + ` ]; do sleep 0.05; done; echo answer-of-@ID@"}}}`
	for _, tc := range []struct {
		name, id, reuse string
		want            func(msgs []map[string]any) bool
	}{
		{"a line reusing an id in flight", "7", `{"jsonrpc":"2.0","id":7,"method":"ping"}`,
			func(msgs []map[string]any) bool { return len(msgs) == 1 && isDuplicateIDError(msgs[0], "7") }},
		{"a batch reusing an id in flight", "9", `[{"jsonrpc":"2.0","id":9,"method":"ping"},{"jsonrpc":"2.0","id":10,"method":"ping"}]`,
			func(msgs []map[string]any) bool {
				return len(msgs) == 2 && isDuplicateIDError(msgs[0], "9") && msgs[1]["id"] == float64(10) && msgs[1]["result"] != nil
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s.t = t
			_ = os.Remove(release)
			s.send(strings.ReplaceAll(wait, "@ID@", tc.id))
			waitFor(t, "the command to start", func() bool { return len(processesWith("answer-of-"+tc.id)) > 0 })
			s.send(tc.reuse)
			if msgs := rawMessages(t, s.nextLine()); !tc.want(msgs) {
				t.Errorf("%s: got %v, want a -32600 error naming id %s (null id) for the reuse", tc.reuse, msgs, tc.id)
			}
			writeFile(t, release, "")
			answer := rawMessages(t, s.nextLine())
			if len(answer) != 1 || answer[0]["id"] != toNumber(tc.id) || !strings.Contains(toJSON(answer[0]["result"]), "answer-of-"+tc.id) {
				t.Errorf("the call in flight: got %v, want its own answer (answer-of-%s) as one message", answer, tc.id)
			}
			s.send(`{"jsonrpc":"2.0","id":99` + tc.id + `,"method":"ping"}`)
			s.await(int(toNumber("99" + tc.id)))
			n := 0
			for _, l := range s.seen {
				if strings.Contains(l, "answer-of-"+tc.id) {
					n++
				}
			}
			if n != 1 {
				t.Errorf("the call in flight was answered %d times, want once; lines %q", n, s.seen)
			}
		})
	}
}

// toNumber is a decimal id as JSON decodes it.
func toNumber(s string) float64 {
	var f float64
	_ = json.Unmarshal([]byte(s), &f)
	return f
}
