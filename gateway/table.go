package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/mjkoo/boris/internal/plural"
)

// table holds the open sessions and ends them: on DELETE, idle timeout,
// lifetime, core exit or shutdown, always through end. It also keeps who
// owns each session and how many sessions each subject holds.
type table struct {
	max      int
	idle     time.Duration
	lifetime time.Duration
	grace    time.Duration // between SIGTERM and SIGKILL of a core
	window   time.Duration // streams' replay window, swept by reap; 0: none
	log      *slog.Logger

	mu       sync.Mutex
	sessions map[string]*session
	owners   map[string]owner // by session id; set by bind before the id is given out
	reserved int              // spawns in progress, counted against max
	held     map[string]int   // by Principal.SubjectKey: sessions open or reserved
	// principals are the principals' cores (2026-07-28), by Principal.Key;
	// starting, those being started, each closed once started or failed.
	principals map[string]*session
	starting   map[string]chan struct{}
}

// owner is the principal a session is bound to.
type owner struct {
	key     string // Principal.Key: who may use the session
	subject string // Principal.SubjectKey: whose quota it counts against
}

// Refusals of reserve.
var (
	errFull        = errors.New("the gateway is at its session limit")
	errSubjectFull = errors.New("per-subject session limit")
)

func newTable(max int, idle, lifetime time.Duration, log *slog.Logger) *table {
	return &table{
		max: max, idle: idle, lifetime: lifetime, grace: 3 * time.Second, log: log,
		sessions: map[string]*session{}, owners: map[string]owner{}, held: map[string]int{},
		principals: map[string]*session{}, starting: map[string]chan struct{}{},
	}
}

// shedReplay sheds one event of replay history from the session other
// than except that keeps the most, and reports whether there was any: the
// gateway's budget is full, and history kept for a client that may come
// back gives way to a reply a client is waiting for, whoever's it is.
func (t *table) shedReplay(except *session) bool {
	t.mu.Lock()
	others := make([]*session, 0, len(t.sessions))
	for _, s := range t.sessions {
		if s != except {
			others = append(others, s)
		}
	}
	t.mu.Unlock()
	var most *session
	var kept int64
	for _, s := range others {
		s.mu.Lock()
		if n := s.replayBytesLocked(); n > kept {
			most, kept = s, n
		}
		s.mu.Unlock()
	}
	if most == nil {
		return false
	}
	most.mu.Lock()
	defer most.mu.Unlock()
	return most.shedLocked()
}

// reserve claims a slot for a new session of p: errSubjectFull when p's
// subject already holds perSubject sessions (open or starting), errFull
// when the gateway holds its maximum. The anonymous principal (no
// authentication) has no per-subject limit: it is everyone.
func (t *table) reserve(p Principal, perSubject int) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case p.SubjectKey != "" && t.held[p.SubjectKey] >= perSubject:
		return fmt.Errorf("%w: this subject holds its maximum of %s", errSubjectFull, plural.S(perSubject, "session"))
	case len(t.sessions)+t.reserved >= t.max:
		return errFull
	}
	t.reserved++
	t.held[p.SubjectKey]++
	return nil
}

// release gives back p's slot whose session was not created.
func (t *table) release(p Principal) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.reserved--
	t.unhold(p.SubjectKey)
}

// unhold counts one session fewer for subject. Called with mu held.
func (t *table) unhold(subject string) {
	t.held[subject]--
	if t.held[subject] <= 0 {
		delete(t.held, subject)
	}
}

// add turns a reservation into an open session, usable once bound.
func (t *table) add(s *session) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.reserved--
	t.sessions[s.id] = s
}

// bind makes p the owner of s, which p reserved: from now on lookup finds s
// for p's key only, and end gives back p's per-subject slot. A session that
// ended before it was bound gives the slot back here.
func (t *table) bind(s *session, p Principal) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sessions[s.id] != s {
		t.unhold(p.SubjectKey)
		return
	}
	t.owners[s.id] = owner{key: p.Key, subject: p.SubjectKey}
}

// get returns the open session with id, whoever owns it.
func (t *table) get(id string) *session {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sessions[id]
}

// lookup returns the open session with id if it is bound to the principal
// key, else nil: to a request, another principal's sessions do not exist,
// and neither do principals' cores, which are no session a client names.
func (t *table) lookup(id, key string) *session {
	t.mu.Lock()
	defer t.mu.Unlock()
	if o, ok := t.owners[id]; !ok || o.key != key {
		return nil
	}
	if s := t.sessions[id]; s != nil && s.principal == nil {
		return s
	}
	return nil
}

// principalCore returns the core of the principal key. If there is none,
// it returns a channel closed once the one being started is started (or
// failed to), or, if none is being started, nil for both: the caller is
// to start it and report with started.
func (t *table) principalCore(key string) (*session, chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := t.principals[key]; s != nil {
		return s, nil
	}
	if wait := t.starting[key]; wait != nil {
		return nil, wait
	}
	t.starting[key] = make(chan struct{})
	return nil, nil
}

// started ends the start of key's core: s, or nil if it failed.
func (t *table) started(key string, s *session) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s != nil && t.sessions[s.id] == s {
		t.principals[key] = s
	}
	close(t.starting[key])
	delete(t.starting, key)
}

// heldBy reports how many sessions the subject key holds, open or starting.
func (t *table) heldBy(subject string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.held[subject]
}

// Count reports the open sessions, principals' cores included.
func (t *table) Count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.sessions)
}

// busy reports whether any session has a client request in flight.
func (t *table) busy() bool {
	t.mu.Lock()
	all := make([]*session, 0, len(t.sessions))
	for _, s := range t.sessions {
		all = append(all, s)
	}
	t.mu.Unlock()
	for _, s := range all {
		s.mu.Lock()
		n := s.attachedLocked()
		s.mu.Unlock()
		if n > 0 {
			return true
		}
	}
	return false
}

// CountPrincipals reports the principals' cores.
func (t *table) CountPrincipals() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.principals)
}

// end is the one way a session ends, whatever the cause: it leaves the
// table (later requests get 404), wakes every waiting request, and stops
// the core, returning once it is reaped. Safe to call more than once.
func (t *table) end(s *session, reason string) {
	s.closeOnce.Do(func() {
		t.mu.Lock()
		delete(t.sessions, s.id)
		if o, ok := t.owners[s.id]; ok {
			delete(t.owners, s.id)
			t.unhold(o.subject)
			if t.principals[o.key] == s {
				delete(t.principals, o.key)
			}
		}
		t.mu.Unlock()
		s.reason = reason
		close(s.done)
		s.held.close() // what it held is garbage now, whoever holds it
		s.core.Stop(t.grace)
		t.log.Info("session ended", "session", s.id, "subject", s.subject, "reason", reason,
			"age", time.Since(s.created).Round(time.Millisecond))
	})
	<-s.core.Exited
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
	if t.window > 0 {
		every = min(every, t.window/4)
	}
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
			all := make([]*session, 0, len(t.sessions))
			for _, s := range t.sessions {
				if why := t.expired(s, now); why != "" {
					due[s] = why
				}
				all = append(all, s)
			}
			t.mu.Unlock()
			for _, s := range all {
				s.sweepReplay(now)
			}
			for s, why := range due {
				go t.end(s, why)
			}
		}
	}
}

// ownerOf returns the Principal.SubjectKey s is bound to, or "".
func (t *table) ownerOf(s *session) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.owners[s.id].subject
}
