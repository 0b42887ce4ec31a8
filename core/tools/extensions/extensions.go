// Package extensions is the extension toolset (docs/reference/core.md#extensions): tools, and the
// resources, prompts and completions they offer, from --extensions
// directories laid out as mcp-bash-framework projects, reloaded as the
// directories change. It imports the shared kit, never another toolset or
// the core: what it needs of the core comes through Deps and Options.
package extensions

//lint:file-ignore SA1019 logging is deprecated by the 2026-07-28 revision but is how extension tools' logs reach 2025 clients (docs/reference/core.md#extensions)

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/checkpoint"
	"github.com/mjkoo/boris/core/corecheck"
	"github.com/mjkoo/boris/core/extension"
	"github.com/mjkoo/boris/core/shell"
	"github.com/mjkoo/boris/core/toolkit"
	"github.com/mjkoo/boris/internal/flagenv"
	"github.com/mjkoo/boris/internal/procs"
	"github.com/mjkoo/boris/internal/safefile"
)

// Tools from --extensions directories, laid out as
// mcp-bash-framework projects. Each call runs the tool's executable as a
// bash command runs (process group, sandbox, timeout, cancellation, kill
// on exit, capped output) with the arguments and a few documented
// variables in its environment; its stdout is the result, its progress
// and logs come back through files the SDK appends to.

// extDefaultTimeout is a tool's timeout when its metadata gives none (the
// framework's default).
const extDefaultTimeout = 30 * time.Second

// extArgsInline is the largest arguments object passed in the
// environment; larger ones go in a file (MCP_TOOL_ARGS_FILE).
const extArgsInline = 64 << 10

// extPoll is how often a running tool's progress and log files are read.
const extPoll = 100 * time.Millisecond

// extMaxLogs bounds the log messages one call forwards.
const extMaxLogs = 1000

// extReloadEvery is how often the extension directories are checked for
// added, changed or removed tools.
const extReloadEvery = 2 * time.Second

// Deps is what extension tools need of the core: the files they act on,
// the shell that runs them, the checkpoint recorder (nil when off), the
// client's roots, and a way to say that the lists a client pages through
// changed.
type Deps interface {
	toolkit.Files
	Shell() *shell.Shell
	Recorder() *checkpoint.Recorder
	AwaitRoots(ctx context.Context)
	ListsChanged()
}

// Options are the configuration extension tools follow.
type Options struct {
	Dirs         []string     // --extensions
	MaxFileSize  flagenv.Size // --max-file-size: resources read
	RunsCommands bool         // not --read-only, bash not disabled: completions may run
	TempDir      string       // the session's private TMPDIR, "" without the sandbox
	// PrivateDir is where the SDK and the calls' files go: a directory
	// commands can neither write nor read (the sandbox's ExtDir), "" when
	// there is none (then one is made in the system's temporary directory).
	PrivateDir string
	Environ    []string // the environment the tools' variables come from
	Builtin    func(name string) bool
	// Keep reports whether a reloaded tool is registered (the
	// configuration may leave it out); Around is what its calls go through.
	Keep   func(toolkit.Tool) bool
	Around toolkit.Around
	Log    *slog.Logger
}

// Set is the extensions of a session: their tools, SDK, call files and
// content. A nil *Set is no --extensions.
type Set struct {
	d       Deps
	opt     Options
	mu      sync.Mutex // guards tools, which reloads replace
	tools   []*extension.Tool
	sdk     string        // the directory MCP_SDK names
	base    string        // where calls get their files
	root    *safefile.Dir // base, open: calls' directories are made, opened and removed through it
	dirs    extCallDirs   // call directories kept for reuse
	ownDir  string        // base when the Set made it (no sandbox TMPDIR), removed at close
	environ []string      // the environment extension tools' variables come from
	content *extContent   // resources, prompts and completions
	state   *stateKey     // signs the requestStates of 2026-07-28 calls that ask the client
	// loaded is the directories' fingerprint taken before they were
	// loaded: Watch reloads once it changes, however late it starts.
	loaded string
}

// Load reads opt.Dirs and writes out the SDK; nil without any. Entries
// that cannot be used are skipped with a log line each. A Set that loaded
// is closed with Close.
func Load(d Deps, opt Options) (_ *Set, err error) {
	if len(opt.Dirs) == 0 {
		return nil, nil
	}
	b := &Set{d: d, opt: opt, state: newStateKey(), loaded: extension.Fingerprint(opt.Dirs)}
	defer func() {
		if err != nil {
			b.Close()
		}
	}()
	if err := b.load(); err != nil {
		return nil, err
	}
	if err := b.loadExtensionContent(); err != nil {
		return nil, err
	}
	return b, nil
}

// load reads the tools and writes out the SDK.
func (b *Set) load() error {
	tools, skipped, err := extension.Load(b.opt.Dirs, b.opt.Builtin)
	if err != nil {
		return &flagenv.UsageError{Msg: fmt.Sprintf("invalid --extensions: %v", err)}
	}
	extension.Log(b.opt.Log, skipped)
	// The SDK and the calls' files live in a directory of the core's own
	// (the sandbox's, which commands can neither write nor read, see
	// package sandbox), refused to the file tools too (a principal
	// without bash must not rewrite the SDK every extension tool sources),
	// and opened by the core through a descriptor, never by a path a
	// command could redirect.
	base := b.opt.PrivateDir
	if base == "" {
		if base, err = os.MkdirTemp("", "boris-ext-"); err != nil {
			return fmt.Errorf("extensions: %w", err)
		}
		b.ownDir = base
	}
	if err := b.d.Policy().Protect("the files of Boris's extension runs, never open to its tools", base); err != nil {
		return fmt.Errorf("extensions: %w", err)
	}
	if b.root, err = safefile.OpenDir(base, "", false, 0); err != nil {
		return fmt.Errorf("extensions: %w", err)
	}
	sdk, err := b.root.Sub("mcp-sdk", true, 0o755)
	if err != nil {
		return fmt.Errorf("extensions: %w", err)
	}
	defer sdk.Close()
	if err := extension.WriteSDKIn(sdk); err != nil {
		return fmt.Errorf("extensions: %w", err)
	}
	b.sdk = sdk.Path()
	b.tools, b.base, b.environ = tools, base, b.opt.Environ
	b.opt.Log.Info("extensions loaded", "tools", len(tools), "skipped", len(skipped))
	return nil
}

// ID names the extension toolset.
const ID toolkit.ID = "extensions"

// Tools are the extension tools. They run programs, so they go
// with bash: --disable-tools bash (a token without boris:exec) and
// --read-only leave them out.
func (b *Set) Tools() []toolkit.Tool {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	tools := b.tools
	b.mu.Unlock()
	var out []toolkit.Tool
	for _, t := range tools {
		out = append(out, toolkit.Raw(t.Name, func(s *mcp.Server) { b.addExtensionTool(s, t) }).Writing().Running())
	}
	return toolkit.Set(ID, out...)
}

// addExtensionTool registers t.
func (b *Set) addExtensionTool(s *mcp.Server, t *extension.Tool) {
	resolved, err := t.Input.Resolve(nil)
	if err != nil {
		b.opt.Log.Warn("extension skipped", "file", t.Meta, "reason", err)
		return
	}
	var out interface {
		Validate(any) error
	}
	if t.Output != nil {
		if r, err := t.Output.Resolve(nil); err == nil {
			out = r
		}
	}
	tool := &mcp.Tool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.Input, Annotations: t.Annotations}
	if t.Output != nil {
		tool.OutputSchema = t.Output // never a typed nil: the SDK refuses that
	}
	s.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		defer procs.Busy()() // overlapping calls get every CPU
		b.d.AwaitRoots(ctx)
		args := map[string]any{}
		if raw := req.Params.Arguments; len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &args); err != nil {
				return toolkit.ErrorResult(toolkit.Fail(toolkit.InvalidInput, "arguments must be a JSON object: %v", err)), nil
			}
		}
		if err := resolved.Validate(args); err != nil {
			return toolkit.ErrorResult(toolkit.Fail(toolkit.InvalidInput, "%v", err)), nil
		}
		b.d.Recorder().BeforeCommand(ctx, "extension tool "+t.Name)
		res, err := b.runExtension(ctx, req, t, args)
		b.d.Recorder().Record(t.Name, "extension tool "+t.Name)
		if err != nil || res.IsError || out == nil || res.InputRequests != nil {
			return res, err
		}
		if res.StructuredContent == nil {
			return toolkit.ErrorResult(toolkit.Fail(toolkit.ExecError, "extension tool %s declares an outputSchema but returned no structured result (print a result object with structuredContent, e.g. with mcp_result_success)", t.Name)), nil
		}
		var v any
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			_ = json.Unmarshal(b, &v)
		}
		if err := out.Validate(v); err != nil {
			return toolkit.ErrorResult(toolkit.Fail(toolkit.ExecError, "extension tool %s returned a result that does not match its outputSchema: %v", t.Name, err)), nil
		}
		return res, nil
	})
}

// extCall is one running extension tool's files: paths for the tool,
// and the directory open for the core, which reads and writes there only
// through it, following no link (the tool, and what it starts, can write
// the directory; where the sandbox is off, so can any command).
type extCall struct {
	dir                             string
	root                            *safefile.Dir
	progress, logs, cancel, errFile string
	input                           *inputChannel
}

// runExtension runs t with args and turns what it did into a result: an
// InputRequiredResult when, on a 2026-07-28 request, it waits for answers
// its client has yet to give (see inputChannel).
func (b *Set) runExtension(ctx context.Context, req *mcp.CallToolRequest, t *extension.Tool, args map[string]any) (*mcp.CallToolResult, error) {
	argsJSON, err := json.Marshal(args)
	if err != nil {
		return toolkit.ErrorResult(toolkit.Fail(toolkit.InvalidInput, "arguments: %v", err)), nil
	}
	name, err := b.dirs.get(b.root)
	if err != nil {
		return toolkit.ErrorResult(toolkit.Fail(toolkit.ExecError, "could not prepare the call: %v", err)), nil
	}
	defer b.dirs.put(b.root, name)
	dir := filepath.Join(b.base, name)
	root, err := b.root.Sub(name, false, 0)
	if err != nil {
		return toolkit.ErrorResult(toolkit.Fail(toolkit.ExecError, "could not prepare the call: %v", err)), nil
	}
	defer root.Close()
	c := &extCall{dir: dir, root: root, progress: filepath.Join(dir, extCallFiles[0]), logs: filepath.Join(dir, extCallFiles[1]),
		cancel: filepath.Join(dir, "cancelled"), errFile: filepath.Join(dir, "error")}
	// The questions the tool sends a session's client end with the run;
	// a 2026-07-28 round ends the run when the tool waits for an answer.
	askCtx, endAsks := context.WithCancel(ctx)
	defer endAsks()
	runCtx, endRun := context.WithCancel(ctx)
	defer endRun()
	in, err := newInputChannel(askCtx, req, root, b.state, argsJSON)
	if err != nil {
		return nil, err
	}
	in.stop = endRun
	c.input = in
	env, err := b.extEnv(req, t, args, argsJSON, c)
	if err != nil {
		return toolkit.ErrorResult(toolkit.Fail(toolkit.ExecError, "could not prepare the call: %v", err)), nil
	}
	timeout := extDefaultTimeout
	if t.Timeout > 0 {
		timeout = time.Duration(t.Timeout) * time.Second
	}
	fwd := newExtForwarder(ctx, req, c)
	stop := fwd.start()
	res, err := b.d.Shell().Exec(runCtx, shell.Program{Argv: extArgv(t.Exec, env), Dir: t.Root, Env: env, Extension: true}, shell.Options{
		Timeout: timeout,
		OnStop: func() {
			if f, err := c.root.OpenFile("cancelled", os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				f.Close()
			}
		},
	})
	stop()
	endAsks()
	in.close()
	if err != nil {
		return toolkit.ErrorResult(toolkit.Fail(toolkit.ExecError, "could not run extension tool %s: %v", t.Name, err)), nil
	}
	if ctx.Err() == nil {
		if r, err := in.result(argsJSON); r != nil || err != nil {
			return r, err
		}
	}
	return extResult(t, res, c, timeout)
}

// extEnv is a tool's environment: a clean one (PATH, HOME, locale, the
// session's TMPDIR) plus the variables of the SDK's contract.
func (b *Set) extEnv(req *mcp.CallToolRequest, t *extension.Tool, args map[string]any, argsJSON []byte, c *extCall) ([]string, error) {
	env := b.extCleanEnv()
	metaJSON := []byte("{}")
	if m := req.Params.Meta; len(m) > 0 {
		var err error
		if metaJSON, err = json.Marshal(m); err != nil {
			return nil, err
		}
	}
	env = append(env,
		"MCP_SDK="+b.sdk, "MCPBASH_PROJECT_ROOT="+t.Root, "MCP_TOOL_NAME="+t.Name,
		"MCP_TOOL_META_JSON="+string(metaJSON),
		"MCP_PROGRESS_STREAM="+c.progress, "MCP_LOG_STREAM="+c.logs,
		"MCP_TOOL_CANCELLATION_FILE="+c.cancel, "MCP_CANCEL_FILE="+c.cancel,
		"MCP_TOOL_ERROR_FILE="+c.errFile, "MCP_INPUT_DIR="+c.dir, fmt.Sprintf("MCP_INPUT_ROUND=%d", c.input.round))
	env = append(env, c.input.caps.env()...)
	if len(argsJSON) <= extArgsInline {
		env = append(env, "MCP_TOOL_ARGS_JSON="+string(argsJSON))
		env = append(env, extArgVars(args, argsJSON)...)
	} else {
		f := filepath.Join(c.dir, "args.json")
		if err := c.root.WriteFile("args.json", argsJSON, 0o600); err != nil {
			return nil, err
		}
		env = append(env, "MCP_TOOL_ARGS_FILE="+f)
	}
	if tok := req.Params.GetProgressToken(); tok != nil {
		env = append(env, fmt.Sprintf("MCP_PROGRESS_TOKEN=%v", tok))
	}
	// The roots the SDK's roots helpers use: the allowed directories, or
	// the working directory when everything is allowed.
	roots := b.d.Policy().Allowed()
	if len(roots) == 0 {
		roots = []string{b.d.Dir()}
	}
	env = append(env, "MCP_ROOTS_PATHS="+strings.Join(roots, "\n"))
	return env, nil
}

// extResult turns a finished tool into a result: its error file (from
// mcp_fail) first, then its exit, then its stdout (a result object, or
// plain text).
func extResult(t *extension.Tool, res *shell.Result, c *extCall, timeout time.Duration) (*mcp.CallToolResult, error) {
	if res.TimedOut {
		return toolkit.ErrorResult(toolkit.Fail(toolkit.ExecError, "extension tool %s timed out after %s and was stopped%s", t.Name, timeout, stderrTail(res))), nil
	}
	if res.Canceled {
		return toolkit.ErrorResult(toolkit.Fail(toolkit.ExecError, "extension tool %s was cancelled", t.Name)), nil
	}
	// The error file counts only when the tool failed: a tool may recover
	// from a helper's failure (mcp_args_get ... || true).
	if data, err := c.root.ReadFile("error", 1<<20); err == nil && res.ExitCode != 0 && len(bytes.TrimSpace(data)) > 0 {
		var e struct {
			Code    int64           `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		}
		if json.Unmarshal(data, &e) == nil && e.Message != "" {
			if e.Code == jsonrpc.CodeInvalidParams || e.Code == mcp.CodeMissingRequiredClientCapabilities {
				return nil, &jsonrpc.Error{Code: e.Code, Message: e.Message, Data: e.Data}
			}
			msg := e.Message
			if len(e.Data) > 0 && string(e.Data) != "null" {
				msg += " " + string(e.Data)
			}
			return toolkit.ErrorResult(toolkit.Fail(toolkit.ExecError, "extension tool %s failed (%d): %s", t.Name, e.Code, msg)), nil
		}
	}
	if res.ExitCode != 0 {
		return toolkit.ErrorResult(toolkit.Fail(toolkit.ExecError, "extension tool %s exited with status %d%s", t.Name, res.ExitCode, stderrTail(res))), nil
	}
	out := strings.TrimSpace(res.Stdout)
	if strings.HasPrefix(out, "{") {
		var probe struct {
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal([]byte(out), &probe) == nil && len(probe.Content) > 0 && probe.Content[0] == '[' {
			var r mcp.CallToolResult
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				return toolkit.ErrorResult(toolkit.Fail(toolkit.ExecError, "extension tool %s printed a malformed result: %v", t.Name, err)), nil
			}
			return &r, nil
		}
	}
	return toolkit.TextResult(res.Stdout), nil
}

// stderrTail is the end of a tool's stderr, for error messages.
func stderrTail(res *shell.Result) string {
	s := strings.TrimSpace(res.Stderr)
	if s == "" {
		return ""
	}
	if r := []rune(s); len(r) > 2000 {
		s = "…" + string(r[len(r)-2000:])
	}
	return "; stderr:\n" + s
}

// extForwarder forwards a running tool's progress (when the client asked
// for it: at most one notification per poll) and logs (as
// notifications/message, filtered by the session's logging/setLevel).
type extForwarder struct {
	ctx          context.Context
	req          *mcp.CallToolRequest
	c            *extCall
	offProg, off int64
	logs         int
	wg           sync.WaitGroup
}

func newExtForwarder(ctx context.Context, req *mcp.CallToolRequest, c *extCall) *extForwarder {
	return &extForwarder{ctx: ctx, req: req, c: c}
}

// start polls until the returned stop is called, which forwards what is
// left.
func (f *extForwarder) start() (stop func()) {
	done := make(chan struct{})
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		tick := time.NewTicker(extPoll)
		defer tick.Stop()
		for {
			select {
			case <-done:
				f.poll()
				return
			case <-tick.C:
				f.poll()
			}
		}
	}()
	return func() {
		close(done)
		f.wg.Wait()
	}
}

func (f *extForwarder) poll() {
	if f.req.Session == nil {
		return
	}
	if f.c.input != nil {
		f.c.input.poll()
	}
	if tok := f.req.Params.GetProgressToken(); tok != nil {
		var last *mcp.ProgressNotificationParams
		for _, line := range readNewLines(f.c.root, extCallFiles[0], &f.offProg) {
			var p struct {
				Progress float64  `json:"progress"`
				Total    *float64 `json:"total"`
				Message  string   `json:"message"`
			}
			if json.Unmarshal(line, &p) == nil {
				last = &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: p.Progress, Message: p.Message}
				if p.Total != nil {
					last.Total = *p.Total
				}
			}
		}
		if last != nil {
			_ = f.req.Session.NotifyProgress(f.ctx, last)
		}
	}
	for _, line := range readNewLines(f.c.root, extCallFiles[1], &f.off) {
		if f.logs >= extMaxLogs {
			break
		}
		var l struct {
			Level  string          `json:"level"`
			Logger string          `json:"logger"`
			Data   json.RawMessage `json:"data"`
		}
		if json.Unmarshal(line, &l) != nil {
			continue
		}
		var data any
		if json.Unmarshal(l.Data, &data) != nil {
			data = string(l.Data)
		}
		f.logs++
		_ = f.req.Session.Log(f.ctx, &mcp.LoggingMessageParams{Meta: f.related(), Level: mcp.LoggingLevel(logLevel(l.Level)), Logger: l.Logger, Data: data})
	}
}

// related is the _meta of a log about the call: the gateway's tag of the
// request, when it gave one (see corecheck.RelatedRequestMeta).
func (f *extForwarder) related() mcp.Meta {
	if tag, ok := f.req.Params.GetMeta()[corecheck.RelatedRequestMeta]; ok {
		return mcp.Meta{corecheck.RelatedRequestMeta: tag}
	}
	return nil
}

// logLevel maps a level name onto MCP's (RFC 5424) names.
func logLevel(s string) string {
	switch s = strings.ToLower(s); s {
	case "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency":
		return s
	case "warn":
		return "warning"
	}
	return "info"
}

// readNewLines returns the complete lines appended to the file name of
// dir since *off and moves *off past them. A line over 64 KiB is dropped.
// A link, FIFO or device there is read as nothing.
func readNewLines(dir *safefile.Dir, name string, off *int64) [][]byte {
	f, err := dir.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() <= *off {
		return nil // nothing new: most calls, most polls
	}
	const most = 256 << 10
	buf := make([]byte, min(fi.Size()-*off, most))
	n, err := f.ReadAt(buf, *off)
	if n == 0 && err != nil {
		return nil
	}
	data := buf[:n]
	end := bytes.LastIndexByte(data, '\n')
	if end < 0 {
		if n == most {
			*off += int64(n) // one enormous line: skip it
		}
		return nil
	}
	*off += int64(end + 1)
	var lines [][]byte
	for _, line := range bytes.Split(data[:end], []byte{'\n'}) {
		if len(line) > 0 && len(line) <= 64<<10 {
			lines = append(lines, line)
		}
	}
	return lines
}

// Watch reloads the extension tools whenever the directories
// change, until ctx ends: added tools appear, removed ones go, changed
// ones are replaced, and the SDK sends notifications/tools/list_changed.
// Entries that cannot be used are skipped with a log line, as at start.
func (b *Set) Watch(ctx context.Context, s *mcp.Server) {
	if b == nil {
		return
	}
	last := b.loaded // not taken here: a change made before this goroutine runs is a change too
	tick := time.NewTicker(extReloadEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		last = b.reload(s, last)
	}
}

// reload reloads the extensions when the directories' fingerprint is no
// longer last, and returns the fingerprint it saw. A directory that fails
// to load keeps the tools loaded before.
func (b *Set) reload(s *mcp.Server, last string) string {
	fp := extension.Fingerprint(b.opt.Dirs)
	if fp == last {
		return last
	}
	tools, skipped, err := extension.Load(b.opt.Dirs, b.opt.Builtin)
	if err != nil {
		b.opt.Log.Warn("reloading extensions failed; keeping the tools loaded before", "err", err)
		return fp
	}
	extension.Log(b.opt.Log, skipped)
	b.swapExtensionTools(s, tools)
	b.reloadExtensionContent(s)
	return fp
}

// swapExtensionTools makes tools the registered extension tools.
func (b *Set) swapExtensionTools(s *mcp.Server, tools []*extension.Tool) {
	b.mu.Lock()
	old := b.tools
	b.tools = tools
	b.mu.Unlock()
	b.d.ListsChanged() // cursors into the old lists are stale
	keep := map[string]bool{}
	for _, t := range tools {
		keep[t.Name] = true
	}
	var gone []string
	for _, t := range old {
		if !keep[t.Name] {
			gone = append(gone, t.Name)
		}
	}
	if len(gone) > 0 {
		s.RemoveTools(gone...)
	}
	for _, t := range b.Tools() {
		if b.opt.Keep(t) {
			t.Register(s, b.opt.Around) // a tool of the same name is replaced
		}
	}
	b.opt.Log.Info("extensions reloaded", "tools", len(tools), "removed", len(gone))
}

// Close stops watching the content and removes the SDK directory the Set
// made for itself.
func (b *Set) Close() {
	if b == nil {
		return
	}
	b.closeContent()
	if b.root != nil {
		b.root.Close()
	}
	if b.ownDir != "" {
		_ = os.RemoveAll(b.ownDir)
	}
}
