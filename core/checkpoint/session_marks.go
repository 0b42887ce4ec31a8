package checkpoint

import (
	"strconv"
	"strings"
	"sync"
)

// ownIDs are the checkpoints a recorder recorded for its own session's
// calls (outside ones excepted): what a session may tell apart from
// another session's work on the same tree, whose checkpoints share the
// history.
type ownIDs struct {
	mu  sync.Mutex
	ids map[string]bool
}

// note remembers cp when a call of this session made it.
func (o *ownIDs) note(cp *Checkpoint) {
	if cp == nil || cp.Tool == OutsideTool {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ids == nil {
		o.ids = map[string]bool{}
	}
	o.ids[cp.ID] = true
}

// Own reports whether checkpoint id records a call of this recorder's
// session (not an outside change, nor another session's call).
func (r *Recorder) Own(id string) bool {
	if r == nil {
		return false
	}
	r.own.mu.Lock()
	defer r.own.mu.Unlock()
	return r.own.ids[id]
}

// Mark is the sequence number of the newest checkpoint in the store (0
// when none), read without git and without waiting: a session notes it
// when it sees a file, and later checkpoints are the changes made since.
// ok is false while the store is not open (or checkpoints are off).
func (r *Recorder) Mark() (seq int, ok bool) {
	if r == nil {
		return 0, false
	}
	select {
	case <-r.opened:
	default:
		return 0, false
	}
	if r.store == nil {
		return 0, false
	}
	return r.store.readInt("seq"), true
}

// Seq is the sequence number of checkpoint id ("cp_12" is 12), or 0.
func Seq(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, idPrefix))
	return n
}
