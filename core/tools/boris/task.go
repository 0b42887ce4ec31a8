package boris

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/board"
	"github.com/mjkoo/boris/core/shell"
	"github.com/mjkoo/boris/core/toolkit"
	"github.com/mjkoo/boris/internal/plural"
)

// Background tasks (docs/reference/tools.md#background-tasks): bash with run_in_background starts one,
// task_output reads it, task_stop ends it. The shell keeps the table of
// tasks by id; this file holds what the three tools share.

// Task statuses shown on the "status:" line.
const (
	statusRunning   = "running"
	statusCompleted = "completed" // exited on its own, whatever its exit code
	statusKilled    = "killed"    // ended by task_stop
	statusTimedOut  = "timed_out" // ended by --background-task-timeout
)

// startTask implements bash with run_in_background: start the command and
// return its id at once.
func (b *tools) startTask(command string) (*mcp.CallToolResult, error) {
	limit := b.opt.BackgroundTaskLimit
	if limit == 0 {
		return nil, toolkit.Fail(toolkit.TaskLimit, "background tasks are disabled on this server (--background-task-limit 0); run the command without run_in_background")
	}
	lifetime := time.Duration(b.opt.BackgroundTaskTimeout) * time.Second
	t, err := b.d.Shell().Start(command, shell.Options{Timeout: lifetime, MaxTasks: limit})
	switch {
	case errors.Is(err, shell.ErrTaskLimit):
		return nil, toolkit.Fail(toolkit.TaskLimit, "%s already running (--background-task-limit is %d); "+
			"wait for one to finish (task_output with block: true) or end one with task_stop. Running: %s",
			plural.N(limit, "background task is", "background tasks are"), limit, describeTasks(b.d.Shell().Tasks(), true))
	case err != nil:
		return nil, toolkit.Fail(toolkit.ExecError, "could not start the command: %v", err)
	}
	b.opt.Log.Debug("task started", "task_id", t.ID())
	if b.d.Recorder() != nil {
		queued := b.d.Recorder().TaskStarted(t)
		go func() {
			<-t.Done()
			b.d.Recorder().RecordTask("background task " + t.ID() + ": " + shortCommand(t.Command()))
			queued()
		}()
	}
	text := fmt.Sprintf("task_id: %s\nstatus: %s\n", t.ID(), statusRunning)
	if lifetime > 0 {
		text += fmt.Sprintf("It will be killed if still running after %d s (--background-task-timeout).\n", b.opt.BackgroundTaskTimeout)
	}
	return toolkit.TextResult(text + "Use task_output with this task_id to read its output, task_stop to end it."), nil
}

// lookupTask finds a task by id or explains, in a TASK_NOT_FOUND error, why
// there is none and what to do instead.
func (b *tools) lookupTask(id string) (*shell.Task, error) {
	if strings.TrimSpace(id) == "" {
		return nil, toolkit.Fail(toolkit.InvalidInput, "task_id must not be empty: use the task_id bash returned for a command run with run_in_background")
	}
	t, err := b.d.Shell().Lookup(id)
	switch {
	case err == nil:
		return t, nil
	case errors.Is(err, shell.ErrTaskCollected):
		return nil, toolkit.Fail(toolkit.TaskNotFound, "task %s has finished and its final output was already returned; "+
			"a task's id is forgotten once its final output has been returned", id)
	case errors.Is(err, shell.ErrTaskDiscarded):
		return nil, toolkit.Fail(toolkit.TaskNotFound, "task %s finished and its output was discarded because too many finished tasks were waiting to be read; "+
			"read each task's output with task_output once it finishes", id)
	}
	if _, err := board.ParseID(id); err == nil {
		return nil, toolkit.Fail(toolkit.TaskNotFound, "no background task %s: %s is the id of a task on the task board, not of a background command; "+
			"read it with get_task", id, board.CanonicalID(id))
	}
	held := b.d.Shell().Tasks()
	if len(held) == 0 {
		return nil, toolkit.Fail(toolkit.TaskNotFound, "no background task %s; no tasks are running (start one with bash and run_in_background: true)", id)
	}
	return nil, toolkit.Fail(toolkit.TaskNotFound, "no background task %s; known tasks: %s", id, describeTasks(held, false))
}

// describeTasks lists tasks as "task_1a2b3c4d (running: npm run dev)", or
// only the running ones as "task_1a2b3c4d (npm run dev)" if runningOnly.
func describeTasks(ts []*shell.Task, runningOnly bool) string {
	var parts []string
	for _, t := range ts {
		switch {
		case runningOnly && t.Finished():
		case runningOnly:
			parts = append(parts, fmt.Sprintf("%s (%s)", t.ID(), shortCommand(t.Command())))
		case t.Finished():
			parts = append(parts, fmt.Sprintf("%s (finished: %s)", t.ID(), shortCommand(t.Command())))
		default:
			parts = append(parts, fmt.Sprintf("%s (running: %s)", t.ID(), shortCommand(t.Command())))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// shortCommand is the first line of command, at most 60 characters: enough
// to recognise a task by.
func shortCommand(command string) string {
	line, _, multiline := strings.Cut(strings.TrimSpace(command), "\n")
	if r := []rune(line); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	if multiline {
		return line + " …"
	}
	return line
}

// formatTask renders a task's output in the documented layout:
//
//	task_id: task_1a2b3c4d
//	status: running | completed | killed | timed_out
//	stdout:
//	<stdout>
//	stderr:
//	<stderr>
//	exit_code: N
//
// The stream sections are bash's (writeStreams); exit_code comes only once
// the task has finished.
func formatTask(id string, res *shell.Result, finished bool) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "task_id: %s\nstatus: %s\n", id, taskStatus(res, finished))
	writeStreams(&sb, res)
	if finished {
		fmt.Fprintf(&sb, "exit_code: %d", res.ExitCode)
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

// taskStatus names how a task stands. A task is only ever cancelled by
// task_stop, and only times out on --background-task-timeout.
func taskStatus(res *shell.Result, finished bool) string {
	switch {
	case !finished:
		return statusRunning
	case res.Canceled:
		return statusKilled
	case res.TimedOut:
		return statusTimedOut
	default:
		return statusCompleted
	}
}
