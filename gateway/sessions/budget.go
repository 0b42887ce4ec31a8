package sessions

import (
	"sync"
)

// Budget bounds bytes of core messages the gateway holds: read from a
// core, not yet written to a client (or dropped). One budget per session
// and one for the whole gateway keep memory bounded whatever clients do: a
// client that never reads its replies makes its session's later replies
// fail with a clear error, it does not grow the gateway.
type Budget struct {
	mu     sync.Mutex
	used   int64
	max    int64
	parent *Budget // the gateway's, for a session's budget; nil for the gateway's
	closed bool    // the session ended: what it held went back to parent
}

// take claims n bytes of b and of its parent, or reports which is full
// ("" when the claim succeeded).
func (b *Budget) take(n int64) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return "" // nothing is delivered any more; nothing to account
	}
	if b.used+n > b.max {
		return "session"
	}
	if b.parent != nil && !b.parent.takeOne(n) {
		return "gateway"
	}
	b.used += n
	return ""
}

func (b *Budget) takeOne(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.max {
		return false
	}
	b.used += n
	return true
}

// give returns n bytes taken earlier.
func (b *Budget) give(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.used -= n
	if b.parent != nil {
		b.parent.giveOne(n)
	}
}

func (b *Budget) giveOne(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
}

// close gives everything b still holds back to its parent: the messages of
// an ended session are garbage, whoever held them.
func (b *Budget) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.closed = true
	if b.parent != nil {
		b.parent.giveOne(b.used)
	}
	b.used = 0
}

// InUse reports the bytes held.
func (b *Budget) InUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// coreMsg is one message from a core on its way to a client, with the
// budget bytes it holds (0 for the gateway's own error replies).
type coreMsg struct {
	raw  []byte
	held int64
}

// NewBudget returns a budget of max bytes: the gateway's, which sessions'
// budgets draw on.
func NewBudget(max int64) *Budget { return &Budget{max: max} }
