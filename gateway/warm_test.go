package gateway

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// warmPids returns the pids of the gateway's cores that no session has.
func (g *testGateway) warmPids(sessions ...string) []string {
	var taken []string
	for _, sid := range sessions {
		taken = append(taken, strconv.Itoa(g.coreOf(sid).Cmd.Process.Pid))
	}
	var out []string
	for _, pid := range g.cores() {
		if !slices.Contains(taken, pid) {
			out = append(out, pid)
		}
	}
	return out
}

// TestWarmCoreTakenByNextSession: with WarmCores, a core is started as
// soon as a session takes one; the next session gets that very process,
// which serves it as a fresh core would, another is started behind it, and
// none is left once the gateway closes.
func TestWarmCoreTakenByNextSession(t *testing.T) {
	g := newTestGateway(t, func(o *Options) { o.WarmCores = 1 })
	first := g.initialize()
	waitFor(t, "a core waiting after the first session", func() bool { return len(g.warmPids(first)) == 1 && g.h.cores.warm.Count() == 1 })
	waiting := g.warmPids(first)[0]

	second := g.initialize()
	if got := strconv.Itoa(g.coreOf(second).Cmd.Process.Pid); got != waiting {
		t.Fatalf("second session's core is pid %s, want the waiting core %s", got, waiting)
	}
	resp, body := g.do(http.MethodPost, postHeader(second), callBody(2, "view", map[string]any{"path": g.dir}, ""))
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"result"`) {
		t.Fatalf("a call on the session of the waiting core: %d %s", resp.StatusCode, body)
	}
	waitFor(t, "another core waiting", func() bool {
		w := g.warmPids(first, second)
		return len(w) == 1 && w[0] != waiting
	})
	// The first create found no core waiting, the second one: /healthz
	// and /metrics count both.
	hresp, err := g.client().Get(g.srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	var health struct {
		Hits   int64 `json:"warm_hits"`
		Misses int64 `json:"warm_misses"`
	}
	err = json.NewDecoder(hresp.Body).Decode(&health)
	hresp.Body.Close()
	if err != nil || health.Hits != 1 || health.Misses != 1 {
		t.Errorf("/healthz warm_hits %d, warm_misses %d (%v); want 1 and 1", health.Hits, health.Misses, err)
	}
	if code, families := scrape(t, g); code != http.StatusOK {
		t.Errorf("/metrics: %d", code)
	} else if hits, misses := value(families, "boris_gateway_warm_core_hits_total"), value(families, "boris_gateway_warm_core_misses_total"); hits != 1 || misses != 1 {
		t.Errorf("/metrics warm core hits %v, misses %v; want 1 and 1", hits, misses)
	}

	g.h.Close()
	waitFor(t, "no core after Close", func() bool { return len(g.cores()) == 0 })
}

// TestWarmCoreStaysWithItsPrincipal: a core started ahead for one
// principal (its own working directory) is never given to another; the
// other's session starts a core of its own, and its waiting core takes the
// only place in the pool, stopping the first principal's.
func TestWarmCoreStaysWithItsPrincipal(t *testing.T) {
	root := t.TempDir()
	g := newTestGateway(t, func(o *Options) {
		o.WarmCores = 1
		o.Principal = func(r *http.Request) Principal {
			who := r.Header.Get("X-Test-Who")
			return Principal{Subject: who, Key: "test\x00" + who, SubjectKey: "test\x00" + who, Workdir: filepath.Join(root, who)}
		}
	})
	open := func(who string) string {
		t.Helper()
		resp, body := g.do(http.MethodPost, postHeader("", "X-Test-Who", who), initializeBody(1))
		sid := resp.Header.Get("Mcp-Session-Id")
		if resp.StatusCode != http.StatusOK || sid == "" {
			t.Fatalf("initialize as %s: %d %s", who, resp.StatusCode, body)
		}
		return sid
	}
	workdirOf := func(pid int) string {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err != nil {
			t.Fatal(err)
		}
		args := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
		wd := ""
		for i, a := range args[:len(args)-1] {
			if a == "--workdir" {
				wd = args[i+1] // the last one wins
			}
		}
		return wd
	}
	coresOf := func(who string) []int {
		var pids []int
		for _, pid := range processesWith("--workdir " + filepath.Join(root, who)) {
			if parentOf(pid) == os.Getpid() {
				n, _ := strconv.Atoi(pid)
				pids = append(pids, n)
			}
		}
		return pids
	}

	alice := open("alice")
	waitFor(t, "alice's next core waiting", func() bool { return len(coresOf("alice")) == 2 })
	aliceWaiting := slices.DeleteFunc(coresOf("alice"), func(pid int) bool { return pid == g.h.table.Get(alice).Core.Cmd.Process.Pid })[0]

	bob := open("bob")
	bobCore := g.h.table.Get(bob).Core.Cmd.Process.Pid
	if bobCore == aliceWaiting {
		t.Fatalf("bob's session got alice's waiting core %d", aliceWaiting)
	}
	if wd := workdirOf(bobCore); !strings.HasSuffix(wd, filepath.Join(root, "bob")) {
		t.Fatalf("bob's core works in %s", wd)
	}
	waitFor(t, "bob's next core waiting and alice's stopped", func() bool {
		return len(coresOf("bob")) == 2 && len(coresOf("alice")) == 1
	})
}
