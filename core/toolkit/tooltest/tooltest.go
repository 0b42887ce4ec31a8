// Package tooltest holds the dependencies every toolset's tests share: a
// real path policy allowing one directory, a real shell working in it,
// the workspaces' paths over them and a real task board in a temporary
// SQLite file; checkpoints are off. A toolset's tests wrap Deps in their
// package's tools and call handlers directly, so what they prove is the
// toolset's own behaviour, not a stub's. It is part of the shared kit and
// imports no toolset.
package tooltest

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/board"
	"github.com/mjkoo/boris/core/checkpoint"
	"github.com/mjkoo/boris/core/scope"
	"github.com/mjkoo/boris/core/shell"
	"github.com/mjkoo/boris/core/workspace"
)

// Deps is one test's dependencies of a toolset. It satisfies the Deps of
// the boris, filesystem, checkpoints, tracking and extensions toolsets; a
// toolset that needs more (diagnostics' servers) embeds it.
type Deps struct {
	dir    string
	policy *scope.Policy
	shell  *shell.Shell
	ws     *workspace.Paths
	rec    *checkpoint.Recorder // nil until WithCheckpoints
	tb     testing.TB

	boardOnce sync.Once
	board     *board.Store
	boardErr  error

	listsChanged atomic.Int32
}

// New returns the dependencies of a test working in a new temporary
// directory (its real path, links resolved), the only one the policy
// allows, with deny the policy's deny patterns. Everything is closed
// when the test ends.
func New(tb testing.TB, deny ...string) *Deps {
	tb.Helper()
	return In(tb, tb.TempDir(), deny...)
}

// In is New working in dir.
func In(tb testing.TB, dir string, deny ...string) *Deps {
	tb.Helper()
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		tb.Fatalf("resolve the test's directory: %v", err)
	}
	policy, err := scope.New(dir, []string{dir}, deny)
	if err != nil {
		tb.Fatalf("scope the test's directory: %v", err)
	}
	sh, err := shell.New(dir, shell.Config{})
	if err != nil {
		policy.Close()
		tb.Fatalf("start the test's shell: %v", err)
	}
	d := &Deps{dir: dir, policy: policy, shell: sh, tb: tb}
	d.ws = &workspace.Paths{Files: d}
	tb.Cleanup(func() {
		sh.Close()
		policy.Close()
		if d.board != nil {
			d.board.Close()
		}
	})
	return d
}

// Policy is the path policy: only the test's directory is allowed.
func (d *Deps) Policy() *scope.Policy { return d.policy }

// Dir is the shell's working directory, the test's directory at first.
func (d *Deps) Dir() string { return d.shell.Dir() }

// Shell runs the tests' commands, unconfined, in the test's directory.
func (d *Deps) Shell() *shell.Shell { return d.shell }

// Recorder records checkpoints once WithCheckpoints turned them on; nil
// before: checkpoints are off.
func (d *Deps) Recorder() *checkpoint.Recorder { return d.rec }

// Workspaces are the workspaces' paths, without a root (workspaces off).
func (d *Deps) Workspaces() *workspace.Paths { return d.ws }

// UndoLastEdit refuses: there are no checkpoints to undo from.
func (d *Deps) UndoLastEdit(context.Context, *mcp.CallToolRequest, string) (*mcp.CallToolResult, error) {
	return nil, errors.New("no checkpoints in these tests")
}

// AwaitRoots returns at once: the roots are the test's directory, known
// from the start.
func (d *Deps) AwaitRoots(context.Context) {}

// ListsChanged notes that the lists a client pages through changed (the
// extensions reloaded); ListsChangedCount says how often it was.
func (d *Deps) ListsChanged() { d.listsChanged.Add(1) }

// ListsChangedCount is how often ListsChanged was called.
func (d *Deps) ListsChangedCount() int { return int(d.listsChanged.Load()) }

// Board is a task board in a new SQLite file of its own, opened on first
// use.
func (d *Deps) Board(ctx context.Context) (board.Board, error) {
	d.boardOnce.Do(func() {
		d.board, d.boardErr = board.Open(ctx, filepath.Join(d.tb.TempDir(), "board.db"))
	})
	if d.boardErr != nil {
		return nil, d.boardErr // not a nil *Store in a non-nil Board
	}
	return d.board, nil
}

// WithWorkspaces turns workspaces on: their root is the directory
// "workspaces" in the test's directory, their git the one on PATH. A test
// on a machine without git is skipped, saying so.
func (d *Deps) WithWorkspaces(tb testing.TB) *Deps {
	tb.Helper()
	gitPath, err := exec.LookPath("git")
	if err != nil {
		tb.Skip("workspaces need the git binary, which is not on PATH")
	}
	root, err := workspace.Open(filepath.Join(d.dir, "workspaces"), workspace.ExecRunner(gitPath, os.Environ(), nil, nil, nil))
	if err != nil {
		tb.Fatalf("open the workspaces' root: %v", err)
	}
	d.ws.Root = root
	return d
}

// WithCheckpoints turns checkpoints on: a recorder of the test's
// directory, its shadow repository in a state directory of the test's,
// recording what the policy allows. A test on a machine without git is
// skipped, saying so.
func (d *Deps) WithCheckpoints(tb testing.TB) *Deps {
	tb.Helper()
	if err := checkpoint.Available(os.Environ()); err != nil {
		tb.Skipf("checkpoints need git: %v", err)
	}
	state := tb.TempDir()
	log := slog.New(slog.DiscardHandler)
	open := func(ctx context.Context) (*checkpoint.Store, error) {
		return checkpoint.Open(ctx, checkpoint.Options{
			Tree: d.dir, StateDir: state, Allowed: func(abs string) bool { return d.policy.Check(abs) == nil },
			Environ: os.Environ(), Log: log, Session: "tooltest",
		})
	}
	d.rec = checkpoint.NewRecorder(d.dir, open, func() bool { return false }, log)
	tb.Cleanup(d.rec.Close)
	d.rec.Await(context.Background()) // the starting checkpoint, before the test changes anything
	return d
}
