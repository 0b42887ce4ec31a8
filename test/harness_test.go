// Package test holds Boris's end-to-end tests: they build the real binaries
// and drive them through real MCP clients.
package test

//lint:file-ignore SA1019 the tests speak to the core as 2025 clients do: roots are deprecated by 2026-07-28, not gone

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/internal/testbin"
)

// borisBin is the boris binary built once for the whole test run.
var borisBin string

func TestMain(m *testing.M) {
	testbin.Main(m, func(dir string) { borisBin = filepath.Join(dir, "boris") }, "boris", "boris-gateway")
}

// core is a running boris process with a connected go-sdk client.
type core struct {
	t       *testing.T
	cmd     *exec.Cmd
	client  *mcp.Client
	session *mcp.ClientSession
	stderr  *syncWriter
}

// coreOptions tune startCore.
type coreOptions struct {
	args     []string
	env      []string
	progress func(*mcp.ProgressNotificationClientRequest)
	roots    []*mcp.Root // offered by the client (roots capability) when not empty
	protocol string      // the protocol version to ask for; "" for the client's latest
	client   *mcp.Client // connect with this client instead of a plain one
}

// startCore spawns boris with args through mcp.CommandTransport and
// initializes a session. The process is closed at the end of the test.
func startCore(t *testing.T, args ...string) *core {
	t.Helper()
	return startCoreWith(t, coreOptions{args: args})
}

func startCoreWith(t *testing.T, o coreOptions) *core {
	t.Helper()
	cmd := exec.Command(borisBin, o.args...)
	cmd.Env = append(os.Environ(), o.env...)
	stderr := &syncWriter{b: &strings.Builder{}}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "boris-e2e", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			if o.progress != nil {
				o.progress(req)
			}
		},
	})
	if o.client != nil {
		client = o.client
	}
	client.AddRoots(o.roots...)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// A loaded host can take seconds to end a core; the SDK would signal
	// it after 5 s and Close would report that as an error.
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 30 * time.Second}, &mcp.ClientSessionOptions{ProtocolVersion: o.protocol})
	if err != nil {
		t.Fatalf("connect to boris %v: %v", o.args, err)
	}
	c := &core{t: t, cmd: cmd, client: client, session: session, stderr: stderr}
	t.Cleanup(func() { _ = session.Close() })
	return c
}

// call runs a tool and fails the test on a protocol error.
func (c *core) call(name string, args map[string]any) *mcp.CallToolResult {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		c.t.Fatalf("call %s %v: protocol error: %v", name, args, err)
	}
	return res
}

// ok runs a tool that must succeed and returns its text.
func (c *core) ok(name string, args map[string]any) string {
	c.t.Helper()
	res := c.call(name, args)
	if res.IsError {
		c.t.Fatalf("call %s %v: got error %q, want success", name, args, text(res))
	}
	return text(res)
}

// fails runs a tool that must fail with code and returns the error text.
func (c *core) fails(code, name string, args map[string]any) string {
	c.t.Helper()
	res := c.call(name, args)
	got := text(res)
	if !res.IsError || !strings.HasPrefix(got, "["+code+"] ") {
		c.t.Fatalf("call %s %v: got isError=%v %q, want an error starting with [%s]", name, args, res.IsError, got, code)
	}
	return got
}

// text joins a result's text content.
func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// writeFile writes a fixture file, creating parents.
func writeFile(t *testing.T, path string, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readFile returns a file's contents or fails the test.
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// realTempDir is t.TempDir with symlinks resolved, so paths in results
// compare equal.
func realTempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// progressLog collects the progress notifications a core sends.
type progressLog struct {
	mu  sync.Mutex
	got []*mcp.ProgressNotificationParams
}

func (l *progressLog) record(req *mcp.ProgressNotificationClientRequest) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, req.Params)
}

// all returns the notifications received so far.
func (l *progressLog) all() []*mcp.ProgressNotificationParams {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*mcp.ProgressNotificationParams(nil), l.got...)
}

// startCoreWithProgress starts a core whose progress notifications are logged.
func startCoreWithProgress(t *testing.T, args ...string) (*core, *progressLog) {
	t.Helper()
	log := &progressLog{}
	return startCoreWith(t, coreOptions{args: args, progress: log.record}), log
}

// startPiped starts cmd with pipes on its stdin and stdout, for tests that
// speak raw JSON-RPC rather than through an SDK client.
func startPiped(t *testing.T, cmd *exec.Cmd) (io.WriteCloser, io.ReadCloser) {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return stdin, stdout
}
