package core

import (
	"context"
	"crypto/rand"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/checkpoint"
	"github.com/mjkoo/boris/core/sandbox"
	"github.com/mjkoo/boris/core/scope"
	"github.com/mjkoo/boris/core/shell"
	"github.com/mjkoo/boris/core/toolkit"
	boristools "github.com/mjkoo/boris/core/tools/boris"
	"github.com/mjkoo/boris/core/tools/checkpoints"
	"github.com/mjkoo/boris/core/workspace"
	"github.com/mjkoo/boris/internal/nice"
	"github.com/mjkoo/boris/internal/procs"
)

// Checkpoints (docs/reference/core.md#checkpoints): after every tool call that may change files the
// core records what changed in a shadow git repository (core/checkpoint);
// history, diff and undo read it. This file wires the store into the core.

// openCheckpoints makes the recorder of the working tree's checkpoints
// when --checkpoints is on and git is there (gitFound gives
// checkpoint.Available's answer); the recorder opens the
// shadow repository and records the tree's state with the first tool
// call, in the background (the first change waits for it). Without git
// the feature is off, said in one log line.
func (b *boris) openCheckpoints(workdir string, environ []string, gitFound <-chan error) {
	if !b.cfg.checkpointsOn() {
		return
	}
	tree, err := filepath.EvalSymlinks(workdir)
	if err != nil || b.cfg.StateDir == "" {
		b.log.Warn("checkpoints are off: no state directory (set --state-dir, XDG_STATE_HOME or HOME)")
		return
	}
	if err := <-gitFound; err != nil {
		b.log.Warn("checkpoints are off: git is not on PATH; history, diff and undo are not available")
		return
	}
	if b.sandbox.Enforced() {
		b.gitTree = tree // the session's spawner starts checkpoint git too (gitDomain)
	}
	// The store opens (and runs git) with the session's first tool call,
	// and records the tree as it finds it then: a session that never
	// calls a tool writes nothing (docs/reference/core.md#checkpoints), and start-up runs no git.
	// Named when the store opens: a process's first crypto/rand read runs
	// the module's self-tests, 0.4 ms a start-up need not wait for.
	session := sync.OnceValue(func() string { return rand.Text()[:16] })
	open := func(ctx context.Context) (*checkpoint.Store, error) {
		return checkpoint.Open(ctx, checkpoint.Options{
			Tree: tree, StateDir: b.cfg.StateDir, Keep: b.cfg.CheckpointKeep, MaxFileSize: int64(b.cfg.MaxFileSize),
			Allowed: func(abs string) bool { return b.policy.Check(abs) == nil },
			Exclude: append(denyExcludes(tree, b.policy.Denied()), boardExcludes(tree, b.cfg.TasksDB)...),
			Start:   b.startHook(), Done: b.doneHook(),
			// git reads the tree and writes only the shadow repository,
			// granted through the descriptor the store opened without links.
			Confine: b.sandbox.WrapReadOnly([]string{tree}, []string{"/proc/self/fd/3"}),
			Spawn:   b.gitSpawn(tree),
			Environ: environ, Log: b.log, Session: session(),
		})
	}
	b.rec = checkpoint.NewRecorder(tree, open, b.tasksRunning, b.log)
	if fifo := lookupEnv(environ, holdStartEnv); fifo != "" {
		b.rec.SetStartHold(holdOn(fifo))
	}
	if fifo := lookupEnv(environ, holdWatchEnv); fifo != "" {
		b.rec.SetWatchHold(holdOn(fifo))
	}
}

// holdStartEnv names a FIFO the starting checkpoint waits on before it
// reads the tree, until a writer has opened and closed it: the end-to-end
// tests hold the start with it, to show that no call waits for the start.
const holdStartEnv = "BORIS_TEST_HOLD_CHECKPOINT_START"

// holdWatchEnv names a FIFO the checkpoints wait on before they start
// watching the tree, as holdStartEnv: the end-to-end tests run a command
// before any watch is added with it.
const holdWatchEnv = "BORIS_TEST_HOLD_CHECKPOINT_WATCH"

// holdOn returns a hold that reads the FIFO at path to its end, or
// returns when ctx ends.
func holdOn(path string) func(ctx context.Context) {
	return func(ctx context.Context) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			f, err := os.Open(path) // blocks until the test opens it to write
			if err != nil {
				return
			}
			defer f.Close()
			_, _ = io.Copy(io.Discard, f)
		}()
		select {
		case <-done:
		case <-ctx.Done():
		}
	}
}

// lookupEnv is the value of key in environ, "" when unset.
func lookupEnv(environ []string, key string) string {
	for i := len(environ) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(environ[i], key+"="); ok {
			return v
		}
	}
	return ""
}

// gitSpawn returns how checkpoint git starts: from the session's spawner,
// in a domain of its own there (reading the tree, writing only the
// shadow, as Confine; sandbox.GitDomain); or, where that spawner has no
// such domain (namespaces, or no spawner), from a confined spawner of its
// own, made at its first use and stopped when idle (idleSpawner). Nil when
// commands are not confined.
func (b *boris) gitSpawn(tree string) func(*os.File, []string, string, []string, [3]*os.File) (int, <-chan syscall.WaitStatus, error) {
	if !b.sandbox.Enforced() {
		return nil
	}
	b.gitSpawner = &idleSpawner{
		idle: gitSpawnerIdle,
		start: func(shadow *os.File) (gitStarter, error) {
			sp, err := b.sandbox.StartReadOnlySpawner([]string{tree}, []string{"/proc/self/fd/4"}, []*os.File{shadow}, b.startHook())
			if err != nil {
				b.log.Warn("checkpoint git starts through the sandbox helper instead of a spawner", "err", err)
				return nil, err
			}
			return sp, nil
		},
		stop: func(g gitStarter) {
			sp := g.(*sandbox.Spawner)
			sp.Close()
			_ = sp.Wait()
			if b.reaper != nil {
				b.reaper.Done(sp.Pid())
			}
		},
	}
	return func(shadow *os.File, argv []string, dir string, env []string, files [3]*os.File) (int, <-chan syscall.WaitStatus, error) {
		if sp := b.sessionSpawner(); sp.HasGit() {
			// git runs at the caller's priority, as idleSpawner.Start says.
			prio := nice.Thread()
			pid, ws, err := sp.StartGit(argv, dir, env, files)
			if err == nil {
				if prio > 0 {
					nice.Set(pid, prio)
				}
				return pid, ws, nil
			}
		}
		return b.gitSpawner.Start(shadow, argv, dir, env, files)
	}
}

// gitDomain is the session spawner's domain for the checkpoints' git
// (sandbox.GitDomain), and what closes its descriptor once the spawner has
// started; nil when checkpoints are off or commands unconfined.
func (b *boris) gitDomain() (*sandbox.GitDomain, func()) {
	if b.gitTree == "" {
		return nil, func() {}
	}
	shadow, err := checkpoint.OpenShadowDir(b.cfg.StateDir, b.gitTree)
	if err != nil {
		b.log.Warn("checkpoint git starts from a spawner of its own", "err", err)
		return nil, func() {}
	}
	return &sandbox.GitDomain{Read: []string{b.gitTree}, Shadow: shadow}, func() { shadow.Close() }
}

// checkpointsOn reports whether checkpoints are recorded: --checkpoints
// on, and a toolset with history, diff and undo to use them (docs/reference/core.md#checkpoints:
// not --toolset filesystem).
func (c *Config) checkpointsOn() bool {
	return c.Checkpoints == "on" && c.selects(boristools.ID)
}

// startHook and doneHook start git through the subreaper, when there is one.
func (b *boris) startHook() func(*exec.Cmd) error {
	if b.reaper == nil {
		return nil
	}
	return b.reaper.Start
}

func (b *boris) doneHook() func(int) {
	if b.reaper == nil {
		return nil
	}
	return b.reaper.Done
}

// denyExcludes turns --deny-dir entries into gitignore patterns for the
// shadow, a first line of defence: every path is also checked with the
// policy before it is recorded.
func denyExcludes(tree string, denied []string) []string {
	var out []string
	for _, d := range denied {
		d = filepath.ToSlash(d)
		switch {
		case strings.HasPrefix(d, "**/"):
			out = append(out, d)
		case filepath.IsAbs(d):
			if rel, err := filepath.Rel(tree, d); err == nil && !strings.HasPrefix(rel, "..") {
				out = append(out, "/"+filepath.ToSlash(rel))
			}
		default:
			out = append(out, "/"+strings.TrimPrefix(d, "./"))
		}
	}
	return out
}

// closeCheckpoints waits for recordings under way, then releases the store.
func (b *boris) closeCheckpoints() {
	b.rec.Close()
	b.gitSpawner.Close()
}

// tasksRunning reports whether a background task is still running.
func (b *boris) tasksRunning() bool {
	return slices.ContainsFunc(b.shell.Tasks(), func(t *shell.Task) bool { return !t.Finished() })
}

// checkpointTools are the checkpoint tools, known whenever --checkpoints
// is on (so --disable-tools accepts their names) and registered only when
// the store opened.
func (b *boris) checkpointTools() []toolkit.Tool {
	if b.cfg.Checkpoints != "on" {
		return nil
	}
	return checkpoints.Tools(b)
}

// Recorder, Policy and Dir are what toolsets get from the core: the
// checkpoint recorder (nil when off), the path policy and the working
// directory.
func (b *boris) Recorder() *checkpoint.Recorder { return b.rec }
func (b *boris) Policy() *scope.Policy          { return b.policy }
func (b *boris) Dir() string                    { return b.shell.Dir() }
func (b *boris) Workspaces() *workspace.Paths   { return b.workspaces }
func (b *boris) Shell() *shell.Shell            { return b.shell }

// UndoLastEdit answers the editor's undo_edit with the checkpoint
// toolset's logic, unless the undo tool is disabled.
func (b *boris) UndoLastEdit(ctx context.Context, req *mcp.CallToolRequest, path string) (*mcp.CallToolResult, error) {
	if b.cfg.disabled("undo") {
		return nil, checkpoints.UndoEditUnavailable()
	}
	return checkpoints.UndoLastEdit(ctx, b, req, path)
}

// settle runs once start-up is over: the client has initialized. (The
// first checkpoint waits for the first tool call, and the recorder returns
// its garbage itself.) It collects and returns the free pages to
// the kernel (GC pacing, package gcpace, lets a small heap grow by 64 MB
// between collections, so what start-up left behind would otherwise stay
// in every idle session's core), then narrows the process to one P for
// the requests to come (see package procs). It also has the sandbox sweep
// what killed cores left in TMPDIR.
func (b *boris) settle() {
	b.sandbox.Sweep()
	debug.FreeOSMemory()
	procs.Narrow()
}
