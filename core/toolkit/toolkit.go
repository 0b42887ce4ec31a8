// Package toolkit provides what every toolset of the core shares: the
// stable error codes of tool results (docs/reference/core.md#errors), the errors that carry
// them, the mapping of any error onto them, and the result helpers, so a
// toolset's package needs the core for none of it.
package toolkit

import (
	"errors"
	"fmt"
	"io/fs"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/checkpoint"
	"github.com/mjkoo/boris/core/scope"
)

// Code is the stable identifier at the start of every tool error's text,
// "[CODE] message" (docs/reference/core.md#errors). Agents and scripts may match on it; the
// message after it is for reading and may change.
type Code string

// The documented set of tool error codes. New codes may be added; existing
// ones keep their meaning.
const (
	InvalidInput       Code = "INVALID_INPUT"        // arguments missing, malformed or out of range; a FIFO or device for a file
	PathNotFound       Code = "PATH_NOT_FOUND"       // the file or directory does not exist
	AccessDenied       Code = "ACCESS_DENIED"        // outside --allow-dir or matching --deny-dir
	FileTooLarge       Code = "FILE_TOO_LARGE"       // over --max-file-size
	BinaryFile         Code = "BINARY_FILE"          // view of a non-image binary file
	IsDirectory        Code = "IS_DIRECTORY"         // a file operation named a directory
	IOError            Code = "IO_ERROR"             // the filesystem failed
	NotFoundInFile     Code = "NOT_FOUND_IN_FILE"    // str_replace: old_str does not occur
	AmbiguousMatch     Code = "AMBIGUOUS_MATCH"      // str_replace: old_str occurs more than once
	ExecError          Code = "EXEC_ERROR"           // the shell could not be started
	TaskNotFound       Code = "TASK_NOT_FOUND"       // unknown or already collected background task
	TaskLimit          Code = "TASK_LIMIT"           // --background-task-limit tasks already running
	CheckpointNotFound Code = "CHECKPOINT_NOT_FOUND" // history/diff/undo: no such checkpoint kept, or nothing before it to restore
	WorkspaceNotFound  Code = "WORKSPACE_NOT_FOUND"  // workspaceId names no workspace
	Conflict           Code = "CONFLICT"             // undo: a later change made outside Boris touched the same files
	// The work-tracking tools' codes (docs/reference/core.md#work-tracking). Their tasks are board
	// entries (W-12), not background commands: TASK_NOT_FOUND is not theirs.
	BoardTaskNotFound Code = "BOARD_TASK_NOT_FOUND" // no task on the board has that id
	BoardTaskInUse    Code = "BOARD_TASK_IN_USE"    // delete_task: other tasks wait for it or are its subtasks
	BlockerCycle      Code = "BLOCKER_CYCLE"        // add_blocker: the blocker would close a cycle
	BlockerNotFound   Code = "BLOCKER_NOT_FOUND"    // remove_blocker: task_id does not wait for blocked_by_id
	BoardUnavailable  Code = "BOARD_UNAVAILABLE"    // the --tasks-db database cannot be opened
)

// Error is a tool's operational failure: it becomes a CallToolResult with
// isError set, never a JSON-RPC error.
type Error struct {
	Code Code
	Msg  string
}

// Error is "[CODE] message".
func (e *Error) Error() string { return fmt.Sprintf("[%s] %s", e.Code, e.Msg) }

// Fail builds an *Error.
func Fail(code Code, format string, args ...any) error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// Classify maps any error a tool returns onto the code set: scoping refusals
// and missing files keep their meaning wherever they come from.
func Classify(err error) *Error {
	var te *Error
	switch {
	case errors.As(err, &te):
		return te
	case errors.Is(err, scope.ErrDenied):
		return &Error{Code: AccessDenied, Msg: err.Error()}
	case errors.Is(err, scope.ErrEmptyPath):
		return &Error{Code: InvalidInput, Msg: err.Error()}
	case errors.Is(err, checkpoint.ErrNotFound), errors.Is(err, checkpoint.ErrNoParent):
		return &Error{Code: CheckpointNotFound, Msg: err.Error()}
	case errors.Is(err, scope.ErrSpecialFile):
		// A FIFO or device is refused before anything reads or writes it
		// (reading could block forever or never end).
		return &Error{Code: InvalidInput, Msg: err.Error() + "; file tools only read and write regular files (use bash for pipes and devices)"}
	case errors.Is(err, fs.ErrNotExist):
		return &Error{Code: PathNotFound, Msg: err.Error()}
	default:
		return &Error{Code: IOError, Msg: err.Error()}
	}
}

// ErrorResult renders err as an isError tool result.
func ErrorResult(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: Classify(err).Error()}},
	}
}

// MaxResultText bounds the text a tool result holds, in bytes: far below
// the 64 MiB a boris-gateway message may hold, so that no answer, however
// much was asked for, can cost more than its own request. grep, glob, view
// and its listings stop at it (with a note saying how to see the rest);
// CapResult holds every other result to it with a little slack for notes.
const MaxResultText = 1 << 20

// ResultSlack is what a tool may add after a page cut at MaxResultText:
// paging notes, the [Skipped: ...] line.
const ResultSlack = 64 << 10

// CapResult cuts the text of res beyond maxResultText plus resultSlack,
// at a character boundary, and says so. It is the safety net behind the
// tools' own limits.
func CapResult(res *mcp.CallToolResult) {
	budget := MaxResultText + ResultSlack
	for i, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			continue
		}
		if len(tc.Text) <= budget {
			budget -= len(tc.Text)
			continue
		}
		cut := budget
		for cut > 0 && !utf8.RuneStart(tc.Text[cut]) {
			cut--
		}
		text := tc.Text[:cut] + fmt.Sprintf("\n[Result cut: it held %d bytes, more than the %d a result may hold. Ask for less: a view_range, a head_limit, a narrower path or pattern.]\n", len(tc.Text), MaxResultText)
		res.Content = append(res.Content[:i:i], &mcp.TextContent{Text: text})
		return
	}
}

// TextResult is a successful result of one text block.
func TextResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}
