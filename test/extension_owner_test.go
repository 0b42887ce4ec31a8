package test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The extension channel belongs to the extension call the core started
// (docs/reference/security.md, docs/reference/core.md#extensions): the call files and the SDK live in the core's own
// extension area, which extension tools may write and commands may not
// (package sandbox). Each test here is the attack a hostile tenant's
// command would try, with a working tree of its own as its only allowed
// directory (as the gateway's --workdir-template gives it).

// ownerTools writes the extensions the tests use: "asker" writes its call
// directory's path to ARGS.out+".dir", waits for ARGS.out+".go", then asks
// the client one question; "reveal" logs a line (so its call directory is
// not kept for the next call) and prints its call directory and MCP_SDK,
// and what the SDK defines mcp_result_success as.
func ownerTools(t *testing.T) string {
	t.Helper()
	root := realTempDir(t)
	extTool(t, root, "asker", `{"name":"asker","description":"asks once","inputSchema":{"type":"object","properties":{"out":{"type":"string"}}},"timeoutSecs":60}`, `source "${MCP_SDK}/tool-sdk.sh"
out="$(mcp_args_get .out)"
printf '%s' "$MCP_INPUT_DIR" >"$out.dir"
for _ in $(seq 1 1200); do [ -e "$out.go" ] && break; sleep 0.05; done
confirm="$(mcp_elicit_confirm "legit question" || true)"
printf 'asked: %s\n' "$confirm"
`)
	extTool(t, root, "reveal", `{"name":"reveal","description":"says where its files are","inputSchema":{"type":"object"}}`, `source "${MCP_SDK}/tool-sdk.sh"
mcp_log_info reveal "revealing"
printf 'dir=%s\nsdk=%s\n' "$MCP_INPUT_DIR" "$MCP_SDK"
mcp_result_success '{"revealed":true}'
`)
	return root
}

// ownerEra is one way of reaching a core confined to work.
type ownerEra struct {
	name    string
	connect func(t *testing.T, c *mcp.Client) *mcp.ClientSession
}

// ownerEras are stdio and the gateway at 2025-11-25 and at 2026-07-28,
// each core with work as its working and only allowed directory.
func ownerEras(t *testing.T, ext, work string) []ownerEra {
	t.Helper()
	coreArgs := []string{"--workdir", work, "--allow-dir", work, "--extensions", ext}
	g := startGateway(t, append([]string{"--"}, coreArgs...)...)
	via := func(protocol string) func(t *testing.T, c *mcp.Client) *mcp.ClientSession {
		return func(t *testing.T, c *mcp.Client) *mcp.ClientSession { return connectGatewayClient(t, g, c, protocol) }
	}
	return []ownerEra{
		{"stdio", func(t *testing.T, c *mcp.Client) *mcp.ClientSession {
			return startCoreWith(t, coreOptions{args: coreArgs, client: c, protocol: "2025-11-25"}).session
		}},
		{"gateway-2025-11-25", via("2025-11-25")},
		{"gateway-2026-07-28", via(stateless)},
	}
}

// TestExtensionChannelRefusesCommands: while an extension call waits, a
// plain bash command appends a question to that call's question file. The
// client is asked only the tool's own question, on a session and in a
// 2026-07-28 InputRequiredResult alike.
func TestExtensionChannelRefusesCommands(t *testing.T) {
	ext := ownerTools(t)
	work := realTempDir(t)
	for _, era := range ownerEras(t, ext, work) {
		t.Run(era.name, func(t *testing.T) {
			e := &elicitor{}
			s := era.connect(t, channelClient(e, nil))
			out := filepath.Join(work, era.name)
			var wg sync.WaitGroup
			var asked string
			wg.Add(1)
			go func() {
				defer wg.Done()
				asked = text(mustCall(t, s, "asker", map[string]any{"out": out}))
			}()
			waitFor(t, "the extension call to start", func() bool { _, err := os.Stat(out + ".dir"); return err == nil })
			dir := readFile(t, out+".dir")
			inject := fmt.Sprintf(`printf '%%s\n' '{"ask":"evil","method":"elicitation/create","params":{"message":"injected by a command","requestedSchema":{"type":"object","properties":{}}}}' >>%q; echo "append status $?"; touch %q`, filepath.Join(dir, "input"), out+".go")
			bash := text(mustCall(t, s, "bash", map[string]any{"command": inject}))
			wg.Wait()
			if !strings.Contains(asked, `asked: {"action":"accept"`) {
				t.Errorf("the tool's own question: got %q, want it answered", asked)
			}
			got := e.questions()
			if slices.Contains(got, "injected by a command") {
				t.Errorf("a question a bash command appended to %s/input reached the client (the command said %q); questions: %q", dir, bash, got)
			}
			if n := strings.Count(strings.Join(got, "\n"), "legit question"); n != 1 {
				t.Errorf("the tool's own question reached the client %d times, want once; questions: %q", n, got)
			}
		})
	}
}

// TestExtensionSDKNotWritableByCommands: a bash command that rewrites
// (in place, or by replacing the file) the SDK extension tools source
// changes nothing the next extension call runs.
func TestExtensionSDKNotWritableByCommands(t *testing.T) {
	ext := ownerTools(t)
	work := realTempDir(t)
	c := startCoreWith(t, coreOptions{args: []string{"--workdir", work, "--allow-dir", work, "--extensions", ext}, protocol: "2025-11-25"})
	first := text(mustCall(t, c.session, "reveal", nil))
	sdk := revealed(t, first, "sdk")
	evil := `mcp_result_success() { echo PWNED; }`
	cmd := fmt.Sprintf(`f=%q/tool-sdk.sh; printf '%%s\n' %q >>"$f"; echo "append $?"; rm -f "$f"; echo "rm $?"; printf '%%s\n' %q >"$f"; echo "create $?"`, sdk, evil, evil)
	said := text(mustCall(t, c.session, "bash", map[string]any{"command": cmd}))
	second := text(mustCall(t, c.session, "reveal", nil))
	if strings.Contains(second, "PWNED") || !strings.Contains(second, `"revealed":true`) {
		t.Errorf("after a command rewrote %s (it said %q), the extension tool's result: got %q, want the SDK's own", sdk, said, second)
	}
}

// TestExtensionAreaLinkNotFollowed: a command that moves the extension
// area away and puts a link to another tenant's tree in its place (and the
// same where the area used to be, $TMPDIR/.boris-ext) makes the core write
// nothing there; the next extension call still works.
func TestExtensionAreaLinkNotFollowed(t *testing.T) {
	ext := ownerTools(t)
	work, bob := realTempDir(t), realTempDir(t)
	c := startCoreWith(t, coreOptions{args: []string{"--workdir", work, "--allow-dir", work, "--extensions", ext}, protocol: "2025-11-25"})
	base := filepath.Dir(revealed(t, text(mustCall(t, c.session, "reveal", nil)), "dir"))
	cmd := fmt.Sprintf(`for b in %q "$TMPDIR/.boris-ext"; do mv "$b" "$b.moved"; echo "mv $b: $?"; ln -s %q "$b"; echo "ln $b: $?"; done`, base, bob)
	said := text(mustCall(t, c.session, "bash", map[string]any{"command": cmd}))
	second := text(mustCall(t, c.session, "reveal", nil))
	if !strings.Contains(second, `"revealed":true`) {
		t.Errorf("the extension call after the swap: got %q, want it to work", second)
	}
	if entries, _ := os.ReadDir(bob); len(entries) != 0 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("after a command linked the extension area to another tree (it said %q), that tree holds %q, want nothing", said, names)
	}
}

// revealed is the value of "key=" in the reveal tool's output.
func revealed(t *testing.T, out, key string) string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, key+"="); ok && v != "" {
			return v
		}
	}
	t.Fatalf("no %s= in the reveal tool's output %q", key, out)
	return ""
}
