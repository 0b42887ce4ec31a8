package gateway

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mjkoo/boris/gateway/sessions"
)

// resumeVersion is the revision the tests' clients speak: streams start
// with a priming id from it on.
const resumeVersion = "2025-11-25"

// nextData returns the next event of ch with its id, skipping comments.
func nextData(t *testing.T, ch <-chan sseItem) sseItem {
	t.Helper()
	for {
		if it := nextItem(t, ch); it.comment == "" {
			return it
		}
	}
}

// rest reads ch to its end, returning its events (comments skipped).
func rest(t *testing.T, ch <-chan sseItem) []sseItem {
	t.Helper()
	var out []sseItem
	timeout := time.After(30 * time.Second)
	for {
		select {
		case it, ok := <-ch:
			if !ok {
				return out
			}
			if it.comment == "" {
				out = append(out, it)
			}
		case <-timeout:
			t.Fatalf("event stream still open after 30 s, with %d events", len(out))
		}
	}
}

// resumeGET is a GET of session sid resuming after the event id last.
func (g *testGateway) resumeGET(sid, last string) *http.Response {
	g.t.Helper()
	return g.send("GET", header("Accept", "text/event-stream", "Mcp-Session-Id", sid, "MCP-Protocol-Version", resumeVersion, "Last-Event-ID", last), "")
}

// slowCall is a bash call with progress that takes about 2.5 s, answered
// on an event stream.
func (g *testGateway) slowCall(sid string, id int) *http.Response {
	g.t.Helper()
	cmd := "for i in 1 2 3 4 5; do echo line $i; sleep 0.5; done; echo finished"
	resp := g.send("POST", postHeader(sid, "MCP-Protocol-Version", resumeVersion), callBody(id, "bash", map[string]any{"command": cmd}, "tok"))
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		g.t.Fatalf("slow call: got %d %s, want an event stream", resp.StatusCode, ct)
	}
	return resp
}

// TestResumePOSTStream: a client whose POST stream drops after the first
// progress resumes it with GET and Last-Event-ID: it gets what followed,
// in order, without duplicates, and the response exactly once, whether it
// comes back while the call runs or after it ended.
func TestResumePOSTStream(t *testing.T) {
	for _, late := range []bool{false, true} {
		t.Run(fmt.Sprintf("after the response %v", late), func(t *testing.T) {
			logs := &syncBuffer{}
			g := newTestGateway(t, func(o *Options) { o.Logger = slog.New(slog.NewTextHandler(logs, nil)) })
			sid := g.initialize()
			s := g.h.table.Get(sid)
			resp := g.slowCall(sid, 2)
			first := nextData(t, readSSE(resp.Body))
			p := progressOf(t, parseMessage(t, []byte(first.data)))
			if first.id == "" {
				t.Fatalf("progress event %s has no id", first.data)
			}
			resp.Body.Close() // the connection drops
			if late {
				waitFor(t, "the call to end", func() bool {
					return s.Pending() == 0
				})
			}
			resp = g.resumeGET(sid, first.id)
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b, _ := io.ReadAll(resp.Body)
				t.Fatalf("resume: got %d %s, want 200", resp.StatusCode, b)
			}
			evs := rest(t, readSSE(resp.Body))
			ids := map[string]bool{first.id: true}
			last, finals := p.Progress, 0
			for _, ev := range evs {
				if ids[ev.id] || ev.id == "" {
					t.Errorf("event id %q missing or repeated", ev.id)
				}
				ids[ev.id] = true
				m := parseMessage(t, []byte(ev.data))
				switch {
				case m.Method == "notifications/progress":
					if n := progressOf(t, m).Progress; n <= last || finals > 0 {
						t.Errorf("progress %v after %v (finals %d): want increasing, before the response", n, last, finals)
					} else {
						last = n
					}
				case m.Method == "" && m.ID == float64(2) && strings.Contains(toolText(t, m), "finished"):
					finals++
				default:
					t.Errorf("unexpected event %s", ev.data)
				}
			}
			if finals != 1 {
				t.Errorf("got the response %d times on the resumed stream, want once; events %v", finals, evs)
			}
			// The call ran to its end: its log line says how it ended, not
			// that its client left it.
			waitFor(t, "the tool call's log line", func() bool { return strings.Contains(logs.String(), `msg="tool call"`) })
			if l := logs.String(); strings.Count(l, `msg="tool call"`) != 1 || !strings.Contains(l, "outcome=ok") {
				t.Errorf("tool call log lines: want one, outcome=ok:\n%s", l)
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for a logger and a test at once.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestResumeRefused: a Last-Event-ID that is malformed, of no stream of
// the session (another session's among them), or older than what the
// stream kept gets 400, replays nothing of anyone's, and ends nothing:
// the session it belongs to resumes with it afterwards.
func TestResumeRefused(t *testing.T) {
	g := newTestGateway(t, func(o *Options) { o.ReplayBuffer = 1 }) // each stream keeps its newest event only
	victim, tenant := g.initialize(), g.initialize()
	resp := g.slowCall(victim, 2)
	evs := rest(t, readSSE(resp.Body))
	resp.Body.Close()
	if len(evs) < 2 {
		t.Fatalf("victim's call: got %d events, want progress and a response", len(evs))
	}
	firstID, lastBut := evs[0].id, evs[len(evs)-2].id
	streamID, _, _ := strings.Cut(firstID, "-")
	tests := []struct{ name, id, want string }{
		{"another session's event", lastBut, "unknown Last-Event-ID"},
		{"another session's stream, a later seq", streamID + "-99999", "unknown Last-Event-ID"},
		{"forged stream", "0123456789abcdef-1", "unknown Last-Event-ID"},
		{"no seq", streamID, "malformed"},
		{"empty seq", streamID + "-", "malformed"},
		{"seq with a leading zero", streamID + "-01", "malformed"},
		{"negative seq", streamID + "--1", "malformed"},
		{"upper case", strings.ToUpper(streamID) + "-1", "malformed"},
		{"path", "../../etc-1", "malformed"},
		{"empty", "", "malformed"},
		{"long", strings.Repeat("a", 4096), "malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := g.resumeGET(tenant, tt.id)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), tt.want) || strings.Contains(string(b), "line") {
				t.Errorf("got %d %s, want 400 saying %q and nothing of the victim's", resp.StatusCode, b, tt.want)
			}
		})
	}
	t.Run("dropped events", func(t *testing.T) {
		resp := g.resumeGET(victim, firstID)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "too old") {
			t.Errorf("got %d %s, want 400: the events after it were dropped", resp.StatusCode, b)
		}
	})
	t.Run("the owner resumes", func(t *testing.T) {
		resp := g.resumeGET(victim, lastBut)
		defer resp.Body.Close()
		got := rest(t, readSSE(resp.Body))
		if resp.StatusCode != http.StatusOK || len(got) != 1 || got[0].data != evs[len(evs)-1].data {
			t.Errorf("got %d %v, want 200 and the response alone", resp.StatusCode, got)
		}
	})
}

// TestResumeGETStream: a plain GET while the session's GET stream is open
// still gets 409; a GET with Last-Event-ID of that stream takes it over
// (the client says the connection it had is dead).
func TestResumeGETStream(t *testing.T) {
	g := newTestGateway(t)
	sid := g.initialize()
	h := header("Accept", "text/event-stream", "Mcp-Session-Id", sid, "MCP-Protocol-Version", resumeVersion)
	first := g.send("GET", h, "")
	defer first.Body.Close()
	prime := ""
	for _, line := range readLines(t, first.Body, 2) {
		if id, ok := strings.CutPrefix(line, "id: "); ok {
			prime = id
		}
	}
	if prime == "" {
		t.Fatal("the GET stream sent no priming id")
	}
	resp, body := g.do("GET", h, "")
	if resp.StatusCode != http.StatusConflict {
		t.Errorf("second plain GET: got %d %s, want 409", resp.StatusCode, body)
	}
	again := g.resumeGET(sid, prime)
	defer again.Body.Close()
	if again.StatusCode != http.StatusOK {
		t.Fatalf("GET with the stream's Last-Event-ID: got %d, want 200", again.StatusCode)
	}
	if _, err := io.ReadAll(first.Body); err != nil {
		t.Logf("the first stream ended with %v", err)
	}
}

// readLines reads n lines of an event stream (blocking until they come).
func readLines(t *testing.T, r io.Reader, n int) []string {
	t.Helper()
	var lines []string
	buf := make([]byte, 1)
	line := ""
	for len(lines) < n {
		if _, err := r.Read(buf); err != nil {
			t.Fatalf("read: %v after %q", err, lines)
		}
		if buf[0] == '\n' {
			if line != "" {
				lines = append(lines, line)
			}
			line = ""
			continue
		}
		line += string(buf)
	}
	return lines
}

// TestReplayBounds: clients that never resume, whose calls leave their
// streams behind, hold no more than the session's budget at any time, no
// more streams than a session keeps, and nothing once the replay window
// has passed; evictions are counted.
func TestReplayBounds(t *testing.T) {
	const budget = 48 << 10
	g := newTestGateway(t, func(o *Options) {
		o.MaxBuffered, o.ReplayBuffer, o.ReplayWindow = budget, 4<<10, time.Hour
		o.Dashboard.MetricsOpen = true
	})
	sid := g.initialize()
	s := g.h.table.Get(sid)
	// Each call answers 3 KB after the stream has started (the keep-alive
	// tick), to a client that left as soon as the stream started or that
	// read it all and never came back.
	cmd := "sleep 0.2; head -c 3000 /dev/zero | tr '\\0' y"
	var wg sync.WaitGroup
	var over sync.Map
	for i := range 90 {
		wg.Go(func() {
			resp := g.send("POST", postHeader(sid, "MCP-Protocol-Version", resumeVersion), callBody(100+i, "bash", map[string]any{"command": cmd}, ""))
			if i%2 == 0 {
				_, _ = io.Copy(io.Discard, resp.Body)
			}
			resp.Body.Close()
			if used := s.Held(); used > budget {
				over.Store(i, used)
			}
		})
		if i%8 == 7 {
			wg.Wait() // within the session's in-flight limit
		}
	}
	wg.Wait()
	// A response leaves Pending before its stream's pump has put it in
	// the stream: wait for both.
	waitFor(t, "every call to be answered and its stream ended", func() bool {
		if s.Pending() != 0 {
			return false
		}
		for _, st := range s.Streams() {
			if !st.Done {
				return false
			}
		}
		return true
	})
	over.Range(func(k, v any) bool {
		t.Errorf("call %v: the session held %v bytes, over its budget of %d", k, v, budget)
		return true
	})
	streams := s.Streams()
	for _, st := range streams {
		if st.Bytes > 4<<10 && st.Events > 1 {
			t.Errorf("stream %s keeps %d bytes in %d events, over --replay-buffer", st.ID, st.Bytes, st.Events)
		}
	}
	if len(streams) > sessions.MaxFinishedStreams {
		t.Errorf("the session keeps %d streams, want at most %d", len(streams), sessions.MaxFinishedStreams)
	}
	// The window passes (the reaper's sweep, run here).
	s.SweepReplay(time.Now().Add(2 * time.Hour)) // ReplayWindow is an hour
	if held, total, kept := s.Held(), g.h.cores.lim.Total.InUse(), len(s.Streams()); held != 0 || total != 0 || kept != 0 {
		t.Errorf("after the window: the session holds %d bytes, the gateway %d, in %d streams; want nothing", held, total, kept)
	}
	// Every response was kept, then dropped: each counted once.
	_, families := scrape(t, g)
	sum := 0.0
	for _, reason := range []string{"size", "age", "budget", "streams"} {
		sum += max(value(families, "boris_gateway_replay_evictions_total", "reason", reason), 0)
	}
	if sum < 90 {
		t.Errorf("evictions counted: %v, want at least one for each of the 90 responses", sum)
	}
	// The session serves on.
	if final, _ := responseOf(t, g.send("POST", postHeader(sid), callBody(7, "bash", map[string]any{"command": "echo still"}, ""))); !strings.Contains(toolText(t, final), "still") {
		t.Errorf("a call after: got %+v", final)
	}
}

// TestReplayGivesWay: what streams keep for replay counts in the session's
// budget, and gives way to new replies: a session whose client read every
// reply is never refused one for the history it keeps.
func TestReplayGivesWay(t *testing.T) {
	const budget = 32 << 10
	g := newTestGateway(t, func(o *Options) { o.MaxBuffered = budget }) // replay: 1 MiB a stream, 5 minutes
	sid := g.initialize()
	s := g.h.table.Get(sid)
	cmd := "sleep 0.2; head -c 10000 /dev/zero | tr '\\0' z"
	for i := range 12 {
		final, _ := responseOf(t, g.send("POST", postHeader(sid), callBody(10+i, "bash", map[string]any{"command": cmd}, "")))
		if final.Error != nil || !strings.Contains(toolText(t, final), "zzzz") {
			t.Fatalf("call %d: got %+v, want its output", i, final)
		}
		if used := s.Held(); used > budget {
			t.Fatalf("after call %d the session holds %d bytes, over its budget of %d", i, used, budget)
		}
	}
	if s.Held() == 0 {
		t.Errorf("the session keeps nothing for replay, want its latest replies kept")
	}
}

// TestReplayGivesWayAcrossSessions: history one session keeps for replay
// gives way to a reply another session's client waits for when the
// gateway's budget is full: one tenant's kept streams never keep another's
// replies out.
func TestReplayGivesWayAcrossSessions(t *testing.T) {
	const perSession, total = 48 << 10, 64 << 10
	g := newTestGateway(t, func(o *Options) { o.MaxBuffered, o.MaxBufferedTotal = perSession, total })
	keeper, other := g.initialize(), g.initialize()
	cmd := "sleep 0.2; head -c 10000 /dev/zero | tr '\\0' z"
	for i := range 4 {
		final, _ := responseOf(t, g.send("POST", postHeader(keeper), callBody(10+i, "bash", map[string]any{"command": cmd}, "")))
		if final.Error != nil || !strings.Contains(toolText(t, final), "zzzz") {
			t.Fatalf("keeper's call %d: got %+v, want its output", i, final)
		}
	}
	ks := g.h.table.Get(keeper)
	if held := ks.Held(); held < 30<<10 {
		t.Fatalf("the keeper's session keeps %d bytes for replay, want its replies kept (the test needs them)", held)
	}
	big := "sleep 0.2; head -c 40000 /dev/zero | tr '\\0' y"
	final, _ := responseOf(t, g.send("POST", postHeader(other), callBody(20, "bash", map[string]any{"command": big}, "")))
	if final.Error != nil || !strings.Contains(toolText(t, final), "yyyy") {
		t.Fatalf("the other session's call, with the gateway's budget full of the keeper's history: got %+v, want its output", final)
	}
	if used := g.h.cores.lim.Total.InUse(); used > total {
		t.Errorf("the gateway holds %d bytes, over its budget of %d", used, total)
	}
}
