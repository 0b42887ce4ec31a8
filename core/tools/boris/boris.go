// Package boris is Boris's own toolset (--toolset boris or all,
// docs/reference/core.md): bash and its background tasks (task_output, task_stop),
// view, str_replace and create_file (or, with --anthropic-compat, one
// editor tool of Anthropic's schema), grep and glob. It imports the
// shared kit (toolkit, scope, shell, checkpoint, search), never another
// toolset or the core: what it needs of them comes through Deps.
package boris

import (
	"context"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/checkpoint"
	"github.com/mjkoo/boris/core/seen"
	"github.com/mjkoo/boris/core/shell"
	"github.com/mjkoo/boris/core/toolkit"
	"github.com/mjkoo/boris/internal/flagenv"
)

// Deps is what the tools need: the files they act on, the shell that runs
// commands, the checkpoint recorder (nil when off), and the editor's
// undo_edit, which the checkpoint toolset answers.
type Deps interface {
	toolkit.Files
	Shell() *shell.Shell
	Recorder() *checkpoint.Recorder
	UndoLastEdit(ctx context.Context, req *mcp.CallToolRequest, path string) (*mcp.CallToolResult, error)
}

// Options are the configuration the tools follow.
type Options struct {
	MaxFileSize           flagenv.Size    // --max-file-size
	ReadOnly              bool            // --read-only: the editor keeps only view
	AnthropicCompat       AnthropicCompat // --anthropic-compat
	Timeout               int             // --timeout: a foreground command's default, in seconds
	BackgroundTaskTimeout int             // --background-task-timeout, seconds; 0: none
	BackgroundTaskLimit   int             // --background-task-limit
	Log                   *slog.Logger
	// Seen is how the session last saw each file, shared with the other
	// file tools; if nil, the toolset keeps its own.
	Seen *seen.Tracker
}

// tools are the toolset's tools over their dependencies.
type tools struct {
	d    Deps
	opt  Options
	seen *seen.Tracker // how the session last saw each file
}

// ID names the toolset: --toolset boris selects it (and all).
const ID toolkit.ID = "boris"

// Tools are the toolset's tools. --read-only leaves out the writing ones
// (the editor narrows itself to view); a disabled bash the ones that run
// commands.
func Tools(d Deps, opt Options) []toolkit.Tool {
	b := &tools{d: d, opt: opt, seen: opt.Seen}
	if b.seen == nil {
		b.seen = seen.New()
	}
	tools := toolkit.Set(ID,
		toolkit.New(bashTool, b.bash).Running(),
		toolkit.New(taskOutputTool, b.taskOutput).Running(),
		toolkit.New(taskStopTool, b.taskStop).Running(),
		b.grepEntry(),
		toolkit.New(globTool, b.glob),
	)
	if opt.AnthropicCompat.Enabled() {
		return append(tools, toolkit.Set(ID, toolkit.New(b.editorTool(), b.editor))...)
	}
	return append(tools, toolkit.Set(ID,
		toolkit.New(viewTool, b.view),
		toolkit.New(strReplaceTool, b.strReplace).Writing(),
		toolkit.New(createFileTool, b.createFile).Writing(),
	)...)
}

// Instructions is the toolset's line in the server's instructions: how
// to edit, when an editing tool is registered, and how to run long
// commands, when bash and its tasks are.
func Instructions(r toolkit.Registered) string {
	var line string
	if r.Has(strReplaceTool.Name) || r.Has(editorBare.name) || r.Has(editor20250728.name) {
		line += " View a file before editing it; str_replace needs old_str to match exactly once unless replace_all is set."
	}
	if r.Has(bashTool.Name) && r.Has(taskOutputTool.Name) {
		line += " For long commands (builds, test suites, servers) use bash with run_in_background and read the output with task_output."
	}
	return line
}

// Builtin reports whether name is one of the toolset's tools in any
// configuration: an extension tool may not take it.
func Builtin(name string) bool {
	return name == editorBare.name || name == editor20250728.name || name == "insert"
}
