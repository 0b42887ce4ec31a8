package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sseToken is the bearer token the 2024-11-05 clients present.
const sseToken = "interop-sse-token-0123456789abcdef"

// sseGateway starts a gateway that requires sseToken and returns the URL
// of its 2024-11-05 SSE endpoint.
func sseGateway(t *testing.T) (*gateway, string) {
	t.Helper()
	g := startGateway(t, workdir(t), "--token", "sse="+sseToken)
	return g, strings.TrimSuffix(g.url, "/mcp") + "/sse"
}

// coresOf lists the boris processes running below the gateway: its cores.
func (g *gateway) coresOf() []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if comm, _ := statOf(pid); comm == "boris" && descends(pid, g.cmd.Process.Pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// statOf reads a process's command name and parent pid from /proc.
func statOf(pid int) (comm string, ppid int) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return "", -1
	}
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return "", -1
	}
	fields := strings.Fields(s[end+1:])
	if len(fields) < 2 {
		return "", -1
	}
	ppid, _ = strconv.Atoi(fields[1])
	return s[open+1 : end], ppid
}

// descends reports whether pid is a descendant of ancestor.
func descends(pid, ancestor int) bool {
	for i := 0; i < 64 && pid > 1; i++ {
		_, pid = statOf(pid)
		if pid == ancestor {
			return true
		}
	}
	return false
}

// wantCoresGone waits for the gateway to hold no session and run no core.
func (g *gateway) wantCoresGone(t *testing.T, after string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for g.sessions() != 0 || len(g.coresOf()) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d sessions, cores %v still running 20 s later, want none\ngateway log:\n%s", after, g.sessions(), g.coresOf(), g.logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// sseSummary is what sse.mjs and remote.mjs print.
type sseSummary struct {
	OK       bool     `json:"ok"`
	Failures []string `json:"failures"`
	Steps    struct {
		Bash struct {
			Progress []float64 `json:"progress"`
		} `json:"bashWithProgress"`
		SessionsOpen int `json:"sessionsOpen"`
	} `json:"steps"`
}

// runSummary runs a script and decodes its summary, failing t when the
// script fails.
func runSummary(t *testing.T, g *gateway, args ...string) sseSummary {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	out, err := runNode(t, ctx, args...)
	var s sseSummary
	if jerr := json.Unmarshal(out, &s); jerr != nil {
		t.Fatalf("%s: %v; its output is not the JSON summary (%v):\n%s\ngateway log:\n%s", args[0], err, jerr, out, g.logs)
	}
	t.Logf("%s summary:\n%s", args[0], out)
	if err != nil || !s.OK {
		t.Fatalf("%s against boris-gateway's SSE endpoint: %v\n  %s\ngateway log:\n%s", args[0], err, strings.Join(s.Failures, "\n  "), g.logs)
	}
	return s
}

// TestSSEClientTransport: the official TypeScript SDK's SSEClientTransport
// through the gateway with a token: 401 without it, tools/list, bash with
// progress, a tool error, and the session and its core gone once the
// stream is closed. See sse.mjs.
func TestSSEClientTransport(t *testing.T) {
	ready(t)
	t.Parallel()
	g, url := sseGateway(t)
	s := runSummary(t, g, "sse.mjs", url, sseToken)
	g.wantCoresGone(t, "after SSEClientTransport closed its stream")
	t.Logf("SSEClientTransport: %d progress notification(s) before the bash result", len(s.Steps.Bash.Progress))
}

// TestMCPRemoteSSEOnly: mcp-remote --transport sse-only, driven by the
// SDK's stdio client, through the gateway with a token; the session and
// its core are gone once the client closes mcp-remote. See remote.mjs.
func TestMCPRemoteSSEOnly(t *testing.T) {
	ready(t)
	t.Parallel()
	g, url := sseGateway(t)
	runSummary(t, g, "remote.mjs", url, sseToken, t.TempDir())
	g.wantCoresGone(t, "after mcp-remote ended")
}

// TestInspectorCLISSE: the Inspector CLI with --transport sse, one call per
// run as it works: tools/list, a bash call, a tool error, and 401 without
// the token. Each run opens a stream and closes it when done, and its
// session and core must be gone after it.
func TestInspectorCLISSE(t *testing.T) {
	ready(t)
	t.Parallel()
	g, url := sseGateway(t)
	// The CLI finds its package.json relative to the working directory, so
	// it runs from its own build directory.
	dir := filepath.Join(npmDir, "node_modules", "@modelcontextprotocol", "inspector-cli", "build")
	auth := []string{"--header", "Authorization: Bearer " + sseToken}
	tests := []struct {
		name string
		args []string
		ok   bool
		want string // in stdout
	}{
		{"tools/list", append([]string{"--method", "tools/list"}, auth...), true, `"name": "bash"`},
		{"bash", append([]string{"--method", "tools/call", "--tool-name", "bash", "--tool-arg", "command=echo inspector says hi"}, auth...), true, "inspector says hi"},
		{"tool error", append([]string{"--method", "tools/call", "--tool-name", "view", "--tool-arg", "path=no-such-file.txt"}, auth...), true, `"isError": true`},
		{"no token", []string{"--method", "tools/list"}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, nodeBin, append([]string{"index.js", url, "--transport", "sse"}, tt.args...)...)
			cmd.Dir, cmd.WaitDelay = dir, 5*time.Second
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if stderr.Len() > 0 {
				t.Logf("inspector-cli stderr:\n%s", stderr.Bytes())
			}
			t.Logf("inspector-cli %s: %v\n%s", strings.Join(tt.args, " "), err, out)
			switch {
			case tt.ok && (err != nil || !strings.Contains(string(out), tt.want)):
				t.Fatalf("inspector-cli %s: %v, want success with %q in:\n%s\ngateway log:\n%s", tt.name, err, tt.want, out, g.logs)
			case !tt.ok && err == nil:
				t.Fatalf("inspector-cli without a token succeeded:\n%s", out)
			case !tt.ok && !strings.Contains(g.logs.String(), "path=/sse status=401"):
				t.Fatalf("inspector-cli without a token failed, but the gateway logged no 401 for /sse:\n%s", g.logs)
			}
			g.wantCoresGone(t, "after inspector-cli "+tt.name)
		})
	}
}
