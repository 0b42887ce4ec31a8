package core

import (
	"context"
	"slices"
	"sync"

	"github.com/mjkoo/boris/core/toolkit"
	boristools "github.com/mjkoo/boris/core/tools/boris"
	"github.com/mjkoo/boris/core/tools/extensions"
)

// extensionOptions are the extension toolset's options from the
// configuration. Extension tools run programs, so they go with bash:
// --disable-tools bash (a token without boris:exec) and --read-only leave
// them out, as they keep their completions from running.
func (b *boris) extensionOptions(environ []string) extensions.Options {
	var area string
	if len(b.cfg.Extensions) > 0 {
		// The area is made with the sandbox's rules (Prepare), which a
		// session without extensions makes with its first command.
		area = b.sandbox.ExtDir()
	}
	if area != "" && b.sandbox.Readable(area) {
		// No --allow-dir: commands may write every file of the user.
		b.log.Info("commands can reach the extension area (no --allow-dir): the extension channel is as private as the user's files", "dir", area)
	}
	return extensions.Options{
		Dirs: b.cfg.Extensions, MaxFileSize: b.cfg.MaxFileSize, TempDir: b.sandbox.TempDir(), PrivateDir: area, Environ: environ,
		RunsCommands: !b.cfg.ReadOnly && !b.cfg.disabled(boristools.Bash), Builtin: builtinTool,
		Keep: func(t toolkit.Tool) bool { return !b.cfg.leavesOut(t) }, Around: b.around, Log: b.log,
	}
}

// builtinTool reports whether name is one of Boris's own tools in any
// mode, which an extension may not take.
func builtinTool(name string) bool {
	return slices.Contains(builtinNames(), name) || boristools.Builtin(name)
}

// builtinNames are the names of the tools Boris offers with every toolset
// on, listed once.
var builtinNames = sync.OnceValue(func() []string {
	return toolNames(&Config{Toolset: "all", Checkpoints: "on", WorkspacesRoot: "x"}, func(toolkit.Tool) bool { return false })
})

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
