package extensions

import (
	"context"
	"log/slog"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit"
	"github.com/mjkoo/boris/core/toolkit/tooltest"
)

// ext is a session's extensions loaded from one directory, and the
// server serving them as the core serves them.
type ext struct {
	b    *Set
	d    *tooltest.Deps
	s    *mcp.Server
	root string // the extension directory
}

// tool is an extension tool's files under tools/NAME: its metadata and
// an executable tool.sh running body with bash.
func tool(name, meta, body string) map[string]string {
	return map[string]string{
		"tools/" + name + "/tool.meta.json": meta,
		"tools/" + name + "/tool.sh":        "#!/bin/bash\n" + body,
	}
}

// merge is the union of file sets.
func merge(sets ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, s := range sets {
		for k, v := range s {
			out[k] = v
		}
	}
	return out
}

// loadExt lays out files (testbin.Tree: "#!" makes an executable) in an
// extension directory and loads it as a core does, with the options
// change makes, working in a directory of the test's own; the server
// registers its tools and content and has the core's capabilities.
func loadExt(t *testing.T, files map[string]string, change func(*Options)) *ext {
	t.Helper()
	e := &ext{root: realTemp(t), d: tooltest.New(t)}
	put(t, e.root, files)
	opt := Options{
		Dirs: []string{e.root}, MaxFileSize: 1 << 20, RunsCommands: true, Environ: os.Environ(),
		Builtin: func(name string) bool { return name == "view" },
		Keep:    func(toolkit.Tool) bool { return true },
		Around: func(ctx context.Context, _ string, run func(context.Context) *mcp.CallToolResult) *mcp.CallToolResult {
			return run(ctx)
		},
		Log: slog.New(slog.DiscardHandler),
	}
	if change != nil {
		change(&opt)
	}
	b, err := Load(e.d, opt)
	if err != nil {
		t.Fatalf("load the extensions: %v", err)
	}
	t.Cleanup(b.Close)
	e.b = b
	caps := &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}
	b.Capabilities(caps)
	sopt := &mcp.ServerOptions{Capabilities: caps}
	b.ServerOptions(sopt)
	e.s = mcp.NewServer(&mcp.Implementation{Name: "extensions-test"}, sopt)
	for _, t := range b.Tools() {
		t.Register(e.s, opt.Around)
	}
	b.AddContent(e.s)
	e.s.AddReceivingMiddleware(b.ReadUnlisted)
	return e
}

// connect connects a client made with copt, speaking what sopt says (nil:
// the newest revision).
func (e *ext) connect(t *testing.T, copt *mcp.ClientOptions, sopt *mcp.ClientSessionOptions) *mcp.ClientSession {
	t.Helper()
	return tooltest.Serve(t, e.s, copt, sopt)
}

// runner calls steps through a new client of the newest revision, $DIR
// being the extension directory.
func (e *ext) runner(t *testing.T) tooltest.Runner {
	return tooltest.Runner{Client: e.connect(t, nil, nil), Dir: e.root}
}
