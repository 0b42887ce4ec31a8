package test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// postWithin posts body with headers h and returns the status and body,
// or the error of a request not answered within d.
func (g *gatewayProc) postWithin(d time.Duration, h http.Header, body string) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "POST", g.url, strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header = h
	resp, err := gwClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// gwBashBody is a tools/call of bash running command, spelled as raw JSON
// with extra members after the method (a leading comma each).
func gwBashBody(idMember, extra, command string) string {
	cmd, _ := json.Marshal(command)
	return `{"jsonrpc":"2.0",` + idMember + `"method":"tools/call"` + extra + `,"params":{"name":"bash","arguments":{"command":` + string(cmd) + `}}}`
}

// inFlightDefault is the gateway's default bound on a session's requests
// in flight: one more than that left waiting wedges the session at 429.
const inFlightDefault = 32

// TestGatewayReadsMessagesAsCore: the gateway and the core read a client's
// message one way (issue 6, item 6, and item 7 in part). A "Method" beside
// "method" does not pass a tools/call as a ping: the gateway logs the
// tool call the core runs. "ID" is not the id: the message is the
// notification the core takes it for, and more of them than a session may
// have in flight leave it serving. Bodies nested deeper than the core
// reads are answered with their ids, and leave it serving too. And
// {"path":..,"PATH":..} is refused by the core, not written under PATH.
func TestGatewayReadsMessagesAsCore(t *testing.T) {
	g := startGateway(t, "--", "--toolset", "all")
	h := gwHeader(g.initialize(), "Accept", "application/json")
	served := func(t *testing.T, h http.Header, id int) {
		t.Helper()
		status, body, err := g.postWithin(10*time.Second, h, gwBashBody(fmt.Sprintf(`"id":%d,`, id), "", "echo still-served"))
		if err != nil || status != http.StatusOK || !strings.Contains(string(body), "still-served") {
			t.Fatalf("a plain call afterwards: got %d %.300s %v, want 200 and its output", status, body, err)
		}
	}

	t.Run("Method beside method", func(t *testing.T) {
		toolCalls := regexp.MustCompile(`msg="tool call" .*tool=bash `)
		before := len(toolCalls.FindAllString(g.stderr.String(), -1))
		status, body, err := g.postWithin(10*time.Second, h, gwBashBody(`"id":1,`, `,"Method":"ping"`, "echo ran-as-tools-call"))
		switch {
		case err != nil:
			t.Fatalf("got %v, want an answer", err)
		case status == http.StatusBadRequest:
			return // refused: the core never saw it
		case status != http.StatusOK || !strings.Contains(string(body), "ran-as-tools-call"):
			t.Fatalf("got %d %.300s, want the tool call's result or a refusal", status, body)
		}
		waitFor(t, "the gateway to log the bash call the core ran", func() bool {
			return len(toolCalls.FindAllString(g.stderr.String(), -1)) > before
		})
	})

	t.Run("ID for id", func(t *testing.T) {
		h := gwHeader(g.initialize(), "Accept", "application/json") // a session of its own
		var wg sync.WaitGroup
		for i := range inFlightDefault + 1 {
			wg.Go(func() {
				status, body, err := g.postWithin(5*time.Second, h, gwBashBody(fmt.Sprintf(`"ID":%d,`, 100+i), "", "true"))
				if err != nil || (status != http.StatusAccepted && status != http.StatusBadRequest) {
					t.Errorf(`"ID":%d: got %d %.200s %v, want 202 (a notification, as the core reads it) or 400 at once`, 100+i, status, body, err)
				}
			})
		}
		wg.Wait()
		served(t, h, 2)
	})

	t.Run("deep bodies", func(t *testing.T) {
		h := gwHeader(g.initialize(), "Accept", "application/json") // a session of its own
		deep := `,"x":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001)
		var wg sync.WaitGroup
		for i := range inFlightDefault + 1 {
			id := 200 + i
			body := strings.Replace(gwBashBody(fmt.Sprintf(`"id":%d,`, id), "", "true"), `"true"}`, `"true"`+deep+`}`, 1)
			wg.Go(func() {
				status, resp, err := g.postWithin(5*time.Second, h, body)
				if err != nil || status != http.StatusBadRequest || !strings.Contains(string(resp), fmt.Sprintf(`"id":%d`, id)) {
					t.Errorf("body nested 1001 deep, id %d: got %d %.200s %v, want 400 at once, with its id", id, status, resp, err)
				}
			})
		}
		wg.Wait()
		served(t, h, 3)
	})

	t.Run("path and PATH", func(t *testing.T) {
		a, b := filepath.Join(g.dir, "lower.txt"), filepath.Join(g.dir, "upper.txt")
		// PATH last: encoding/json's case-insensitive decoding used it.
		args := fmt.Sprintf(`{"path":%q,"content":"x","PATH":%q}`, a, b)
		body := `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"write_file","arguments":` + args + `}}`
		status, resp, err := g.postWithin(10*time.Second, h, body)
		if err != nil || status != http.StatusOK || !strings.Contains(string(resp), "INVALID_INPUT") || !strings.Contains(string(resp), `\"PATH\"`) {
			t.Errorf("write_file with path and PATH: got %d %.300s %v, want an INVALID_INPUT error naming PATH", status, resp, err)
		}
		for _, p := range []string{a, b} {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("%s was written; want neither file", filepath.Base(p))
			}
		}
	})
}
