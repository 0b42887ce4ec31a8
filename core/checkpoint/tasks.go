package checkpoint

import (
	"context"
	"sync"
)

// Finisher is a background task as the recorder sees it.
type Finisher interface {
	Finished() bool
}

// taskRecordings holds the background tasks whose checkpoint is not
// queued yet, so that a task that has ended is recorded as its own before
// the next call's outside checkpoint could take its change.
type taskRecordings struct {
	mu      sync.Mutex
	pending map[Finisher]chan struct{}
}

// add registers t and returns what to call once its checkpoint is queued.
func (r *taskRecordings) add(t Finisher) func() {
	ch := make(chan struct{})
	r.mu.Lock()
	if r.pending == nil {
		r.pending = map[Finisher]chan struct{}{}
	}
	r.pending[t] = ch
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		delete(r.pending, t)
		r.mu.Unlock()
		close(ch)
	}
}

// awaitFinished waits until every task that has ended has its checkpoint
// queued (it is, moments after it ends).
func (r *taskRecordings) awaitFinished(ctx context.Context) {
	r.mu.Lock()
	var wait []chan struct{}
	for t, ch := range r.pending {
		if t.Finished() {
			wait = append(wait, ch)
		}
	}
	r.mu.Unlock()
	for _, ch := range wait {
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}

// gate lets recordings in until it is closed, and closing waits for those
// in.
type gate struct {
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// enter reports whether a recording may start; it must leave after.
func (g *gate) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.wg.Add(1)
	return true
}

func (g *gate) leave() { g.wg.Done() }

// close lets no more recordings in and waits for those under way.
func (g *gate) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	g.wg.Wait()
}
