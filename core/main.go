package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/board"
	"github.com/mjkoo/boris/core/checkpoint"
	"github.com/mjkoo/boris/core/corecheck"
	"github.com/mjkoo/boris/core/extension"
	"github.com/mjkoo/boris/core/sandbox"
	"github.com/mjkoo/boris/core/scope"
	"github.com/mjkoo/boris/core/seen"
	"github.com/mjkoo/boris/core/shell"
	"github.com/mjkoo/boris/core/toolkit"
	boristools "github.com/mjkoo/boris/core/tools/boris"
	"github.com/mjkoo/boris/core/tools/checkpoints"
	"github.com/mjkoo/boris/core/tools/extensions"
	"github.com/mjkoo/boris/core/tools/filesystem"
	"github.com/mjkoo/boris/core/tools/tracking"
	"github.com/mjkoo/boris/core/wire"
	"github.com/mjkoo/boris/core/workspace"
	"github.com/mjkoo/boris/internal/flagenv"
	"github.com/mjkoo/boris/internal/reaper"
	"github.com/mjkoo/boris/internal/terminal"
	"github.com/mjkoo/boris/internal/version"
)

// Main runs boris with the given arguments (without the program name) and
// environment, serving MCP on stdin and stdout until stdin closes or SIGTERM,
// SIGINT or SIGHUP arrives. Every child process group is killed before it returns.
// Logs go to stderr only: stdout carries MCP messages and nothing else.
//
// Started with sandbox.HelperArg first, the process is instead the sandbox
// helper the core runs its commands through: it confines itself and execs
// the command, or exits 126 saying why it could not.
func Main(ctx context.Context, args, environ []string, stdin io.ReadCloser, stdout io.WriteCloser, stderr io.Writer) error {
	if len(args) > 0 && args[0] == sandbox.HelperArg {
		os.Exit(sandbox.RunHelper(args[1:]))
	}
	if len(args) > 0 && args[0] == sandbox.SpawnerArg {
		os.Exit(sandbox.RunSpawner(args[1:]))
	}
	if len(args) > 0 && args[0] == "tasks" {
		return board.CLI(ctx, args[1:], environ, stdout) // the work-tracking board's CLI (docs/reference/core.md#work-tracking)
	}
	cfg, err := ParseConfig(args, environ, stdout)
	if err != nil {
		return err
	}
	if cfg.Version {
		fmt.Fprintf(stdout, "boris %s\n", version.Version)
		return nil
	}
	log, err := cfg.logger(stderr, slog.LevelDebug)
	if err != nil {
		return err
	}
	sdkFloor := slog.LevelWarn
	if cfg.LogLevel == "debug" {
		sdkFloor = slog.LevelDebug
	}
	sdkLog, _ := cfg.logger(stderr, sdkFloor)
	// Boris stops the SDK's Run itself at every ordinary end (stdin closed,
	// a signal), which the SDK reports as an error: boris says how it
	// stopped instead ("boris stopped").
	sdkLog = slog.New(withoutRunCancelled{sdkLog.Handler()})
	if cfg.Check {
		return runCheck(cfg, environ, stdout, log)
	}
	// Commands must not read this process's memory or environment.
	if err := sandbox.NonDumpable(); err != nil {
		log.Warn("cannot make boris non-dumpable", "err", err)
	}
	// A subreaper, so that commands which leave their process group
	// (setsid, double forks) are still ours to kill when boris ends.
	rp, err := reaper.New(reaper.Options{Logger: log})
	if err != nil {
		log.Warn("commands that detach from their process group may outlive boris", "err", err)
		rp = nil
	}
	ctx, signalsCaught, releaseSignals := catchSignals(ctx)
	defer releaseSignals()
	b, err := newBoris(cfg, environ, rp, log, sdkLog)
	if err != nil {
		return err
	}
	defer b.close()
	if f, ok := stdin.(*os.File); ok && terminal.Is(f) {
		fmt.Fprintln(stderr, terminalNote(b.shell.Dir()))
	}
	// boris says how it started once its client's handshake is answered
	// (or as it stops, without one): a process's first log line costs a
	// fraction of a millisecond (the time zone is read), which the answer
	// need not wait for.
	b.started = sync.OnceFunc(func() { b.logStarted() })
	// At stdin EOF every command is killed before the SDK even sees the
	// EOF: it would cancel the calls in flight, and their commands would
	// get SIGTERM (and a chance to linger) first.
	eof := &eofReader{r: stdin, done: make(chan struct{}), atEOF: b.shell.Close}
	t := wire.NewStdio(eof, writeAfter{stdout, signalsCaught}, cfg.maxLine()) // nothing is written before SIGPIPE is caught
	t.AfterResponse(b.noteResponse)
	err = b.serve(ctx, t, eof.done)
	b.started()
	if t.StdoutGone() {
		log.Info("boris stopped", "reason", wire.ErrStdoutClosed) // a client gone is a normal end
		return nil
	}
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		err = nil // a signal or a closed stdin is a normal end
	}
	log.Info("boris stopped", "err", err)
	return err
}

// writeAfter is a writer whose writes wait until ready is closed.
type writeAfter struct {
	io.WriteCloser
	ready <-chan struct{}
}

func (w writeAfter) Write(p []byte) (int, error) {
	<-w.ready
	return w.WriteCloser.Write(p)
}

// catchSignals catches, in the background, the signals that stop boris
// and SIGPIPE; ctx ends at the first stop signal. caught is closed once
// they are caught; release, called as boris ends, waits for that and
// lets them go.
//
// The stop signals are SIGTERM and, unless boris was started ignoring
// them (by nohup, or in the background: catching them would undo that),
// SIGINT and SIGHUP (the terminal boris runs in closing). SIGPIPE is
// caught and dropped: a client gone from the other end of stdout must not
// end boris by SIGPIPE, skipping its clean-up; the write fails with EPIPE
// instead, and boris stops as at stdin EOF. Commands start with the
// default dispositions again (a caught signal is reset on exec; an
// ignored one would not be).
//
// In the background because the runtime hands each signal newly caught to
// the thread that keeps its signal mask and waits for the answer: about 2
// ms for these four on a small virtual machine, which the start-up does
// beside them. A stop signal in that window has its default action, as
// one before it did; boris writes nothing to stdout before caught is
// closed (writeAfter).
func catchSignals(parent context.Context) (ctx context.Context, caught <-chan struct{}, release func()) {
	ctx, cancel := context.WithCancel(parent)
	done := make(chan struct{})
	stop, pipe := make(chan os.Signal, 1), make(chan os.Signal, 1)
	go func() {
		defer close(done)
		signal.Notify(pipe, syscall.SIGPIPE)
		stopSignals := []os.Signal{syscall.SIGTERM}
		for _, sig := range []os.Signal{syscall.SIGINT, syscall.SIGHUP} {
			if !signal.Ignored(sig) {
				stopSignals = append(stopSignals, sig)
			}
		}
		signal.Notify(stop, stopSignals...)
	}()
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, done, func() {
		<-done
		signal.Stop(stop)
		signal.Stop(pipe)
		cancel()
	}
}

// logStarted logs what this boris serves and how its commands are
// confined, and warns of what is not.
func (b *boris) logStarted() {
	rep := b.sandbox.Summary()
	b.log.Info("boris started", "version", version.Version, "workdir", b.shell.Dir(), "shell", b.shell.Path(),
		"sandbox", b.sandbox.Enforced(), "landlock_abi", b.sandbox.ABI(), "subreaper", b.reaper != nil,
		"net", rep.Net, "net_enforced", rep.NetEnforced, "pid_namespace", rep.PIDNamespace)
	if !b.sandbox.Enforced() && b.cfg.Sandbox == sandbox.ModeAuto {
		b.log.Warn("commands run unconfined: this kernel offers no Landlock (--sandbox auto)")
	}
	if rep.NotEnforced != "" {
		b.log.Warn("commands run without namespaces of their own: they see every process of the host and share its network beyond what Landlock's TCP rules stop",
			"sandbox_net", rep.Net, "net_enforced", rep.NetEnforced, "why", rep.NotEnforced)
	}
}

// terminalNote is what boris says when a person starts it in a terminal:
// it reads MCP messages on stdin, so it would seem to hang. One line.
func terminalNote(workdir string) string {
	exe, err := os.Executable()
	if err != nil {
		exe = "/path/to/boris"
	}
	return fmt.Sprintf("boris is an MCP server: it expects an MCP client on stdin, not typing. "+
		"Connect a client by adding boris to its configuration (Claude Code: claude mcp add boris -- %s --workdir %s; "+
		"others: see Connecting a client in the README). Ctrl-D exits.", exe, workdir)
}

// withoutRunCancelled is a slog.Handler that drops the SDK's "server run
// cancelled" error, which only says that boris stopped the server itself.
type withoutRunCancelled struct{ slog.Handler }

func (h withoutRunCancelled) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "server run cancelled" {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h withoutRunCancelled) WithAttrs(attrs []slog.Attr) slog.Handler {
	return withoutRunCancelled{h.Handler.WithAttrs(attrs)}
}

func (h withoutRunCancelled) WithGroup(name string) slog.Handler {
	return withoutRunCancelled{h.Handler.WithGroup(name)}
}

// exitGrace bounds how long boris waits for its tool calls once told to
// stop (stdin closed, SIGTERM): commands are SIGKILLed at once, so only a
// handler stuck elsewhere could take longer, and it must not keep the
// process alive.
const exitGrace = 10 * time.Second

// serve runs the MCP server until stdin closes or ctx ends. Either way
// every command is killed at once (docs/reference/core.md#protocol-behaviour), and serve returns within
// exitGrace even if a handler does not.
func (b *boris) serve(ctx context.Context, t mcp.Transport, eof <-chan struct{}) error {
	// Run's context ends only after every command is killed: cancelled
	// first, the calls in flight would SIGTERM their commands instead.
	runCtx, cancelRun := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRun()
	ran := make(chan error, 1)
	s := b.newServer()
	go b.ext.Watch(runCtx, s)
	go func() { ran <- s.Run(runCtx, t) }()
	select {
	case err := <-ran:
		return err
	case <-ctx.Done():
	case <-eof:
	}
	// The SDK's Run waits for in-flight calls before returning, so the
	// commands those calls are waiting on must end now.
	b.shell.Close()
	cancelRun()
	select {
	case <-ran:
		return nil // whatever Run says, it ended because boris was told to stop
	case <-time.After(exitGrace):
		b.log.Warn("a tool call did not end after the stop; exiting without it", "grace", exitGrace)
		return nil
	}
}

// eofReader calls atEOF and closes done once its reader reports an error
// (EOF included), before passing the error on.
type eofReader struct {
	r     io.ReadCloser
	done  chan struct{}
	atEOF func()
	once  sync.Once
}

func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil {
		e.once.Do(func() {
			e.atEOF()
			close(e.done)
		})
	}
	return n, err
}

func (e *eofReader) Close() error { return e.r.Close() }

// newBoris opens the policy, the sandbox and the shell from cfg. Commands
// start through rp when it is non-nil, and close kills all it has left.
func newBoris(cfg *Config, environ []string, rp *reaper.Reaper, log, sdkLog *slog.Logger) (_ *boris, err error) {
	b := &boris{cfg: cfg, reaper: rp, log: log, sdkLog: sdkLog, board: tracking.NewBoard(cfg.TasksDB, board.PGOptions{PasswordFile: cfg.TasksDBPasswordFile}, log), seen: seen.New(), answered: make(chan struct{}), written: make(chan struct{}), needed: make(chan struct{})}
	b.workspaces = &workspace.Paths{Files: b}
	defer func() {
		if err != nil {
			b.close()
		}
	}()
	workdir, err := cfg.workdir()
	if err != nil {
		return nil, err
	}
	// Whether git is on PATH decides whether the checkpoint tools are
	// offered; the lookup, a stat per PATH entry, runs beside the set-up
	// of the policy, the sandbox and the shell.
	gitFound := make(chan error, 1)
	if cfg.checkpointsOn() {
		go func() { gitFound <- checkpoint.Available(environ) }()
	}
	if b.policy, err = cfg.policy(workdir, log); err != nil {
		return nil, err
	}
	if b.sandbox, err = cfg.sandbox(b.policy, environ, true); err != nil {
		return nil, err
	}
	sc := shell.Config{Wrap: b.sandbox.Wrap, WrapExtension: b.sandbox.WrapExtension, Env: commandEnv(b.sandbox.Env(environ), environ), Prepare: b.sandbox.Prepare, SpawnOnly: b.sandbox.SpawnOnly()}
	if b.reaper != nil {
		sc.Start, sc.Done = b.reaper.Start, b.reaper.Done
	}
	if b.sandbox.Spawns() {
		// One confined spawner per session starts the commands: a fork
		// from it costs far less than a helper's Go start per command. It
		// starts once the client has initialized, in the background
		// (prestartSpawner), so neither the handshake's answer nor the
		// first command waits for it; or with the first command, if that
		// comes first.
		b.spawnerReady = make(chan struct{})
		b.spawnerStart = func() { b.startSpawner(sc.Start) }
		sc.Spawn, sc.SpawnExtension = b.spawn, b.spawnExtension
	}
	if b.shell, err = shell.New(workdir, sc); err != nil {
		return nil, fmt.Errorf("start shell: %w", err)
	}
	b.openDiagnostics(workdir, sc.Env, environ)
	if err := b.openWorkspaces(workdir, environ); err != nil {
		return nil, err
	}
	if len(cfg.Extensions) > 0 {
		// Extensions keep their SDK in the private temporary directory,
		// which they write at once.
		if err := b.sandbox.Prepare(); err != nil {
			return nil, usage("invalid sandbox settings: %v", err)
		}
	}
	if b.ext, err = extensions.Load(b, b.extensionOptions(environ)); err != nil {
		return nil, err
	}
	b.openCheckpoints(workdir, environ, gitFound)
	return b, nil
}

// workdir validates --workdir and makes it absolute.
func (c *Config) workdir() (string, error) {
	workdir, err := filepath.Abs(c.Workdir)
	if err != nil {
		return "", usage("invalid value %q for --workdir: %v", c.Workdir, err)
	}
	if fi, err := os.Stat(workdir); err != nil || !fi.IsDir() {
		return "", usage("invalid value %q for --workdir: want an existing directory", c.Workdir)
	}
	return workdir, nil
}

// policy builds the file tools' scoping from --allow-dir and --deny-dir,
// and what --workspaces-root adds to them (the root is made if missing).
func (c *Config) policy(workdir string, log *slog.Logger) (*scope.Policy, error) {
	allow, err := c.reachableAllowDirs(workdir, log)
	if err != nil {
		return nil, err
	}
	deny := c.DenyDirs
	if root := c.workspacesRoot(workdir); root != "" {
		if err := os.MkdirAll(root, 0o755); err != nil {
			return nil, usage("invalid value %q for --workspaces-root: %v", c.WorkspacesRoot, err)
		}
		wsAllow, wsDeny := c.workspaceRules(workdir)
		allow = append(slices.Clip(allow), wsAllow...)
		deny = append(slices.Clip(deny), wsDeny...)
	}
	p, err := scope.New(workdir, allow, deny)
	if err != nil {
		return nil, usage("invalid --allow-dir or --deny-dir: %v", err)
	}
	if err := p.Protect("Boris's own state, never open to its tools", c.ownState()...); err != nil {
		p.Close()
		return nil, usage("invalid --state-dir or --tasks-db: %v", err)
	}
	return p, nil
}

// reachableAllowDirs is --allow-dir as the toolset takes it. With
// --toolset filesystem, as server-filesystem takes its directories (a
// Claude Desktop configuration may name one that does not exist yet), an
// entry that does not exist or is not a directory is skipped with a
// warning, and only none left is an error (exit status 1, as
// server-filesystem's). Boris's own toolsets refuse such an entry as a bad
// setting (docs/reference/core.md#configuration: exit status 2).
func (c *Config) reachableAllowDirs(workdir string, log *slog.Logger) ([]string, error) {
	if c.Toolset != string(filesystem.ID) || len(c.AllowDirs) == 0 {
		return c.AllowDirs, nil
	}
	var kept []string
	for _, d := range c.AllowDirs {
		abs := d
		if d != "" && !filepath.IsAbs(d) {
			abs = filepath.Join(workdir, d)
		}
		fi, err := os.Stat(abs)
		switch {
		case d == "":
			kept = append(kept, d) // refused by scope.New as a bad setting
		case err != nil:
			log.Warn("cannot access --allow-dir directory, skipping it", "dir", abs, "err", err)
		case !fi.IsDir():
			log.Warn("--allow-dir is not a directory, skipping it", "dir", abs)
		default:
			kept = append(kept, d)
		}
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("none of the --allow-dir directories is accessible: %s", strings.Join(c.AllowDirs, ", "))
	}
	return kept, nil
}

// ownState lists the files Boris keeps for itself, which no tool may
// open (docs/reference/security.md): the state directory (made now when checkpoints will use
// it, so the refusal also covers the place a link there resolves to) and
// the task board with SQLite's files beside it.
func (c *Config) ownState() []string {
	var out []string
	if c.StateDir != "" {
		if c.checkpointsOn() {
			_ = os.MkdirAll(c.StateDir, 0o700)
		}
		out = append(out, c.StateDir)
	}
	if filepath.IsAbs(c.TasksDB) {
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			out = append(out, c.TasksDB+suffix)
		}
	}
	if c.TasksDBPasswordFile != "" {
		out = append(out, c.TasksDBPasswordFile)
	}
	return out
}

// sandbox builds the commands' confinement from the same policy: one
// policy, two enforcers (docs/reference/security.md).
func (c *Config) sandbox(p *scope.Policy, environ []string, makeTemp bool) (*sandbox.Sandbox, error) {
	// Extension tools run confined: their directories must be readable.
	read := slices.Clone(c.SandboxRead)
	for _, d := range c.Extensions {
		if abs, err := filepath.Abs(d); err == nil {
			read = append(read, abs)
		}
	}
	sb, err := sandbox.New(sandbox.Options{
		Mode: c.Sandbox, Allowed: p.Allowed(), ExtraRead: read, ExtraWrite: c.SandboxWrite,
		MakeTempDir: makeTemp, Environ: environ, Net: c.SandboxNet, EgressSocket: c.EgressSocket,
		ExtensionRoot: c.extensionRoot(environ, makeTemp),
	})
	if errors.Is(err, sandbox.ErrUnavailable) {
		return nil, usage("%v", err)
	}
	if err != nil {
		return nil, usage("invalid sandbox settings: %v", err)
	}
	return sb, nil
}

// extensionRoot is where the sandbox makes the extension area (see
// package sandbox): the state directory's "ext", outside every tree a
// principal can write (the gateway gives each principal a state directory
// outside its own), else the core's TMPDIR. None without extensions.
func (c *Config) extensionRoot(environ []string, makeTemp bool) string {
	switch {
	case len(c.Extensions) == 0 || !makeTemp:
		return ""
	case c.StateDir != "":
		return filepath.Join(c.StateDir, "ext")
	}
	if t := flagenv.Lookup(environ, "TMPDIR"); filepath.IsAbs(t) {
		return t
	}
	return os.TempDir()
}

// closeTimeout bounds how long close waits for the last descendants to die.
const closeTimeout = 3 * time.Second

// close kills every process the shell started, and every process those
// left behind, then removes the private temporary directory and releases
// the policy's roots. It copes with a partly built b.
func (b *boris) close() {
	if b.shell != nil {
		b.shell.Close()
	}
	b.closeCheckpoints()
	b.wsGit.close()
	b.board.Close()
	b.ext.Close()
	if b.diag != nil {
		b.diag.Close() // before the spawner, which would kill the servers unasked
	}
	if b.spawnerReady != nil {
		b.spawnerOnce.Do(func() { close(b.spawnerReady) }) // never started: never will
		<-b.spawnerReady
	}
	if b.spawner != nil {
		b.spawner.Close() // it kills what it still runs, then exits
		// Reaped as soon as it exits, beside KillAll, which then finds no
		// child left at all rather than scanning the host for one.
		reaped := make(chan struct{})
		go func() {
			defer close(reaped)
			b.reapSpawner()
		}()
		defer func() { <-reaped }()
	}
	if b.reaper != nil {
		if err := b.reaper.KillAll(closeTimeout); err != nil {
			b.log.Warn("some commands could not be killed", "err", err)
		}
		b.reaper.Close()
	}
	if b.sandbox != nil {
		if err := b.sandbox.Close(); err != nil {
			b.log.Warn("removing the private temporary directory", "err", err)
		}
	}
	if b.policy != nil {
		b.policy.Close()
	}
}

// errNoSpawner makes the shell start a command through the sandbox helper.
var errNoSpawner = errors.New("no spawner")

// startSpawner starts the session's spawner and marks it ready.
func (b *boris) startSpawner(start func(*exec.Cmd) error) {
	defer close(b.spawnerReady)
	git, closeGit := b.gitDomain()
	sp, err := b.sandbox.StartSpawner(start, git)
	closeGit()
	if err != nil {
		b.log.Warn("commands start through the sandbox helper instead of a spawner", "err", err)
		return
	}
	b.spawner = sp
}

// prestartSpawner starts the session's spawner in the background when the
// session can run commands: its start (a process, its namespaces, its
// private root, its egress bridge) is most of what a first command would
// otherwise cost, tens of milliseconds of CPU. A command that comes while
// it starts waits for it (spawnerOnce).
func (b *boris) prestartSpawner(tools []toolkit.Tool) {
	if b.spawnerStart == nil || (b.diag == nil && !slices.ContainsFunc(tools, func(t toolkit.Tool) bool { return t.Exec })) {
		return
	}
	go b.spawnerOnce.Do(b.spawnerStart)
}

// sessionSpawner returns the session's spawner, started first if need be,
// or nil when there is none. It is started from a goroutine of its own: a
// niced caller (the checkpoints' start) would hand its priority to the
// spawner, and so to every command after it.
func (b *boris) sessionSpawner() *sandbox.Spawner {
	if b.spawnerStart == nil {
		return nil
	}
	select {
	case <-b.spawnerReady: // started (or never will be): every git run but the first
		return b.spawner
	default:
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.spawnerOnce.Do(b.spawnerStart)
	}()
	<-done
	return b.spawner
}

// spawn starts a command through the spawner, starting it first if need be.
func (b *boris) spawn(argv []string, dir string, env []string, files [3]*os.File) (int, <-chan syscall.WaitStatus, error) {
	b.spawnerOnce.Do(b.spawnerStart)
	if b.spawner == nil {
		return 0, nil, errNoSpawner
	}
	return b.spawner.Start(argv, dir, env, files)
}

// spawnExtension starts an extension tool through the spawner, in its
// domain that may write the extension area (see package sandbox).
func (b *boris) spawnExtension(argv []string, dir string, env []string, files [3]*os.File) (int, <-chan syscall.WaitStatus, error) {
	b.spawnerOnce.Do(b.spawnerStart)
	if b.spawner == nil {
		return 0, nil, errNoSpawner
	}
	return b.spawner.StartExtension(argv, dir, env, files)
}

// reapSpawner waits for the spawner, which close has ended.
func (b *boris) reapSpawner() {
	_ = b.spawner.Wait()
	if b.reaper != nil {
		b.reaper.Done(b.spawner.Pid())
	}
}

// runCheck is --check: validate everything a session would need, print what
// would be enforced as JSON on stdout, and start nothing.
func runCheck(cfg *Config, environ []string, stdout io.Writer, log *slog.Logger) error {
	workdir, err := cfg.workdir()
	if err != nil {
		return err
	}
	policy, err := cfg.policy(workdir, log)
	if err != nil {
		return err
	}
	defer policy.Close()
	sb, err := cfg.sandbox(policy, environ, false)
	if err != nil {
		return err
	}
	if err := sb.Probe(); err != nil && cfg.Sandbox == sandbox.ModeRequired {
		return usage("--sandbox required with --sandbox-net %s: %v", cfg.SandboxNet, err)
	}
	tools, recording := enabledTools(cfg), cfg.Checkpoints
	if !cfg.checkpointsOn() {
		recording = "off"
	}
	if len(cfg.Extensions) > 0 && !cfg.ReadOnly && !cfg.disabled(boristools.Bash) {
		ext, skipped, err := extension.Load(cfg.Extensions, builtinTool)
		if err != nil {
			return usage("invalid --extensions: %v", err)
		}
		for _, t := range ext {
			if !cfg.disabled(t.Name) {
				tools = append(tools, t.Name)
			}
		}
		for _, sk := range skipped {
			fmt.Fprintf(os.Stderr, "boris: extension skipped: %s: %s\n", sk.Path, sk.Reason)
		}
		slices.Sort(tools)
	}
	if recording == "on" {
		if err := checkpoint.Available(environ); err != nil {
			recording = "unavailable: " + err.Error()
			tools = slices.DeleteFunc(tools, checkpoints.IsTool)
		}
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(corecheck.Report{
		Version: version.Version, Workdir: workdir, Allowed: policy.Allowed(), Denied: policy.Denied(),
		Tools: tools, Checkpoints: recording, Sandbox: sb.Report(),
	})
}

// logger builds the stderr logger cfg asks for, logging nothing below floor.
func (c *Config) logger(w io.Writer, floor slog.Level) (*slog.Logger, error) {
	level, err := c.level()
	if err != nil {
		return nil, err
	}
	opts := &slog.HandlerOptions{Level: max(level, floor)}
	if c.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return slog.New(slog.NewTextHandler(w, opts)), nil
}

// maxLine bounds one inbound JSON-RPC message: large enough for create_file
// of a file at --max-file-size even when JSON escaping inflates it.
func (c *Config) maxLine() int {
	return max(mcp.DefaultMaxLineLength, int(c.MaxFileSize)*6+1<<20)
}

// commandEnv is the environment commands run with: the sandbox's (nil
// when it sets none: the core's own), less PGPASSWORD, the password the
// core may use for a PostgreSQL board and no command may read.
func commandEnv(sandboxed, environ []string) []string {
	env := sandboxed
	if env == nil {
		env = environ
	}
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "PGPASSWORD=") })
}
