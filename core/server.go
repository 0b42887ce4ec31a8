// Package core provides boris, the Boris MCP server: every tool an agent uses
// (bash, view, str_replace, create_file), path scoping and shell logic,
// served over stdio with the go-sdk.
package core

//lint:file-ignore SA1019 roots are deprecated by the 2026-07-28 revision but still what 2025 clients send to scope a session (docs/reference/core.md#path-scoping)

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/checkpoint"
	"github.com/mjkoo/boris/core/lsp"
	"github.com/mjkoo/boris/core/sandbox"
	"github.com/mjkoo/boris/core/scope"
	"github.com/mjkoo/boris/core/seen"
	"github.com/mjkoo/boris/core/shell"
	"github.com/mjkoo/boris/core/toolkit"
	boristools "github.com/mjkoo/boris/core/tools/boris"
	"github.com/mjkoo/boris/core/tools/checkpoints"
	"github.com/mjkoo/boris/core/tools/diagnostics"
	"github.com/mjkoo/boris/core/tools/extensions"
	"github.com/mjkoo/boris/core/tools/filesystem"
	"github.com/mjkoo/boris/core/tools/tracking"
	"github.com/mjkoo/boris/core/tools/workspaces"
	"github.com/mjkoo/boris/core/wire"
	"github.com/mjkoo/boris/core/workspace"
	"github.com/mjkoo/boris/internal/procs"
	"github.com/mjkoo/boris/internal/reaper"
	"github.com/mjkoo/boris/internal/version"
)

// boris holds what every tool handler shares: the configuration, the path
// policy and the shell with its tracked working directory.
type boris struct {
	cfg          *Config
	policy       *scope.Policy
	seen         *seen.Tracker // how the session last saw each file, shared by the file tools
	sandbox      *sandbox.Sandbox
	reaper       *reaper.Reaper   // nil where the process cannot be a subreaper
	spawner      *sandbox.Spawner // starts commands under the sandbox; nil without one
	spawnerReady chan struct{}    // closed once spawner is set (or failed to start)
	spawnerOnce  sync.Once        // starts it once the client has initialized, or with the first command
	spawnerStart func()
	settleOnce   sync.Once // settle's one run
	// answered is closed once the first request that waited for the
	// tools (a client's tools/list, mostly) has been answered: settle's
	// forced collection waits for it rather than slowing it down.
	answered     chan struct{}
	answeredOnce sync.Once
	// written is closed once the first response after answered has been
	// written (the tools/list's, mostly), and needed once a request that
	// may use the spawner or the checkpoints (any but tools/list and the
	// handshake) has come: their start waits for either, so that it does
	// not compete with the client's first tools/list.
	written       chan struct{}
	writtenOnce   sync.Once
	needed        chan struct{}
	neededOnce    sync.Once
	shell         *shell.Shell
	workspaces    *workspace.Paths            // resolves and commits the filesystem tools' paths; its Root is --workspaces-root, nil when off
	roots         rootsState                  // the client's MCP roots, when they decide the allowed directories
	cursors       *cursorSeal                 // seals list cursors (cursors.go)
	ext           *extensions.Set             // --extensions; nil without
	gitSpawner    *idleSpawner                // starts checkpoint git, confined, where the session's spawner cannot; nil without a sandbox
	gitTree       string                      // the tree whose checkpoint git the session's spawner starts (gitDomain); "" for none
	wsGit         *workspaceGit               // runs workspace git, confined; nil without a sandbox
	rec           *checkpoint.Recorder        // records checkpoints; nil when they are off
	diag          *lsp.Manager                // the language servers that check edits; nil with --diagnostics off
	registerTools func()                      // registers the tools on the server, once (newServer)
	registered    atomic.Bool                 // set once registerTools has registered them
	firstList     func() *mcp.ListToolsResult // tools/list's answer before registration (listEarly); nil with extension tools
	prestart      func()                      // starts, in the background, what the first calls would wait for (newServer)
	started       func()                      // logs how boris started, once; nil when not served by Main
	board         *tracking.Board             // the work-tracking board (--tasks-db), opened on first use
	log           *slog.Logger
	sdkLog        *slog.Logger // the SDK's own chatter: warnings and up unless debugging
}

// toolset is one toolset as the server wires it in.
type toolset struct {
	id toolkit.ID
	// under is the --toolset value that selects it besides all (the
	// toolset it goes with); "" when every value does.
	under toolkit.ID
	tools func() []toolkit.Tool // its tools under the configuration
	// instructions is its line in the server's instructions, given the
	// tools registered; nil when it has none.
	instructions func(toolkit.Registered) string
}

// toolsets are the toolsets boris has, in registration order: the single
// place toolsets are wired in. tools/list order is the SDK's (sorted by
// name), so it is deterministic whatever the order here; the order of
// the instructions' lines is this one.
func (b *boris) toolsets() []toolset {
	return []toolset{
		{id: filesystem.ID, under: filesystem.ID, tools: b.filesystemTools},
		{id: workspaces.ID, under: filesystem.ID, tools: b.workspaceTools},
		{id: extensions.ID, tools: b.ext.Tools},
		{id: boristools.ID, under: boristools.ID, tools: b.borisTools, instructions: boristools.Instructions},
		{id: checkpoints.ID, under: boristools.ID, tools: b.checkpointTools, instructions: checkpoints.Instructions},
		{id: diagnostics.ID, under: boristools.ID, tools: b.diagnosticsTools},
		{id: tracking.ID, under: boristools.ID, tools: func() []toolkit.Tool { return tracking.Tools(b.board) }},
	}
}

// offered lists every tool the configuration offers: those of each
// toolset --toolset selects. With --anthropic-compat the three file tools
// become one editor tool, str_replace_editor or str_replace_based_edit_tool
// by version (docs/reference/tools.md#the-anthropic-compatible-editor).
// What the configuration leaves out is filtered by tools.
func (b *boris) offered() []toolkit.Tool {
	var tools []toolkit.Tool
	for _, ts := range b.toolsets() {
		if b.cfg.selects(ts.under) {
			tools = append(tools, ts.tools()...)
		}
	}
	return tools
}

// filesystemTools are server-filesystem's tools (--toolset filesystem or
// all).
func (b *boris) filesystemTools() []toolkit.Tool {
	return filesystem.Tools(b, filesystem.Options{MaxFileSize: b.cfg.MaxFileSize, Workspaces: b.cfg.WorkspacesRoot != "", Seen: b.seen})
}

// borisTools are Boris's own tools (--toolset boris or all).
func (b *boris) borisTools() []toolkit.Tool {
	c := b.cfg
	return boristools.Tools(b, boristools.Options{
		MaxFileSize: c.MaxFileSize, ReadOnly: c.ReadOnly, AnthropicCompat: c.AnthropicCompat, Timeout: c.Timeout,
		BackgroundTaskTimeout: c.BackgroundTaskTimeout, BackgroundTaskLimit: c.BackgroundTaskLimit, Log: b.log,
		Seen: b.seen,
	})
}

// tools lists the tools the server registers: those offered, less what
// the configuration leaves out (leavesOut) and, with checkpoints off or
// unavailable, the checkpoint tools.
func (b *boris) tools() []toolkit.Tool {
	return slices.DeleteFunc(b.offered(), func(t toolkit.Tool) bool {
		return b.cfg.leavesOut(t) || (t.Toolset == checkpoints.ID && b.rec == nil)
	})
}

// leavesOut reports whether the configuration leaves out a tool offered:
// --read-only every writing tool, a disabled bash every tool that runs
// commands, --disable-tools the tools it names.
func (c *Config) leavesOut(t toolkit.Tool) bool {
	return (c.ReadOnly && t.Writes) || (t.Exec && c.disabled(boristools.Bash)) || c.disabled(t.Name)
}

// enabledTools lists the tools a server with cfg registers but for
// extension tools, sorted: what --check reports, checkpoint tools
// included (--check decides itself whether checkpoints are available).
func enabledTools(cfg *Config) []string {
	return toolNames(cfg, cfg.leavesOut)
}

// knownToolNames lists the tool names --disable-tools accepts with cfg's
// schema choice.
func knownToolNames(cfg *Config) []string {
	return toolNames(cfg, func(t toolkit.Tool) bool { return cfg.ReadOnly && t.Writes })
}

// toolNames lists the names of the tools cfg offers, sorted, less those
// out reports.
func toolNames(cfg *Config, out func(toolkit.Tool) bool) []string {
	var names []string
	for _, t := range (&boris{cfg: cfg}).offered() {
		if !out(t) {
			names = append(names, t.Name)
		}
	}
	slices.Sort(names)
	return names
}

// newServer builds the MCP server with every enabled tool. The tools are
// registered (their generated definitions handed to the SDK, which
// decodes each schema once more) once the client's first tools/list is
// answered and written, or with the first request that needs them
// (prepareSession, awaitTools): that first tools/list is answered from the
// same definitions without the SDK (listEarly), so neither it nor the
// handshake waits for or competes with the registration, which announces
// nothing (without extensions the server declares no tools.listChanged).
// With --extensions they are registered at once, before serving.
func (b *boris) newServer() *mcp.Server {
	tools := b.tools()
	opts := &mcp.ServerOptions{
		Instructions:            b.instructions(tools),
		Logger:                  b.sdkLog,
		Capabilities:            b.capabilities(),
		InitializedHandler:      b.onInitialized,
		RootsListChangedHandler: b.onRootsChanged,
	}
	b.ext.ServerOptions(opts)
	s := mcp.NewServer(&mcp.Implementation{Name: "boris", Title: "Boris", Version: version.Version}, opts)
	if b.cursors == nil {
		b.cursors = newCursorSeal()
	}
	s.AddReceivingMiddleware(b.declaredOnly, b.awaitTools, b.expectRoots, b.sealCursors, b.ext.ReadUnlisted, b.listEarly)
	s.AddReceivingMiddleware(wire.PlainResults) // added last: the outermost
	b.registerTools = sync.OnceFunc(func() {
		for _, t := range tools {
			t.Register(s, b.around)
		}
		b.registered.Store(true)
	})
	b.prestart = func() { b.prestartSpawner(tools) }
	if b.ext != nil {
		b.registerTools()
	} else {
		b.firstList = func() *mcp.ListToolsResult { return listed(tools) } // made anew for each answer: no result is shared
	}
	b.ext.AddContent(s) // resources, templates and prompts
	return s
}

// listed is tools/list's answer for tools, as the SDK gives it once they
// are registered: sorted by name, the cache hints normalized (a public
// answer, stale at once), a single page; nil where the SDK would answer
// otherwise (a tool only its registration defines, more than a page).
// TestFirstListBeforeRegistration and TestToolsGolden check it against
// the SDK's own answer.
func listed(tools []toolkit.Tool) *mcp.ListToolsResult {
	if len(tools) > mcp.DefaultPageSize {
		return nil
	}
	res := &mcp.ListToolsResult{Cacheable: mcp.Cacheable{CacheScope: "public"}, Tools: []*mcp.Tool{}}
	for _, t := range tools {
		def := t.Definition()
		if def == nil {
			return nil
		}
		res.Tools = append(res.Tools, def)
	}
	slices.SortFunc(res.Tools, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	return res
}

// listEarly answers a first page of tools/list from the tools' definitions
// while they are not registered yet; any other request, and every one
// after the registration, is the SDK's. It is the innermost middleware:
// what the others do to tools/list is done to its answer too.
func (b *boris) listEarly(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/list" {
			return next(ctx, method, req)
		}
		if p, _ := req.GetParams().(*mcp.ListToolsParams); !b.registered.Load() && b.firstList != nil && (p == nil || p.Cursor == "") {
			if res := b.firstList(); res != nil {
				return res, nil
			}
		}
		b.registerTools()
		return next(ctx, method, req)
	}
}

// awaitTools holds every request but the handshake's (initialize, or
// server/discover for 2026-07-28 clients), ping and notifications until
// the tools are registered. Once the client has initialized (its
// notification arrives after initialize is answered, so the answer is not
// kept waiting by it), or the handshake is answered for a client that
// sends none, it prepares the session in the background (prepareSession).
func (b *boris) awaitTools(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch {
		case method == "initialize":
		case method == "server/discover":
			res, err := next(ctx, method, req)
			b.prepareSession()
			return res, err
		case method == "notifications/initialized":
			b.prepareSession()
		case method != "ping" && !strings.HasPrefix(method, "notifications/"):
			b.prepareSession() // a client that never said it initialized still settles
			if method != "tools/list" {
				b.neededOnce.Do(func() { close(b.needed) })
				b.registerTools() // tools/list registers them unless it can do without (listEarly)
			}
			defer b.answeredOnce.Do(func() { close(b.answered) })
		}
		return next(ctx, method, req)
	}
}

// settleDelay is how long settle waits at most for the first request
// that needed the tools to be answered (a client that sends none).
const settleDelay = time.Second

// settleAfterAnswer is how long settle waits after that answer, for it to
// be written.
const settleAfterAnswer = 100 * time.Millisecond

// prestartDelay is how long the tools' registration and the spawner's and
// the checkpoints' start wait at most for the client's first tools/list to
// be answered and written (or another request to come).
const prestartDelay = 50 * time.Millisecond

// noteResponse is called once each response is written: the first after
// answered closes written.
func (b *boris) noteResponse() {
	select {
	case <-b.answered:
		b.writtenOnce.Do(func() { close(b.written) })
	default:
	}
}

// prepareSession says that boris started, then, in the background and
// once, waits for the client's first tools/list to be written, registers
// the tools, starts the session's spawner and the checkpoints, and
// settles (the start-up's garbage goes):
// what a session needs before its first calls is done before they come,
// never inside them.
func (b *boris) prepareSession() {
	b.settleOnce.Do(func() {
		go func() {
			if b.started != nil {
				b.started()
			}
			// The tools' registration, the spawner's and the checkpoints'
			// processes would compete with the client's first request
			// (tools/list) and with the client's reading of its answer
			// on a small host: they start once it is written, at once
			// for a request that may need them (which registers the
			// tools itself, and a command starts the spawner itself, if
			// it comes first).
			select {
			case <-b.written:
			case <-b.needed:
			case <-time.After(prestartDelay):
			}
			b.registerTools()
			if b.prestart != nil {
				b.prestart()
			}
			b.rec.Start() // the starting checkpoint, in the background: no call waits for it
			select {
			case <-b.answered:
				// The answer is written after its handler returns: let
				// it go out before the forced collection competes.
				time.Sleep(settleAfterAnswer)
			case <-time.After(settleDelay):
			}
			b.settle()
		}()
	})
}

// capabilities are the server's: tools, logging when extension tools can
// log, and resources, prompts and completions when extensions serve them.
func (b *boris) capabilities() *mcp.ServerCapabilities {
	c := &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}
	b.ext.Capabilities(c) // logging, resources, prompts, completions: only when extensions provide them
	return c
}

// instructions tells the agent where it is and how the tools behave
// (docs/reference/core.md#protocol-behaviour), describing only the tools registered.
func (b *boris) instructions(tools []toolkit.Tool) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Boris gives you a coding workstation. Working directory: %s\n", b.shell.Dir())
	if allowed := b.policy.Allowed(); len(allowed) > 0 {
		fmt.Fprintf(&sb, "File tools may only touch: %s.\n", strings.Join(allowed, ", "))
	} else {
		sb.WriteString("File tools may touch any path.\n")
	}
	if b.cfg.ReadOnly {
		sb.WriteString("This server is read-only: files can be viewed and searched, not changed.\n")
	}
	switch shown, others := b.deniedForAgent(); {
	case len(shown) > 0 && others:
		fmt.Fprintf(&sb, "Always refused: %s, and some paths outside the working directory.\n", strings.Join(shown, ", "))
	case len(shown) > 0:
		fmt.Fprintf(&sb, "Always refused: %s.\n", strings.Join(shown, ", "))
	case others:
		sb.WriteString("Always refused: some paths outside the working directory.\n")
	}
	registered := toolkit.Registered(tools)
	if registered.Has(boristools.Bash) {
		sb.WriteString("Relative paths resolve against the working directory, which a `cd` in bash changes for later calls. " + b.sandboxNote())
	} else {
		sb.WriteString("Relative paths resolve against the working directory. ")
	}
	sb.WriteString("Errors start with a stable code in brackets, e.g. [AMBIGUOUS_MATCH]; the message says what to do next.")
	for _, ts := range b.toolsets() {
		if ts.instructions != nil && registered.Offers(ts.id) {
			sb.WriteString(ts.instructions(registered))
		}
	}
	return sb.String()
}

// deniedForAgent splits the deny entries into those the instructions
// name, patterns such as **/.env and paths within the working directory
// or the allowed directories, and the rest, which lie elsewhere: what a
// gateway denies to keep its own state and secrets from its cores
// (state directory, token files). Those are summed up, not named: where
// the gateway keeps them is none of the agent's business.
func (b *boris) deniedForAgent() (shown []string, others bool) {
	near := append([]string{b.shell.Dir()}, b.policy.Allowed()...)
	for _, e := range b.policy.Denied() {
		if !filepath.IsAbs(e) || slices.ContainsFunc(near, func(dir string) bool { return toolkit.Within(literalPrefix(e), dir) }) {
			shown = append(shown, e)
		} else {
			others = true
		}
	}
	return shown, others
}

// literalPrefix is the directory part of pattern before its first glob
// metacharacter: the whole of a plain path.
func literalPrefix(pattern string) string {
	i := strings.IndexAny(pattern, "*?[{\\")
	if i < 0 {
		return filepath.Clean(pattern)
	}
	return filepath.Dir(pattern[:i] + "x")
}

// sandboxNote tells the agent how far its commands reach.
func (b *boris) sandboxNote() string {
	switch {
	case b.sandbox == nil || !b.sandbox.Enforced():
		return "Commands run by bash are not confined by the file scoping. "
	case len(b.policy.Allowed()) == 0:
		return "Commands run by bash cannot signal or inspect processes they did not start. "
	}
	return "Commands run by bash are confined by the kernel to the same directories (plus system directories to read and a private $TMPDIR), " +
		"and cannot signal or inspect processes they did not start. "
}

// around is what every call of a Boris tool goes through: the CPUs of the
// machine (procs.Busy), the recorder started, the client's roots awaited,
// the diagnostics of what it wrote (aroundDiagnostics), and the changes
// that could not be recorded said in its result.
func (b *boris) around(ctx context.Context, tool string, run func(context.Context) *mcp.CallToolResult) *mcp.CallToolResult {
	defer procs.Busy()() // overlapping calls get every CPU
	b.rec.Start()
	b.awaitRoots(ctx)
	res := b.aroundDiagnostics(ctx, run)
	if tc, ok := firstContent(res).(*mcp.TextContent); ok && res.IsError {
		b.log.Debug("tool error", "tool", tool, "err", tc.Text)
	}
	b.sayGaps(res)
	return res
}

// firstContent is res's first content block, or nil.
func firstContent(res *mcp.CallToolResult) mcp.Content {
	if len(res.Content) == 0 {
		return nil
	}
	return res.Content[0]
}
