// Package board provides the work-tracking board of docs/reference/core.md#work-tracking: tasks with a
// status, a priority and blockers, kept in one SQLite database that every
// core, the `boris tasks` CLI and the dashboard share.
//
// These tasks are work items an agent or a person writes down. They are not
// the background commands of bash's run_in_background (package shell), and
// their ids say so: "W-12", never "task_1a2b3c4d".
package board

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Status is where a task stands.
type Status string

// The statuses a task can have. Pending and in-progress tasks are open;
// done and cancelled ones are closed, and no longer block anything.
const (
	Pending    Status = "pending"
	InProgress Status = "in_progress"
	Done       Status = "done"
	Cancelled  Status = "cancelled"
)

// Statuses lists every status, in the order a person reads them.
var Statuses = []string{string(Pending), string(InProgress), string(Done), string(Cancelled)}

// Open reports whether a task of status s still needs work.
func (s Status) Open() bool { return s == Pending || s == InProgress }

// Valid reports whether s is one of Statuses.
func (s Status) Valid() bool { return s.Open() || s == Done || s == Cancelled }

// Priorities run from 1 (most urgent) to 5 (least); a task gets
// DefaultPriority unless it says otherwise.
const (
	MinPriority     = 1
	MaxPriority     = 5
	DefaultPriority = 3
)

// Bounds on what a task holds, so that no agent can grow the shared
// database without limit through one field.
const (
	MaxDescription = 4 << 10  // bytes of a description
	MaxText        = 64 << 10 // bytes of a context or a result
	MaxLimit       = 1000     // tasks one List returns at most
	MaxTasks       = 100000   // tasks a board holds at most
	lineRunes      = 200      // characters of a description a listing line shows
	DefaultLimit   = 100      // tasks List returns when asked for none
)

// Task is one work item as the board stores it.
type Task struct {
	ID          string   `json:"id" jsonschema:"the task's id, W- and a number (W-12); never reused"`
	Description string   `json:"description" jsonschema:"what is to be done"`
	Status      Status   `json:"status" jsonschema:"pending, in_progress, done or cancelled"`
	Priority    int      `json:"priority" jsonschema:"1 (most urgent) to 5 (least)"`
	ParentID    string   `json:"parent_id" jsonschema:"the id of the task this one is part of; empty for none"`
	Context     string   `json:"context" jsonschema:"notes for whoever works on it: files, links, constraints; may be empty"`
	Result      string   `json:"result" jsonschema:"what came of it, written when it was finished; may be empty"`
	BlockedBy   []string `json:"blocked_by" jsonschema:"ids of the tasks that must be closed before this one can start, open or not"`
	Ready       bool     `json:"ready" jsonschema:"true when the task is open and none of its blockers is open"`
	CreatedAt   string   `json:"created_at" jsonschema:"when it was created (RFC 3339, UTC)"`
	UpdatedAt   string   `json:"updated_at" jsonschema:"when it last changed (RFC 3339, UTC)"`
}

// Errors the store's methods wrap, so callers can tell refusals apart.
var (
	ErrNotFound = errors.New("no such task")
	ErrCycle    = errors.New("blocker cycle")
	ErrInUse    = errors.New("other tasks depend on it")
	ErrInvalid  = errors.New("invalid value")
)

// idPrefix starts every task id: "W-" for work, unlike a background
// command's "task_1a2b3c4d".
const idPrefix = "W-"

// FormatID is the id of the task stored under key n.
func FormatID(n int64) string { return idPrefix + strconv.FormatInt(n, 10) }

// CanonicalID is id as FormatID writes it ("w-12" and "12" become
// "W-12"), or id unchanged if it is no task id.
func CanonicalID(id string) string {
	n, err := ParseID(id)
	if err != nil {
		return id
	}
	return FormatID(n)
}

// ParseID reads a task id: "W-12", "w-12" or plain "12".
func ParseID(id string) (int64, error) {
	s := strings.TrimSpace(id)
	if len(s) > len(idPrefix) && strings.EqualFold(s[:len(idPrefix)], idPrefix) {
		s = s[len(idPrefix):]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || strings.HasPrefix(s, "+") {
		if strings.HasPrefix(id, "task_") {
			return 0, fmt.Errorf("%w: %q is the id of a background command (bash with run_in_background): read it with task_output; "+
				"board task ids look like W-12", ErrNotFound, id)
		}
		return 0, fmt.Errorf("%w: %q is not a task id (they look like W-12)", ErrNotFound, id)
	}
	return n, nil
}
