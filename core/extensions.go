package core

import (
	"context"

	"github.com/mjkoo/boris/core/toolkit"
	"github.com/mjkoo/boris/core/tools/extensions"
	"github.com/mjkoo/boris/core/tools/workstation"
)

// extensionOptions are the extension toolset's options from the
// configuration. Extension tools run programs, so they go with bash:
// --disable-tools bash (a token without boris:exec) and --read-only leave
// them out, as they keep their completions from running.
func (b *boris) extensionOptions(environ []string) extensions.Options {
	return extensions.Options{
		Dirs: b.cfg.Extensions, MaxFileSize: b.cfg.MaxFileSize, TempDir: b.sandbox.TempDir(), Environ: environ,
		RunsCommands: !b.cfg.ReadOnly && !b.cfg.disabled("bash"), Builtin: builtinTool,
		Keep: func(t toolkit.Tool) bool { return !b.cfg.leavesOut(t) }, Around: b.around, Log: b.log,
	}
}

// builtinTool reports whether name is one of Boris's own tools in any
// mode, which an extension may not take.
func builtinTool(name string) bool {
	probe := &boris{cfg: &Config{Toolset: "all", Checkpoints: "on", WorkspacesRoot: "x"}}
	for _, t := range probe.offered() {
		if t.Name == name {
			return true
		}
	}
	return workstation.Builtin(name)
}

// AwaitRoots holds a tool call until the client has answered the latest
// roots request (roots.go): extension tools wait as Boris's own do.
func (b *boris) AwaitRoots(ctx context.Context) { b.awaitRoots(ctx) }

// ListsChanged makes the cursors into the lists a client pages through
// stale: extensions reloaded.
func (b *boris) ListsChanged() {
	if b.cursors != nil {
		b.cursors.gen.Add(1)
	}
}
