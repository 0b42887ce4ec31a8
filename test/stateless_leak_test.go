package test

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The stateless leak tests end a principal's core (the one core that serves
// all of a principal's 2026-07-28 requests) every way it can end and check
// that neither the core nor a background command it started is left.

// statelessIdleFlag is the gateway flag that ends an idle core, a
// principal's as a session's.
const statelessIdleFlag = "--session-idle-timeout"

// statelessPost sends a raw 2026-07-28 tools/call and returns its final
// JSON-RPC message.
func (g *gatewayProc) statelessPost(id int, tool string, args map[string]any) map[string]any {
	g.t.Helper()
	resp := g.request("POST", statelessHeader("tools/call", tool), strings.NewReader(statelessToolCall(id, tool, args, "")))
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		g.t.Fatalf("2026-07-28 tools/call %s: got %d %s, want 200", tool, resp.StatusCode, b)
	}
	return lastMessage(g.t, resp)
}

// statelessBackgroundSleep starts `sleep MARKER` as a background task of
// the principal's core with a raw 2026-07-28 request, waits until it runs,
// and returns the marker. A failed test kills what it left.
func (g *gatewayProc) statelessBackgroundSleep() string {
	g.t.Helper()
	marker := gwSleepMarker()
	g.t.Cleanup(func() { killAll(processesWith("sleep " + marker)) })
	m := g.statelessPost(21, "bash", map[string]any{"command": "sleep " + marker, "run_in_background": true})
	if out := toJSON(m["result"]); !strings.Contains(out, "task_id: ") {
		g.t.Fatalf("2026-07-28 bash run_in_background: got %s, want a result with a task_id", toJSON(m))
	}
	waitFor(g.t, "the background sleep "+marker, func() bool { return len(processesWith("sleep "+marker)) > 0 })
	if n := len(g.cores()); n != 1 {
		g.t.Fatalf("cores after one principal's 2026 request: got %d, want 1", n)
	}
	return marker
}

// anyCores returns the pids of boris processes working in the gateway's
// core directory, whoever their parent is now: after the gateway died its
// orphaned cores would have another.
func (g *gatewayProc) anyCores() []string {
	var pids []string
	for _, pid := range processesWith(g.dir) {
		b, err := os.ReadFile("/proc/" + pid + "/cmdline")
		if err != nil {
			continue
		}
		argv0, _, _ := strings.Cut(string(b), "\x00")
		if filepath.Base(argv0) == "boris" {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitNoneLeft fails the test unless, within a generous deadline, no boris
// core of this gateway (whatever its parent) and no process running sleep
// marker is left.
func (g *gatewayProc) waitNoneLeft(marker string) {
	g.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		cores, sleeps := g.anyCores(), processesWith("sleep "+marker)
		if len(cores) == 0 && len(sleeps) == 0 {
			return
		}
		if time.Now().After(deadline) {
			var parents []string
			for _, pid := range append(cores, sleeps...) {
				n, _ := strconv.Atoi(pid)
				parents = append(parents, pid+"<-"+strconv.Itoa(parentOf(n)))
			}
			g.t.Fatalf("20 s on: boris cores %v and sleep %s processes %v still running (pid<-parent: %v), want none", cores, marker, sleeps, parents)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestStatelessLeakIdleExpiry: a principal's core left idle ends with the
// background task it was running; the principal's next request gets a new
// core, in the initial working directory.
func TestStatelessLeakIdleExpiry(t *testing.T) {
	g := startGateway(t, statelessIdleFlag, "1s")
	sub := filepath.Join(g.dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if m := g.statelessPost(20, "bash", map[string]any{"command": "cd " + sub}); toJSON(m["result"]) == "null" {
		t.Fatalf("2026-07-28 bash cd: got %s, want a result", toJSON(m))
	}
	marker := g.statelessBackgroundSleep()
	g.waitNoneLeft(marker)
	m := g.statelessPost(22, "bash", map[string]any{"command": "pwd"})
	if out := toJSON(m["result"]); !strings.Contains(out, `stdout:\n`+g.dir+`\nexit_code: 0`) {
		t.Errorf("pwd after the idle core ended: got %s, want %s (a new core)", toJSON(m), g.dir)
	}
}

// TestStatelessLeakSIGTERM: on SIGTERM the gateway ends the principal's
// core, the background task it runs and a call in flight, and exits 0.
func TestStatelessLeakSIGTERM(t *testing.T) {
	g := startGateway(t, "--shutdown-timeout", "2s")
	marker := g.statelessBackgroundSleep()
	// A call still running when the drain time is up.
	inflight := gwSleepMarker()
	t.Cleanup(func() { killAll(processesWith("sleep " + inflight)) })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", g.url, strings.NewReader(statelessToolCall(23, "bash", map[string]any{"command": "sleep " + inflight}, "")))
		req.Header = statelessHeader("tools/call", "bash")
		if resp, err := gwClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	waitFor(t, "the call in flight", func() bool { return len(processesWith("sleep "+inflight)) > 0 })
	if !g.stop(syscall.SIGTERM, 20*time.Second) {
		t.Fatal("boris-gateway still running 20 s after SIGTERM")
	}
	if g.waitErr != nil {
		t.Errorf("exit after SIGTERM: got %v, want status 0", g.waitErr)
	}
	g.waitNoneLeft(marker)
	waitNoProcesses(t, "sleep "+inflight)
}

// TestStatelessLeakSIGKILL: a gateway killed with SIGKILL cannot stop the
// principal's core; the kernel does (parent-death signal), and the core's
// background task must not outlive it either: the session's spawner, left
// alone when its core dies, kills every process of its Landlock domain
// (signal scoping, ABI 6). Without that a command the shell did not exec
// is re-parented to init and keeps running; on such kernels the test
// skips, saying so.
func TestStatelessLeakSIGKILL(t *testing.T) {
	g := startGateway(t)
	marker := g.statelessBackgroundSleep()
	if !g.stop(syscall.SIGKILL, 20*time.Second) {
		t.Fatal("boris-gateway still running after SIGKILL")
	}
	waitFor(t, "the principal's core to die with the gateway", func() bool { return len(g.anyCores()) == 0 })
	deadline := time.Now().Add(10 * time.Second)
	for pids := processesWith("sleep " + marker); len(pids) > 0; pids = processesWith("sleep " + marker) {
		if time.Now().After(deadline) {
			n, _ := strconv.Atoi(pids[0])
			if landlockABI() >= 6 {
				t.Fatalf("10 s after the gateway's SIGKILL its core is gone but the background task's sleep %s still runs, pid %v, parent %d", marker, pids, parentOf(n))
			}
			t.Skipf("Landlock ABI %d has no signal scoping (ABI 6): 10 s after the gateway's SIGKILL the background task's sleep %s still runs, pid %v, parent %d", landlockABI(), marker, pids, parentOf(n))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
