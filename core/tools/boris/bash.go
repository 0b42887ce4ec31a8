package boris

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/shell"
	"github.com/mjkoo/boris/core/toolkit"
)

// maxTimeoutMs is the ceiling of bash's timeout parameter; larger values are
// clamped to it (docs/reference/tools.md#bash).
const maxTimeoutMs = 600000

type bashParams struct {
	Command         string `json:"command" jsonschema:"the shell command to run with bash -c (or sh when bash is absent)"`
	Timeout         int    `json:"timeout,omitempty" jsonschema:"timeout in milliseconds; default is the server's --timeout (120000 unless configured); at most 600000"`
	Description     string `json:"description,omitempty" jsonschema:"optional short description of what the command does, for logs"`
	RunInBackground bool   `json:"run_in_background,omitempty" jsonschema:"run the command as a background task: the call returns a task_id at once; read the output with task_output, end it with task_stop. timeout does not apply; the server's --background-task-timeout does, if set"`
}

// Bash names the tool that runs commands: --disable-tools bash leaves out
// every tool that runs them (toolkit.Tool.Exec).
const Bash = "bash"

var bashTool = &mcp.Tool{
	Name: Bash,
	Description: "Run a shell command. stdin is /dev/null; the working directory persists across calls (cd holds for the next call), other shell state does not. " +
		"On timeout the command's whole process group gets SIGTERM, then SIGKILL 5 s later. stdout and stderr are each capped at 30000 characters, keeping the head and the tail. " +
		"The result lists stdout, then stderr (each only when non-empty), then exit_code; a non-zero exit code is not an error. " +
		"Progress notifications with the latest output line are sent while the command runs when the request has a progress token. " +
		"With run_in_background the command becomes a background task (for servers, watchers, long builds): the result is its task_id, task_output reads its output, task_stop ends it; " +
		"it starts in the working directory but its cd does not change the directory of later calls.",
	Annotations: &mcp.ToolAnnotations{Title: "Run shell command", DestructiveHint: toolkit.Ptr(true), OpenWorldHint: toolkit.Ptr(true)},
}

// bash implements the bash tool (docs/reference/tools.md#bash).
func (b *tools) bash(ctx context.Context, req *mcp.CallToolRequest, p bashParams) (*mcp.CallToolResult, error) {
	if strings.TrimSpace(p.Command) == "" {
		return nil, toolkit.Fail(toolkit.InvalidInput, "command must not be empty")
	}
	timeout, err := b.bashTimeout(p.Timeout)
	if err != nil {
		return nil, err
	}
	b.d.Recorder().BeforeCommand(ctx, p.Command)
	if p.RunInBackground {
		return b.startTask(p.Command)
	}
	opts := shell.Options{Timeout: timeout, Progress: progressFunc(ctx, req, timeout)}
	res, err := b.d.Shell().Run(ctx, p.Command, opts)
	if err != nil {
		return nil, toolkit.Fail(toolkit.ExecError, "could not run the command: %v", err)
	}
	b.d.Recorder().Record("bash", p.Command)
	b.opt.Log.Debug("bash done", "exit_code", res.ExitCode, "timed_out", res.TimedOut, "elapsed", res.Elapsed)
	return toolkit.TextResult(formatBash(res, timeout)), nil
}

// bashTimeout turns the timeout parameter (ms) into a duration: 0 means the
// configured default, larger than the ceiling is clamped.
func (b *tools) bashTimeout(ms int) (time.Duration, error) {
	switch {
	case ms < 0:
		return 0, toolkit.Fail(toolkit.InvalidInput, "timeout must be a positive number of milliseconds, got %d", ms)
	case ms == 0:
		ms = b.opt.Timeout * 1000
	}
	return time.Duration(min(ms, maxTimeoutMs)) * time.Millisecond, nil
}

// progressFunc returns a callback sending notifications/progress for req,
// or nil when the client sent no progress token. Progress is the elapsed
// seconds (always increasing), total the timeout, message the latest line.
func progressFunc(ctx context.Context, req *mcp.CallToolRequest, timeout time.Duration) func(time.Duration, string) {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return nil
	}
	return func(elapsed time.Duration, last string) {
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token,
			Progress:      elapsed.Seconds(),
			Total:         timeout.Seconds(),
			Message:       last,
		})
	}
}

// formatBash renders a result in the documented layout:
//
//	stdout:
//	<stdout>
//	stderr:
//	<stderr>
//	timed_out: after 2000 ms, process group terminated
//	exit_code: N
//
// Sections for empty streams are left out; a stream not ending in a newline
// gets one so the next header starts a line. exit_code is always last.
func formatBash(res *shell.Result, timeout time.Duration) string {
	var sb strings.Builder
	writeStreams(&sb, res)
	if res.TimedOut {
		fmt.Fprintf(&sb, "timed_out: after %d ms, process group terminated\n", timeout.Milliseconds())
	}
	fmt.Fprintf(&sb, "exit_code: %d", res.ExitCode)
	return sb.String()
}

// writeStreams writes the stdout and stderr sections of the layout
// formatBash documents; task_output shares them.
func writeStreams(sb *strings.Builder, res *shell.Result) {
	section := func(name, text string) {
		if text == "" {
			return
		}
		sb.WriteString(name + ":\n" + text)
		if !strings.HasSuffix(text, "\n") {
			sb.WriteByte('\n')
		}
	}
	section("stdout", res.Stdout)
	section("stderr", res.Stderr)
}
