package shell

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// Errors from Start and Lookup; the errors returned wrap one of them.
var (
	ErrTaskLimit     = errors.New("shell: background task limit reached")
	ErrTaskUnknown   = errors.New("shell: no such background task")
	ErrTaskCollected = errors.New("shell: background task already collected")
	ErrTaskDiscarded = errors.New("shell: background task discarded")
)

const (
	// maxFinished bounds the finished tasks whose output has not been
	// collected: each holds up to two capped buffers, so an agent that
	// never reads its tasks' output must not make memory grow. Start
	// discards the oldest beyond it.
	maxFinished = 64

	// maxForgotten bounds the collected or discarded ids remembered only to
	// explain a later lookup of them.
	maxForgotten = 256
)

// taskTable is a Shell's table of background tasks by id.
type taskTable struct {
	mu        sync.Mutex
	held      map[string]*Task // started, not yet collected or discarded
	seq       int
	forgotten map[string]error // id -> ErrTaskCollected or ErrTaskDiscarded
	order     []string         // forgotten ids, oldest first
}

// Lookup returns the task with id. For an id it does not hold, the error
// wraps ErrTaskCollected or ErrTaskDiscarded when the id was one of the
// last few hundred forgotten, else ErrTaskUnknown.
func (s *Shell) Lookup(id string) (*Task, error) {
	s.tasks.mu.Lock()
	defer s.tasks.mu.Unlock()
	if t := s.tasks.held[id]; t != nil {
		return t, nil
	}
	if why := s.tasks.forgotten[id]; why != nil {
		return nil, fmt.Errorf("%w: %s", why, id)
	}
	return nil, fmt.Errorf("%w: %s", ErrTaskUnknown, id)
}

// Tasks returns the tasks the table holds (running, or finished and not
// yet collected) in the order they were started.
func (s *Shell) Tasks() []*Task {
	s.tasks.mu.Lock()
	defer s.tasks.mu.Unlock()
	return s.tasks.list()
}

// Collect removes t from the table once its final output has been
// delivered; a later Lookup of its id wraps ErrTaskCollected. A running
// task is left alone: its output is not final yet.
func (s *Shell) Collect(t *Task) {
	if !t.Finished() {
		return
	}
	s.tasks.mu.Lock()
	defer s.tasks.mu.Unlock()
	if s.tasks.held[t.id] == t {
		s.tasks.forget(t.id, ErrTaskCollected)
	}
}

// checkLimit fails when max tasks are running (max 0 = no limit).
func (tt *taskTable) checkLimit(max int) error {
	if max <= 0 {
		return nil
	}
	running := 0
	for _, t := range tt.held {
		if !t.Finished() {
			running++
		}
	}
	if running >= max {
		return fmt.Errorf("%w: %d running", ErrTaskLimit, running)
	}
	return nil
}

// newID returns an id no held or remembered task has. 32 random bits keep
// ids short enough to read and type, and hard to guess.
func (tt *taskTable) newID() string {
	for {
		var b [4]byte
		_, _ = rand.Read(b[:]) // never fails (crypto/rand, Go 1.24+)
		id := "task_" + hex.EncodeToString(b[:])
		if tt.held[id] == nil && tt.forgotten[id] == nil {
			return id
		}
	}
}

// add puts t in the table and discards the oldest finished tasks beyond
// maxFinished.
func (tt *taskTable) add(t *Task) {
	if tt.held == nil {
		tt.held = make(map[string]*Task)
		tt.forgotten = make(map[string]error)
	}
	tt.seq++
	t.seq = tt.seq
	tt.held[t.id] = t
	var finished []*Task
	for _, h := range tt.list() {
		if h.Finished() {
			finished = append(finished, h)
		}
	}
	for _, h := range finished[:max(0, len(finished)-maxFinished)] {
		tt.forget(h.id, ErrTaskDiscarded)
	}
}

// list returns the held tasks in start order.
func (tt *taskTable) list() []*Task {
	var ts []*Task
	for _, t := range tt.held {
		ts = append(ts, t)
	}
	slices.SortFunc(ts, func(a, b *Task) int { return a.seq - b.seq })
	return ts
}

// forget drops id from the table, remembering why for the last
// maxForgotten ids.
func (tt *taskTable) forget(id string, why error) {
	delete(tt.held, id)
	tt.forgotten[id] = why
	tt.order = append(tt.order, id)
	if len(tt.order) > maxForgotten {
		delete(tt.forgotten, tt.order[0])
		tt.order = tt.order[1:]
	}
}
