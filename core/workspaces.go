package core

import (
	"context"
	"os/exec"
	"path/filepath"

	"github.com/mjkoo/boris/core/toolkit"
	"github.com/mjkoo/boris/core/tools/workspaces"
	"github.com/mjkoo/boris/core/workspace"
	"github.com/mjkoo/boris/internal/flagenv"
	"github.com/mjkoo/boris/internal/gitenv"
)

// Workspaces (docs/reference/core.md#workspaces): named, git-versioned directories under
// --workspaces-root. The filesystem tools take an optional workspaceId:
// their paths then resolve inside that workspace, and every write is
// committed to the workspace's own repository.

// workspacesRoot is --workspaces-root made absolute against the working
// directory, or "".
func (c *Config) workspacesRoot(workdir string) string {
	if c.WorkspacesRoot == "" {
		return ""
	}
	if filepath.IsAbs(c.WorkspacesRoot) {
		return filepath.Clean(c.WorkspacesRoot)
	}
	return filepath.Join(workdir, c.WorkspacesRoot)
}

// workspaceRules are what --workspaces-root adds to the path policy: the
// root is allowed (when --allow-dir narrows what is), and every
// workspace's .git is denied, so no tool can plant git configuration or
// hooks that the core's commits would obey.
func (c *Config) workspaceRules(workdir string) (allow, deny []string) {
	root := c.workspacesRoot(workdir)
	if root == "" {
		return nil, nil
	}
	if len(c.AllowDirs) > 0 {
		allow = []string{root}
	}
	// Every .git at any depth: no file tool may plant a repository
	// (config, hooks, attributes) whose git Boris would run.
	if real, err := filepath.EvalSymlinks(root); err == nil && real != root {
		deny = append(deny, filepath.Join(real, "**", ".git"))
	}
	return allow, append(deny, filepath.Join(root, "**", ".git"))
}

// openWorkspaces opens --workspaces-root. git runs confined as commands
// are, since a workspace's .git/config is within the commands' reach, in
// namespaces of its own when they have them (see workspaceGit), and never
// connects over TCP.
func (b *boris) openWorkspaces(workdir string, environ []string) error {
	root := b.cfg.workspacesRoot(workdir)
	if root == "" {
		return nil
	}
	gitPath, err := exec.LookPath("git")
	if flagenv.Lookup(environ, "PATH") != "" {
		gitPath, err = gitenv.Look(environ) // the lookup checkpoints use
	}
	if err != nil {
		return usage("--workspaces-root needs the git binary, which is not on PATH")
	}
	var start func(*exec.Cmd) error
	var done func(int)
	if b.reaper != nil {
		start, done = b.reaper.Start, b.reaper.Done
	}
	run := workspace.ExecRunner(gitPath, environ, b.sandbox.WrapGit, start, done)
	if b.sandbox.Spawns() {
		g := &workspaceGit{sandbox: b.sandbox, start: start, done: done, fallback: run, log: b.log}
		g.spawned = workspace.SpawnRunner(gitPath, environ, func(ctx context.Context, argv []string, dir string, env []string) ([]byte, []byte, error) {
			return g.sp.Run(ctx, argv, dir, env)
		})
		b.wsGit, run = g, g.run
	}
	if b.workspaces.Root, err = workspace.Open(root, run); err != nil {
		return usage("invalid value %q for --workspaces-root: %v", b.cfg.WorkspacesRoot, err)
	}
	return nil
}

// workspaceTools are the workspace tools, registered with --workspaces-root
// beside the filesystem tools, the ones that take workspaceId (validate
// refuses --workspaces-root with --toolset boris).
func (b *boris) workspaceTools() []toolkit.Tool {
	if b.cfg.WorkspacesRoot == "" {
		return nil
	}
	return workspaces.Tools(b.workspaces)
}
