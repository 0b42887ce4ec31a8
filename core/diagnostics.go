package core

import (
	"context"
	"os"
	"os/exec"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/lsp"
	"github.com/mjkoo/boris/core/toolkit"
	"github.com/mjkoo/boris/core/tools/diagnostics"
)

// openDiagnostics sets up the language servers that check every edit
// (--diagnostics auto): none starts until an edit of its language.
// Servers start the way the session's commands do (launchServer), with
// their environment (env, or environ when commands inherit the core's).
func (b *boris) openDiagnostics(workdir string, env, environ []string) {
	if b.cfg.Diagnostics == "off" {
		return
	}
	if env == nil {
		env = environ
	}
	commands, _ := lsp.ParseCommands(b.cfg.LSP) // checked by validate
	b.diag = lsp.New(lsp.Options{
		Commands: commands,
		Root:     workdir,
		Env:      env,
		Launch:   b.launchServer,
		Read:     b.readChecked,
		Wait:     b.cfg.DiagnosticsWait,
		Log:      b.log.With("component", "lsp"),
	})
}

// readChecked reads a file for a language server as the file tools read
// it: through the path policy, within --max-file-size.
func (b *boris) readChecked(abs string) ([]byte, error) {
	return toolkit.ReadForEdit(b.policy, abs, b.cfg.MaxFileSize)
}

// diagnosticsTools is the diagnostics tool, when diagnostics are on.
func (b *boris) diagnosticsTools() []toolkit.Tool {
	if b.cfg.Diagnostics == "off" {
		return nil
	}
	return diagnostics.Tools(b)
}

// Diagnostics gives the diagnostics tool the session's servers.
func (b *boris) Diagnostics() diagnostics.Source { return b.diag }

// aroundDiagnostics runs a tool call collecting the files it writes,
// then adds to its result what the servers said: first what came late
// for earlier calls, at the start, then the problems this call's edits
// introduced or fixed, at the end.
func (b *boris) aroundDiagnostics(ctx context.Context, run func(context.Context) *mcp.CallToolResult) *mcp.CallToolResult {
	if b.diag == nil {
		return run(ctx)
	}
	late := b.diag.Late()
	ctx, edits := toolkit.WithEdits(ctx, b.diag.Handles, b.readChecked)
	res := run(ctx)
	var now string
	if files := edits.Files(); len(files) > 0 && !res.IsError {
		list := make([]lsp.Edit, len(files))
		for i, f := range files {
			list[i] = lsp.Edit{Path: f.Path, Before: f.Before, Existed: f.Existed}
		}
		now = b.diag.Edited(list)
	}
	if late != "" {
		res.Content = append([]mcp.Content{&mcp.TextContent{Text: late}}, res.Content...)
	}
	if now != "" {
		res.Content = append(res.Content, &mcp.TextContent{Text: now})
	}
	return res
}

// launchServer starts a language server as the session's commands start:
// through the sandbox's spawner (its Landlock rules, namespaces and
// network) when commands use one, else under the sandbox helper, with
// the reaper keeping track of it. Either way it is in the session's
// cgroup, counted in its memory.
func (b *boris) launchServer(argv []string, dir string, env []string, files [3]*os.File) (int, <-chan syscall.WaitStatus, error) {
	if err := b.sandbox.Prepare(); err != nil {
		return 0, nil, err
	}
	if b.sandbox.Spawns() {
		pid, wait, err := b.spawn(argv, dir, env, files)
		if err == nil || b.sandbox.SpawnOnly() {
			return pid, wait, err
		}
	}
	if b.sandbox.Enforced() {
		argv = b.sandbox.Wrap(argv)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = files[0], files[1], files[2]
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := (*exec.Cmd).Start
	if b.reaper != nil {
		start = b.reaper.Start
	}
	if err := start(cmd); err != nil {
		return 0, nil, err
	}
	wait := make(chan syscall.WaitStatus, 1)
	go func() {
		_ = cmd.Wait()
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if b.reaper != nil {
			b.reaper.Done(cmd.Process.Pid)
		}
		wait <- ws
	}()
	return cmd.Process.Pid, wait, nil
}
