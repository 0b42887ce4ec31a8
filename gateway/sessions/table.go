package sessions

import (
	"context"
	"errors"
	"fmt"
	"github.com/mjkoo/boris/gateway/dashboard"
	"log/slog"
	"sync"
	"time"

	"github.com/mjkoo/boris/internal/plural"
)

// Table holds the open sessions and ends them: on DELETE, idle timeout,
// lifetime, core exit or shutdown, always through end. It also keeps who
// owns each session and how many sessions each subject holds.
type Table struct {
	max      int
	idle     time.Duration
	lifetime time.Duration
	Grace    time.Duration // between SIGTERM and SIGKILL of a core
	window   time.Duration // streams' replay window, swept by reap; 0: none
	log      *slog.Logger

	mu       sync.Mutex
	sessions map[string]*Session
	owners   map[string]Owner // by session id; set by bind before the id is given out
	reserved int              // spawns in progress, counted against max
	held     map[string]int   // by Owner.Subject: sessions open or reserved
	// principals are the principals' cores (2026-07-28), by Owner.Key;
	// starting, those being started, each closed once started or failed.
	principals map[string]*Session
	starting   map[string]chan struct{}
}

// Owner is the principal a session is bound to.
type Owner struct {
	Key     string // gateway.Principal.Key: who may use the session
	Subject string // gateway.Principal.SubjectKey: whose quota it counts against
}

// Refusals of Reserve.
var (
	ErrFull        = errors.New("the gateway is at its session limit")
	ErrSubjectFull = errors.New("per-subject session limit")
)

// NewTable returns a table of at most max sessions, ending each after idle
// without requests or lifetime after it began, and sweeping its streams'
// replay window (0: none).
func NewTable(max int, idle, lifetime, window time.Duration, log *slog.Logger) *Table {
	return &Table{
		max: max, idle: idle, lifetime: lifetime, window: window, Grace: 3 * time.Second, log: log,
		sessions: map[string]*Session{}, owners: map[string]Owner{}, held: map[string]int{},
		principals: map[string]*Session{}, starting: map[string]chan struct{}{},
	}
}

// ShedReplay sheds one event of replay history from the session other
// than except that keeps the most, and reports whether there was any: the
// gateway's budget is full, and history kept for a client that may come
// back gives way to a reply a client is waiting for, whoever's it is.
func (t *Table) ShedReplay(except *Session) bool {
	t.mu.Lock()
	others := make([]*Session, 0, len(t.sessions))
	for _, s := range t.sessions {
		if s != except {
			others = append(others, s)
		}
	}
	t.mu.Unlock()
	var most *Session
	var kept int64
	for _, s := range others {
		s.mu.Lock()
		if n := s.streams.replayBytesLocked(); n > kept {
			most, kept = s, n
		}
		s.mu.Unlock()
	}
	if most == nil {
		return false
	}
	most.mu.Lock()
	defer most.mu.Unlock()
	return most.streams.shedLocked()
}

// Reserve claims a slot for a new session of o: ErrSubjectFull when o's
// subject already holds perSubject sessions (open or starting), ErrFull
// when the gateway holds its maximum. The anonymous principal (no
// authentication) has no per-subject limit: it is everyone.
func (t *Table) Reserve(o Owner, perSubject int) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case o.Subject != "" && t.held[o.Subject] >= perSubject:
		return fmt.Errorf("%w: this subject holds its maximum of %s", ErrSubjectFull, plural.S(perSubject, "session"))
	case len(t.sessions)+t.reserved >= t.max:
		return ErrFull
	}
	t.reserved++
	t.held[o.Subject]++
	return nil
}

// Release gives back o's slot whose session was not created.
func (t *Table) Release(o Owner) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.reserved--
	t.unhold(o.Subject)
}

// unhold counts one session fewer for subject. Called with mu held.
func (t *Table) unhold(subject string) {
	t.held[subject]--
	if t.held[subject] <= 0 {
		delete(t.held, subject)
	}
}

// Add turns a reservation into an open session, usable once bound.
func (t *Table) Add(s *Session) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.reserved--
	t.sessions[s.ID] = s
}

// Bind makes o the owner of s, which o reserved: from now on Lookup finds s
// for o's key only, and End gives back o's per-subject slot. A session that
// ended before it was bound gives the slot back here.
func (t *Table) Bind(s *Session, o Owner) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sessions[s.ID] != s {
		t.unhold(o.Subject)
		return
	}
	t.owners[s.ID] = o
}

// Get returns the open session with id, whoever owns it.
func (t *Table) Get(id string) *Session {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sessions[id]
}

// Lookup returns the open session with id if it is bound to the principal
// key, else nil: to a request, another principal's sessions do not exist,
// and neither do principals' cores, which are no session a client names.
func (t *Table) Lookup(id, key string) *Session {
	t.mu.Lock()
	defer t.mu.Unlock()
	if o, ok := t.owners[id]; !ok || o.Key != key {
		return nil
	}
	if s := t.sessions[id]; s != nil && s.principal == nil {
		return s
	}
	return nil
}

// PrincipalCore returns the core of the principal key, held for the
// caller's request (Session.Hold: call release once the request is in
// flight): under the table's lock, so an idle expiry decided at the same
// moment either comes first, and the core is no longer the principal's,
// or sees the request. If there is none, it returns a channel closed once
// the one being started is started (or failed to), or, if none is being
// started, nil for all: the caller is to start it and report with
// Started.
func (t *Table) PrincipalCore(key string) (s *Session, release func(), wait chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := t.principals[key]; s != nil {
		return s, s.Hold(), nil
	}
	if wait := t.starting[key]; wait != nil {
		return nil, nil, wait
	}
	t.starting[key] = make(chan struct{})
	return nil, nil, nil
}

// Started ends the start of key's core: s, or nil if it failed.
func (t *Table) Started(key string, s *Session) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s != nil && t.sessions[s.ID] == s {
		t.principals[key] = s
	}
	close(t.starting[key])
	delete(t.starting, key)
}

// HeldBy reports how many sessions the subject key holds, open or starting.
func (t *Table) HeldBy(subject string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.held[subject]
}

// Count reports the open sessions, principals' cores included.
func (t *Table) Count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.sessions)
}

// Busy reports whether any session has a client request in flight.
func (t *Table) Busy() bool {
	t.mu.Lock()
	all := make([]*Session, 0, len(t.sessions))
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
func (t *Table) CountPrincipals() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.principals)
}

// End is the one way a session ends, whatever the cause: it leaves the
// table (later requests get 404), wakes every waiting request, and stops
// the core, returning once it is reaped. Safe to call more than once.
func (t *Table) End(s *Session, reason string) {
	s.closeOnce.Do(func() {
		t.mu.Lock()
		delete(t.sessions, s.ID)
		if o, ok := t.owners[s.ID]; ok {
			delete(t.owners, s.ID)
			t.unhold(o.Subject)
			if t.principals[o.Key] == s {
				delete(t.principals, o.Key)
			}
		}
		t.mu.Unlock()
		s.reason = reason
		close(s.done)
		s.held.close() // what it held is garbage now, whoever holds it
		s.Core.Stop(t.Grace)
		t.log.Info("session ended", "session", s.ID, "subject", s.Subject, "reason", reason,
			"age", time.Since(s.created).Round(time.Millisecond))
	})
	<-s.Core.Exited
}

// EndAll ends every session concurrently and waits for all.
func (t *Table) EndAll(reason string) {
	t.mu.Lock()
	all := make([]*Session, 0, len(t.sessions))
	for _, s := range t.sessions {
		all = append(all, s)
	}
	t.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Go(func() { t.End(s, reason) })
	}
	wg.Wait()
}

// expired returns why s should end now, or "".
func (t *Table) expired(s *Session, now time.Time) string {
	switch {
	case now.Sub(s.created) >= t.lifetime:
		return "max lifetime reached"
	case !s.inFlight() && now.Sub(time.Unix(0, s.last.Load())) >= t.idle:
		return "idle timeout"
	}
	return ""
}

// Reap ends expired sessions until ctx is done, checking often enough for
// the shortest limit.
func (t *Table) Reap(ctx context.Context) {
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
			due := map[*Session]string{}
			all := make([]*Session, 0, len(t.sessions))
			for _, s := range t.sessions {
				if why := t.expired(s, now); why != "" {
					due[s] = why
					// No later request is handed it (PrincipalCore).
					if o, ok := t.owners[s.ID]; ok && t.principals[o.Key] == s {
						delete(t.principals, o.Key)
					}
				}
				all = append(all, s)
			}
			t.mu.Unlock()
			for _, s := range all {
				s.SweepReplay(now)
			}
			for s, why := range due {
				go t.End(s, why)
			}
		}
	}
}

// OwnerOf returns the Owner.Subject s is bound to, or "".
func (t *Table) OwnerOf(s *Session) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.owners[s.ID].Subject
}

// Cores returns the open cores and their owners, for the dashboard.
func (t *Table) Cores() []dashboard.Core {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]dashboard.Core, 0, len(t.sessions))
	for id, s := range t.sessions {
		out = append(out, dashboard.Core{
			ID: id, Subject: s.Subject, SubjectKey: t.owners[id].Subject, Principal: s.principal != nil,
			Created: s.created, LastActive: time.Unix(0, s.last.Load()), Pid: s.Core.Pid(),
		})
	}
	return out
}
