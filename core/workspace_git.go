package core

import (
	"context"
	"errors"
	"log/slog"
	"os/exec"
	"sync"

	"github.com/mjkoo/boris/core/sandbox"
	"github.com/mjkoo/boris/core/workspace"
)

// workspaceGit starts workspace git from a spawner of its own
// (sandbox.StartGitSpawner): the commands' rules and, when commands run
// in namespaces, namespaces of its own with the same private root, a
// loopback of its own and no TCP connect at all. It is started at its
// first use. Where it cannot start, git goes through the sandbox helper
// (fallback), outside any namespace but still with no TCP connect, unless
// commands may start only from a spawner (sandbox.SpawnOnly).
type workspaceGit struct {
	sandbox  *sandbox.Sandbox
	start    func(*exec.Cmd) error // the subreaper's, or nil
	done     func(int)             // the subreaper's, or nil
	fallback workspace.Runner      // through the helper
	spawned  workspace.Runner      // through sp
	log      *slog.Logger

	once sync.Once
	sp   *sandbox.Spawner // nil until started, or when it could not be
	err  error            // why it could not be
}

// run is the workspaces' Runner: git args on dir, through the spawner,
// started first if need be, or else through the fallback.
func (g *workspaceGit) run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	g.once.Do(func() {
		if g.sp, g.err = g.sandbox.StartGitSpawner(g.start); g.err != nil {
			g.log.Warn("workspace git cannot start from a spawner of its own", "err", g.err)
		}
	})
	if g.sp != nil {
		return g.spawned(ctx, dir, args...)
	}
	if g.sandbox.SpawnOnly() {
		return nil, errors.Join(errors.New("workspace git needs a spawner in the session's namespaces"), g.err)
	}
	return g.fallback(ctx, dir, args...)
}

// close ends the spawner, if it was started, and waits for it.
func (g *workspaceGit) close() {
	if g == nil {
		return
	}
	g.once.Do(func() {}) // nothing starts after close
	if g.sp == nil {
		return
	}
	g.sp.Close()
	_ = g.sp.Wait()
	if g.done != nil {
		g.done(g.sp.Pid())
	}
}
