// Package core provides boris, the Boris MCP server: every tool an agent uses
// (bash, view, str_replace, create_file), path scoping and shell logic,
// served over stdio with the go-sdk.
package core

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/checkpoint"
	"github.com/mjkoo/boris/core/extension"
	"github.com/mjkoo/boris/core/sandbox"
	"github.com/mjkoo/boris/core/scope"
	"github.com/mjkoo/boris/core/shell"
	"github.com/mjkoo/boris/core/toolkit"
	"github.com/mjkoo/boris/core/wire"
	"github.com/mjkoo/boris/core/workspace"
	"github.com/mjkoo/boris/internal/jsonscan"
	"github.com/mjkoo/boris/internal/procs"
	"github.com/mjkoo/boris/internal/reaper"
	"github.com/mjkoo/boris/internal/safefile"
)

// Version is the release version, stamped at build time with
// -ldflags "-X github.com/mjkoo/boris/core.Version=...".
var Version = "dev"

// boris holds what every tool handler shares: the configuration, the path
// policy and the shell with its tracked working directory.
type boris struct {
	cfg          *Config
	policy       *scope.Policy
	sandbox      *sandbox.Sandbox
	reaper       *reaper.Reaper   // nil where the process cannot be a subreaper
	spawner      *sandbox.Spawner // starts commands under the sandbox; nil without one
	spawnerReady chan struct{}    // closed once spawner is set (or failed to start)
	spawnerOnce  sync.Once        // starts it with the first command
	spawnerStart func()
	settleOnce   sync.Once // settle's one run
	shell        *shell.Shell
	workspaces   *workspace.Root    // --workspaces-root; nil when off
	roots        rootsState         // the client's MCP roots, when they decide the allowed directories
	cursors      *cursorSeal        // seals list cursors (cursors.go)
	extMu        sync.Mutex         // guards extTools, which reloads replace
	extTools     []*extension.Tool  // --extensions tools
	extSDK       string             // the directory MCP_SDK names
	extBase      string             // where calls get their files
	extRoot      *safefile.Dir      // extBase, open: calls' files are opened through it
	gitSpawner   *sandbox.Spawner   // starts checkpoint git, confined; nil until first used
	extDirs      extCallDirs        // call directories kept for reuse
	extOwnDir    string             // extBase when the core made it (no sandbox TMPDIR), removed at close
	extEnviron   []string           // the environment extension tools' variables come from
	extContent   *extContent        // --extensions resources, prompts and completions; nil without --extensions
	ckpt         *checkpoint.Store  // the shadow repository; nil when checkpoints are off
	ckptReady    chan struct{}      // closed once the starting state is recorded
	ckptQueue    chan ckptJob       // recordings for the recorder, in order
	ckptStop     context.CancelFunc // stops that first recording at close
	ckptStart    func()             // starts the recorder, once (startRecording)
	recording    gate               // recordings under way, waited for at close
	gaps         ckptGaps           // changes that could not be recorded
	taskRecs     taskRecordings     // background tasks whose checkpoint is not queued yet
	boardState   boardState         // the work-tracking board (--tasks-db), opened on first use
	log          *slog.Logger
	sdkLog       *slog.Logger // the SDK's own chatter: warnings and up unless debugging
}

// toolSpec is one tool Boris can register.
type toolSpec struct {
	name string
	add  func(*mcp.Server)
}

// specs lists every tool in registration order. It is the single place
// tools are wired in; tools/list order is the SDK's (sorted by name), so it
// is deterministic whatever the order here. With --anthropic-compat the
// three file tools become one editor tool, str_replace_editor or
// str_replace_based_edit_tool by version (SPEC §2.9).
func (b *boris) specs() []toolSpec {
	var specs []toolSpec
	if b.cfg.Toolset != "boris" {
		specs = append(specs, b.filesystemSpecs()...)
	}
	specs = append(specs, b.workspaceSpecs()...)
	specs = append(specs, b.extensionSpecs()...)
	if b.cfg.Toolset == "filesystem" {
		return specs
	}
	return append(specs, b.borisSpecs()...)
}

// borisSpecs are Boris's own tools (--toolset boris or all).
func (b *boris) borisSpecs() []toolSpec {
	specs := []toolSpec{
		{"bash", func(s *mcp.Server) { addTool(s, b, bashTool, b.bash) }},
		{"task_output", func(s *mcp.Server) { addTool(s, b, taskOutputTool, b.taskOutput) }},
		{"task_stop", func(s *mcp.Server) { addTool(s, b, taskStopTool, b.taskStop) }},
		b.grepSpec(),
		{"glob", func(s *mcp.Server) { addTool(s, b, globTool, b.glob) }},
	}
	specs = append(specs, b.checkpointSpecs()...)
	specs = append(specs, b.boardSpecs()...)
	if b.cfg.AnthropicCompat.Enabled() {
		return append(specs, toolSpec{b.editorVersion().name, func(s *mcp.Server) { addTool(s, b, b.editorTool(), b.editor) }})
	}
	specs = append(specs, toolSpec{"view", func(s *mcp.Server) { addTool(s, b, viewTool, b.view) }})
	if b.cfg.ReadOnly {
		return specs // --read-only: no writing tools at all
	}
	return append(specs,
		toolSpec{"str_replace", func(s *mcp.Server) { addTool(s, b, strReplaceTool, b.strReplace) }},
		toolSpec{"create_file", func(s *mcp.Server) { addTool(s, b, createFileTool, b.createFile) }},
	)
}

// enabledTools lists the tools a server with cfg registers, sorted.
func enabledTools(cfg *Config) []string {
	var names []string
	for _, name := range knownToolNames(cfg) {
		if !cfg.disabled(name) {
			names = append(names, name)
		}
	}
	return names
}

// knownToolNames lists the tool names --disable-tools accepts with cfg's
// schema choice.
func knownToolNames(cfg *Config) []string {
	var names []string
	for _, s := range (&boris{cfg: cfg}).specs() {
		names = append(names, s.name)
	}
	slices.Sort(names)
	return names
}

// newServer builds the MCP server with every enabled tool.
func (b *boris) newServer() *mcp.Server {
	opts := &mcp.ServerOptions{
		Instructions:            b.instructions(),
		Logger:                  b.sdkLog,
		Capabilities:            b.capabilities(),
		InitializedHandler:      b.onInitialized,
		RootsListChangedHandler: b.onRootsChanged,
	}
	b.extContentOptions(opts)
	s := mcp.NewServer(&mcp.Implementation{Name: "boris", Title: "Boris", Version: Version}, opts)
	if b.cursors == nil {
		b.cursors = newCursorSeal()
	}
	s.AddReceivingMiddleware(b.expectRoots, b.sealCursors, b.readUnlisted)
	s.AddReceivingMiddleware(wire.PlainResults) // added last: the outermost
	for _, spec := range b.specs() {
		if !b.cfg.disabled(spec.name) && (b.ckpt != nil || !isCheckpointTool(spec.name)) {
			spec.add(s)
		}
	}
	b.addExtensionContent(s) // resources, templates and prompts
	return s
}

// capabilities are the server's: tools, logging when extension tools can
// log, and resources, prompts and completions when extensions serve them.
func (b *boris) capabilities() *mcp.ServerCapabilities {
	c := &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}
	if len(b.cfg.Extensions) > 0 {
		// Extension tools log, and come and go as their directories change.
		c.Logging = &mcp.LoggingCapabilities{}
		c.Tools.ListChanged = true
	}
	b.extContentCapabilities(c) // resources, prompts, completions: only when extensions provide them
	return c
}

// instructions tells the agent where it is and how the tools behave
// (SPEC §2.11).
func (b *boris) instructions() string {
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
	bash := b.registered("bash")
	if bash {
		sb.WriteString("Relative paths resolve against the working directory, which a `cd` in bash changes for later calls. " + b.sandboxNote())
	} else {
		sb.WriteString("Relative paths resolve against the working directory. ")
	}
	sb.WriteString("Errors start with a stable code in brackets, e.g. [AMBIGUOUS_MATCH]; the message says what to do next.")
	if b.registeredLike("str_replace") {
		sb.WriteString(" View a file before editing it; str_replace needs old_str to match exactly once unless replace_all is set.")
	}
	if b.registered("history") {
		also := ""
		if bash {
			also = " (bash included, within the working tree)"
		}
		sb.WriteString(" Every change made through these tools" + also + " is recorded as a checkpoint: " +
			"history lists them, diff shows one, undo reverts one (and can itself be undone).")
	}
	if bash && b.registered("task_output") {
		sb.WriteString(" For long commands (builds, test suites, servers) use bash with run_in_background and read the output with task_output.")
	}
	return sb.String()
}

// registered reports whether the server registers the tool name: one of
// the toolset's, not disabled, and for history, diff and undo, with
// checkpoints on. The instructions describe only such tools.
func (b *boris) registered(name string) bool {
	if b.cfg.disabled(name) || (b.ckpt == nil && isCheckpointTool(name)) {
		return false
	}
	return slices.ContainsFunc(b.specs(), func(s toolSpec) bool { return s.name == name })
}

// registeredLike reports whether the server registers name or a tool
// whose name starts with name and "_" (str_replace_editor for
// str_replace).
func (b *boris) registeredLike(name string) bool {
	for _, s := range b.specs() {
		if (s.name == name || strings.HasPrefix(s.name, name+"_")) && b.registered(s.name) {
			return true
		}
	}
	return false
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
		if !filepath.IsAbs(e) || slices.ContainsFunc(near, func(dir string) bool { return within(literalPrefix(e), dir) }) {
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

// handlerFunc is a tool's logic: a result, or an error that becomes an
// isError result with its code (SPEC §2.2).
type handlerFunc[In any] func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, error)

// addTool registers a tool whose input schema is derived from In. Arguments
// are validated here rather than by the SDK so that malformed input gets the
// same "[INVALID_INPUT] ..." form as every other tool error. A tool that
// sets its InputSchema advertises that one instead (a narrower view of In's,
// such as a read-only command enum); arguments are still validated against
// In's. Advertised schemas state optional parameters as plain optional
// properties (plainOptional).
func addTool[In any](s *mcp.Server, b *boris, t *mcp.Tool, h handlerFunc[In]) {
	schema := mustSchema[In](t.Name)
	resolved, err := schema.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("resolve schema for tool %s: %v", t.Name, err))
	}
	check := sync.OnceValue(func() *wire.ArgCheck { return wire.NewArgCheck(schema) }) // on the tool's first call
	tool := *t
	switch in := tool.InputSchema.(type) {
	case nil:
		tool.InputSchema = plainOptional(schema)
	case *jsonschema.Schema:
		tool.InputSchema = plainOptional(in)
	}
	s.AddTool(&tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		defer procs.Busy()() // overlapping calls get every CPU
		b.startRecording()
		b.awaitRoots(ctx)
		in, err := decodeArgs[In](req.Params.Arguments, resolved, check())
		if err == nil {
			var res *mcp.CallToolResult
			if res, err = h(ctx, req, in); err == nil {
				toolkit.CapResult(res)
				b.sayGaps(res)
				return res, nil
			}
		}
		b.log.Debug("tool error", "tool", t.Name, "err", err)
		res := toolkit.ErrorResult(err)
		b.sayGaps(res)
		return res, nil
	})
}

// schemaTuner is implemented by parameter structs whose schema needs more
// than struct tags can say, such as an enum.
type schemaTuner interface {
	tuneSchema(*jsonschema.Schema)
}

// mustSchema derives In's input schema, tuned if In is a schemaTuner.
func mustSchema[In any](tool string) *jsonschema.Schema {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("schema for tool %s: %v", tool, err)) // a programming error
	}
	if tuner, ok := any(new(In)).(schemaTuner); ok {
		tuner.tuneSchema(schema)
	}
	return schema
}

// decodeArgs validates raw arguments against the tool's schema and decodes
// them. The decoder matches member names exactly, as the validator (and
// go-sdk's typed handlers) do: encoding/json would also read "PATH" into
// the field of "path", so arguments could be validated under one name and
// used under another. A member whose name differs from a property's only
// in case is refused outright, naming it: in a schema open to other members
// (the filesystem toolset's) it would otherwise be silently ignored.
func decodeArgs[In any](raw json.RawMessage, resolved *jsonschema.Resolved, check *wire.ArgCheck) (In, error) {
	var in In
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	// Arguments the scan vouches for are decoded once, not validated.
	if err := jsonscan.Unmarshal(raw, &in); err == nil && check.Accepts(raw) {
		return in, nil
	}
	in = *new(In)
	var instance any
	if err := json.Unmarshal(raw, &instance); err != nil {
		return in, toolkit.Fail(toolkit.InvalidInput, "arguments are not valid JSON: %v", err)
	}
	if member, property := caseVariant(resolved.Schema(), instance); member != "" {
		return in, toolkit.Fail(toolkit.InvalidInput, "invalid arguments: unknown argument %q (argument names are case-sensitive: did you mean %q?)", member, property)
	}
	if err := resolved.Validate(instance); err != nil {
		return in, toolkit.Fail(toolkit.InvalidInput, "invalid arguments: %s", describeInvalid(err, resolved.Schema()))
	}
	if err := jsonscan.Unmarshal(raw, &in); err != nil {
		return in, toolkit.Fail(toolkit.InvalidInput, "invalid arguments: %v", err)
	}
	return in, nil
}

// caseVariant finds, in a decoded instance of schema, a member that is not
// one of the properties its object names but differs from one of them only
// in case (strings.EqualFold), and returns its
// path (dotted, from the top) and the property's name; "" if there is
// none. Objects nested in properties and array items are searched too.
func caseVariant(schema *jsonschema.Schema, v any) (member, property string) {
	if schema == nil {
		return "", ""
	}
	switch v := v.(type) {
	case map[string]any:
		for _, name := range slices.Sorted(maps.Keys(v)) {
			if sub, ok := schema.Properties[name]; ok {
				if m, p := caseVariant(sub, v[name]); m != "" {
					return name + "." + m, p
				}
				continue
			}
			for known := range schema.Properties {
				if strings.EqualFold(name, known) {
					return name, known
				}
			}
		}
	case []any:
		for i, item := range v {
			if m, p := caseVariant(schema.Items, item); m != "" {
				return fmt.Sprintf("%d.%s", i, m), p
			}
		}
	}
	return "", ""
}

// ptr returns a pointer to v, for optional annotation fields.
func ptr[T any](v T) *T { return &v }
