package gateway

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// table holds the open sessions and ends them: on DELETE, idle timeout,
// lifetime, core exit or shutdown, always through end.
type table struct {
	max      int
	idle     time.Duration
	lifetime time.Duration
	grace    time.Duration // between SIGTERM and SIGKILL of a core
	log      *slog.Logger

	mu       sync.Mutex
	sessions map[string]*session
	reserved int // spawns in progress, counted against max
}

func newTable(max int, idle, lifetime time.Duration, log *slog.Logger) *table {
	return &table{max: max, idle: idle, lifetime: lifetime, grace: 3 * time.Second, log: log, sessions: map[string]*session{}}
}

// reserve claims a slot for a new session, false when the gateway is full.
func (t *table) reserve() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.sessions)+t.reserved >= t.max {
		return false
	}
	t.reserved++
	return true
}

// release gives back a slot whose session was not created.
func (t *table) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.reserved--
}

// add turns a reservation into an open session.
func (t *table) add(s *session) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.reserved--
	t.sessions[s.id] = s
}

func (t *table) get(id string) *session {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sessions[id]
}

func (t *table) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.sessions)
}

// end is the one way a session ends, whatever the cause: it leaves the
// table (later requests get 404), wakes every waiting request, and stops
// the core, returning once it is reaped. Safe to call more than once.
func (t *table) end(s *session, reason string) {
	s.closeOnce.Do(func() {
		t.mu.Lock()
		delete(t.sessions, s.id)
		t.mu.Unlock()
		s.reason = reason
		close(s.done)
		s.core.stop(t.grace)
		t.log.Info("session ended", "session", s.id, "subject", s.subject, "reason", reason,
			"age", time.Since(s.created).Round(time.Millisecond))
	})
	<-s.core.exited
}

// endAll ends every session concurrently and waits for all.
func (t *table) endAll(reason string) {
	t.mu.Lock()
	all := make([]*session, 0, len(t.sessions))
	for _, s := range t.sessions {
		all = append(all, s)
	}
	t.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Go(func() { t.end(s, reason) })
	}
	wg.Wait()
}

// expired returns why s should end now, or "".
func (t *table) expired(s *session, now time.Time) string {
	switch {
	case now.Sub(s.created) >= t.lifetime:
		return "max lifetime reached"
	case !s.inFlight() && now.Sub(time.Unix(0, s.last.Load())) >= t.idle:
		return "idle timeout"
	}
	return ""
}

// reap ends expired sessions until ctx is done, checking often enough for
// the shortest limit.
func (t *table) reap(ctx context.Context) {
	every := min(t.idle, t.lifetime) / 4
	every = max(min(every, 10*time.Second), 20*time.Millisecond)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			t.mu.Lock()
			due := map[*session]string{}
			for _, s := range t.sessions {
				if why := t.expired(s, now); why != "" {
					due[s] = why
				}
			}
			t.mu.Unlock()
			for s, why := range due {
				go t.end(s, why)
			}
		}
	}
}
