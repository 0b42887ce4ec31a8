package test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// toolsGoldenConfigs are the core flag combinations whose tools/list is
// kept as a golden file: every toolset, --read-only, each
// --anthropic-compat version, checkpoints off, diagnostics off, disabled tools, workspaces
// and extensions. What the gateway passes for a token's scopes is among
// them too (TestToolsGoldenGatewayScopes).
var toolsGoldenConfigs = []struct {
	name  string
	flags []string
}{
	{"boris", nil},
	{"boris-read-only", []string{"--read-only"}},
	{"boris-checkpoints-off", []string{"--checkpoints", "off"}},
	{"boris-no-exec", []string{"--disable-tools", "bash,task_output,task_stop"}},
	{"boris-diagnostics-off", []string{"--diagnostics", "off"}},
	{"filesystem", []string{"--toolset", "filesystem"}},
	{"filesystem-read-only", []string{"--toolset", "filesystem", "--read-only"}},
	{"filesystem-workspaces", []string{"--toolset", "filesystem", "--workspaces-root", "$WORKDIR/ws"}},
	{"all", []string{"--toolset", "all"}},
	{"all-read-only", []string{"--toolset", "all", "--read-only"}},
	{"all-workspaces", []string{"--toolset", "all", "--workspaces-root", "$WORKDIR/ws"}},
	{"compat", []string{"--anthropic-compat"}},
	{"compat-20250124", []string{"--anthropic-compat=20250124"}},
	{"compat-20250728", []string{"--anthropic-compat=20250728"}},
	{"compat-read-only", []string{"--anthropic-compat", "--read-only"}},
	{"extensions", []string{"--extensions", "$EXTENSIONS"}},
}

// TestToolsGolden: the tools/list of the built core, byte for byte (but
// indented, and with the working directory as $WORKDIR), is the golden
// file's for every configuration in toolsGoldenConfigs. Run with -update
// to rewrite the files after an intended change of a tool's surface.
func TestToolsGolden(t *testing.T) {
	for _, c := range toolsGoldenConfigs {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := coreToolsList(t, c.flags)
			compareGolden(t, filepath.Join("testdata", "tools", c.name+".json"), got)
		})
	}
}

// TestToolsGoldenGatewayScopes: through the built gateway, a token's
// scopes give its core the tool list of the flags they stand for
// (docs/reference/gateway.md#authentication), compared with golden files as TestToolsGolden does. The list is as
// go-sdk's client decodes it, re-encoded.
func TestToolsGoldenGatewayScopes(t *testing.T) {
	dir := realTempDir(t)
	g := startAuthGateway(t, []string{"BORIS_GATEWAY_JWT_SECRET=" + authSecret}, "--jwt-audience", authAudience, "--", "--workdir", dir)
	for _, scopes := range []string{"boris:read", "boris:read boris:write", "boris:read boris:exec", "boris:read boris:write boris:exec"} {
		name := "gateway-" + strings.ReplaceAll(strings.ReplaceAll(scopes, "boris:", ""), " ", "-")
		t.Run(name, func(t *testing.T) {
			s := g.connect(authHMACToken(t, "golden", scopes))
			defer s.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res, err := s.ListTools(ctx, nil)
			if err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			data, err := json.MarshalIndent(res.Tools, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			compareGolden(t, filepath.Join("testdata", "tools", name+".json"), strings.ReplaceAll(string(data), dir, "$WORKDIR")+"\n")
		})
	}
}

// coreToolsList starts the built core with flags ($WORKDIR and
// $EXTENSIONS stand for its working directory and the demo extensions),
// lists its tools over stdio and returns the result's "tools" member,
// indented. The core answers that first tools/list before it registers
// its tools with the SDK (from the same definitions); it then lists them
// again after a call, which the SDK answers from the registered tools:
// both answers must be the same bytes.
func coreToolsList(t *testing.T, flags []string) string {
	t.Helper()
	dir := realTempDir(t)
	ext := extensionFixture(t, "demo")
	args := []string{"--workdir", dir, "--log-level", "error", "--sandbox", "off"}
	for _, f := range flags {
		args = append(args, strings.NewReplacer("$WORKDIR", dir, "$EXTENSIONS", ext).Replace(f))
	}
	cmd := exec.Command(borisBin, args...)
	cmd.Env = cleanEnv("HOME=" + dir)
	stdin, stdout := startPiped(t, cmd)
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	lines := rawLines(stdout)
	send := func(msgs ...string) {
		for _, msg := range msgs {
			if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
				t.Fatalf("write: %v", err)
			}
		}
	}
	results := map[int]json.RawMessage{}
	await := func(id int) {
		timeout := time.After(30 * time.Second)
		for results[id] == nil {
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatalf("core %v closed its stdout before answering request %d", flags, id)
				}
				var msg struct {
					ID     int             `json:"id"`
					Result json.RawMessage `json:"result"`
					Error  json.RawMessage `json:"error"`
				}
				if json.Unmarshal([]byte(line), &msg) == nil && msg.ID > 0 {
					if results[msg.ID] = msg.Result; msg.Result == nil {
						results[msg.ID] = msg.Error
					}
				}
			case <-timeout:
				t.Fatalf("core %v: no answer to request %d in 30 s", flags, id)
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"golden","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	await(2)
	// Requests are handled concurrently: the call goes once the first
	// list is answered, and registers the tools before it is answered.
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`)
	await(3)
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)
	await(4)
	if !bytes.Equal(results[2], results[4]) {
		t.Errorf("core %v: the first tools/list (before the registration)\n%s\nis not the SDK's after it\n%s", flags, results[2], results[4])
	}
	var res struct {
		Tools json.RawMessage `json:"tools"`
	}
	if json.Unmarshal(results[2], &res) != nil || res.Tools == nil {
		t.Fatalf("tools/list answered without tools: %s", results[2])
	}
	var out bytes.Buffer
	if err := json.Indent(&out, res.Tools, "", "  "); err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(out.String(), dir, "$WORKDIR") + "\n"
}

// compareGolden compares got with the golden file path, or rewrites the
// file with -update.
func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file: %v (run go test ./test/ -run %s -update to write it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("tools/list differs from %s (run with -update after an intended change):\n%s", path, lineDiff(string(want), got))
	}
}

// lineDiff names the first differing line of want and got, with a little
// context: enough to see which tool changed.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + wl + "\n  got:  " + gl
		}
	}
	return "(lengths differ)"
}
