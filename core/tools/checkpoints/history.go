// Package checkpoints is the checkpoint toolset (docs/reference/core.md#checkpoints): history lists the
// checkpoints the recorder (checkpoint.Recorder) took, diff shows one,
// undo reverts one, and UndoLastEdit is the editor's undo_edit over the
// same logic. It imports the shared kit, never another toolset or the
// core.
package checkpoints

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/checkpoint"
	"github.com/mjkoo/boris/core/toolkit"
	"github.com/mjkoo/boris/internal/plural"
)

// ID names the checkpoint tools' toolset.
const ID toolkit.ID = "checkpoints"

// Deps is what the checkpoint tools need: the files they act on and the
// recorder, nil when checkpoints are off.
type Deps interface {
	toolkit.Files
	Recorder() *checkpoint.Recorder
}

// tools are the checkpoint tools over their dependencies.
type tools struct{ d Deps }

// Tools are history, diff and undo; undo writes files, so --read-only
// leaves it out.
func Tools(d Deps) []toolkit.Tool {
	h := tools{d}
	return toolkit.Set(ID,
		toolkit.New(historyTool, h.history),
		toolkit.New(diffTool, h.diff),
		toolkit.New(undoTool, h.undo).Writing(),
	)
}

// Instructions is the toolset's line in the server's instructions, when
// history is registered: every change is recorded, and how to get back to
// one. Changes made by commands count too when a tool runs them.
func Instructions(r toolkit.Registered) string {
	if !r.Has(historyTool.Name) {
		return ""
	}
	also := ""
	if r.Runs() {
		also = " (bash included, within the working tree)"
	}
	return " Every change made through these tools" + also + " is recorded as a checkpoint: " +
		"history lists them, diff shows one, undo reverts one (and can itself be undone)."
}

// open resolves a checkpoint tool's path argument (checkpointPath), waits
// until every change made so far is recorded (for undo, change: and
// records what changed outside Boris first), and returns the shadow
// repository with the path, or why there is none: it could not be opened
// in this session.
func (h tools) open(ctx context.Context, arg string, change bool) (*checkpoint.Store, string, error) {
	path, err := h.checkpointPath(arg)
	if err != nil {
		return nil, "", err
	}
	if rec := h.d.Recorder(); change {
		rec.BeforeChange(ctx)
	} else {
		rec.Await(ctx)
	}
	if st := h.d.Recorder().Store(); st != nil {
		return st, path, nil
	}
	return nil, "", toolkit.Fail(toolkit.IOError, "checkpoints are unavailable in this session: %v", h.d.Recorder().Err())
}

// IsTool reports whether name is one of the checkpoint tools.
func IsTool(name string) bool {
	return name == "history" || name == "diff" || name == "undo"
}

// defaultHistoryLimit is how many checkpoints history lists unless asked.
const defaultHistoryLimit = 20

// maxFilesShown is how many changed paths history lists per checkpoint.
const maxFilesShown = 20

type historyParams struct {
	Path  string `json:"path,omitempty" jsonschema:"only checkpoints that changed this file or something below this directory; relative paths resolve against the working directory"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many checkpoints to list, newest first; default 20"`
}

var historyTool = &mcp.Tool{
	Name: "history",
	Description: "List checkpoints, newest first. A checkpoint is recorded after every tool call that changed files in the working tree " +
		"(str_replace, create_file, insert, bash, background tasks when they end, undo), and before such a call any change made outside this server " +
		"is recorded as its own checkpoint (tool outside). Each shows its id (cp_N), time, the tool and call, and the files it changed " +
		"(A added, M modified, D deleted). Use diff to see a checkpoint's change and undo to revert it.",
	Annotations: &mcp.ToolAnnotations{Title: "Checkpoint history", ReadOnlyHint: true, OpenWorldHint: toolkit.Ptr(false)},
}

// history implements the history tool (docs/reference/core.md#checkpoints).
func (h tools) history(ctx context.Context, _ *mcp.CallToolRequest, p historyParams) (*mcp.CallToolResult, error) {
	if p.Limit < 0 {
		return nil, toolkit.Fail(toolkit.InvalidInput, "limit must be 1 or more, got %d", p.Limit)
	}
	limit := p.Limit
	if limit == 0 {
		limit = defaultHistoryLimit
	}
	st, path, err := h.open(ctx, p.Path, false)
	if err != nil {
		return nil, err
	}
	cps, err := st.History(ctx, path, limit)
	if err != nil {
		return nil, err
	}
	var sb strings.Builder
	if gaps := h.d.Recorder().Gaps(); len(gaps) > 0 && path == "" {
		sb.WriteString(strings.Join(gaps, "\n") + "\n")
	}
	if len(cps) == 0 {
		sb.WriteString("No checkpoints recorded yet.")
		return toolkit.TextResult(sb.String()), nil
	}
	for _, cp := range cps {
		fmt.Fprintf(&sb, "%s  %s  %s: %s\n", cp.ID, time.Unix(cp.Time, 0).Format("2006-01-02 15:04:05"), cp.Tool, cp.Summary)
		for i, f := range cp.Files {
			if i == maxFilesShown {
				fmt.Fprintf(&sb, "    ... and %s (diff shows them all)\n", plural.N(len(cp.Files)-i, "more file", "more files"))
				break
			}
			fmt.Fprintf(&sb, "    %s %s\n", f.Status, f.Path)
		}
	}
	return toolkit.TextResult(strings.TrimSuffix(sb.String(), "\n")), nil
}

// checkpointPath resolves a path argument of the checkpoint tools: empty
// stays empty (the whole tree); others are resolved and checked like
// every file tool's.
func (h tools) checkpointPath(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	// A link is named by its own path, which is what the checkpoints
	// record: only its directories are resolved.
	if !filepath.IsAbs(path) {
		path = filepath.Join(h.d.Dir(), path)
	}
	dir, base := filepath.Split(filepath.Clean(path))
	if base == "" {
		return h.d.Policy().Resolve(h.d.Dir(), path)
	}
	rdir, err := h.d.Policy().Resolve(h.d.Dir(), dir)
	if err != nil {
		return "", err
	}
	abs := filepath.Join(rdir, base)
	if err := h.d.Policy().Check(abs); err != nil {
		return "", err
	}
	return abs, nil
}
