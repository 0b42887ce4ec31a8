package sessions

import (
	"errors"
	"log/slog"
	"testing"
	"time"
)

// TestTableQuota: Reserve counts open and starting sessions per subject,
// whatever their scopes, refuses past the limit with ErrSubjectFull before
// ErrFull, and never limits the anonymous principal; Lookup finds a
// session for its owner's key only, and only once it is bound.
func TestTableQuota(t *testing.T) {
	tb := NewTable(4, time.Hour, time.Hour, 0, slog.New(slog.DiscardHandler))
	alice := Owner{Key: "token\x00alice\x00all", Subject: "token\x00alice"}
	aliceRead := Owner{Key: "token\x00alice\x00read", Subject: "token\x00alice"}
	bob := Owner{Key: "token\x00bob\x00all", Subject: "token\x00bob"}
	anon := Owner{}
	reserve := func(p Owner, want error) {
		t.Helper()
		if err := tb.Reserve(p, 2); !errors.Is(err, want) {
			t.Fatalf("reserve for %q: got %v, want %v", p.Key, err, want)
		}
	}
	reserve(alice, nil)
	reserve(aliceRead, nil)
	reserve(alice, ErrSubjectFull)
	reserve(aliceRead, ErrSubjectFull)
	if got := tb.HeldBy(alice.Subject); got != 2 {
		t.Errorf("alice holds: got %d, want 2", got)
	}
	tb.Release(aliceRead)
	s := &Session{ID: "s1"}
	tb.Add(s)
	if got := tb.Lookup("s1", alice.Key); got != nil {
		t.Errorf("lookup before bind: got %v, want nil", got)
	}
	tb.Bind(s, alice)
	for _, tt := range []struct {
		key  string
		want *Session
	}{{alice.Key, s}, {aliceRead.Key, nil}, {bob.Key, nil}, {anon.Key, nil}} {
		if got := tb.Lookup("s1", tt.key); got != tt.want {
			t.Errorf("lookup s1 as %q: got %v, want %v", tt.key, got, tt.want)
		}
	}
	reserve(bob, nil)
	reserve(bob, nil)
	reserve(aliceRead, nil)
	reserve(bob, ErrSubjectFull) // both limits reached: the subject's is reported
	reserve(anon, ErrFull)
	tb.Release(bob)
	reserve(anon, nil)

	// A session that ends before it is bound gives its subject's slot back.
	tb2 := NewTable(4, time.Hour, time.Hour, 0, slog.New(slog.DiscardHandler))
	if err := tb2.Reserve(bob, 1); err != nil {
		t.Fatal(err)
	}
	s2 := &Session{ID: "s2"}
	tb2.Add(s2)
	tb2.mu.Lock()
	delete(tb2.sessions, s2.ID) // what end does
	tb2.mu.Unlock()
	tb2.Bind(s2, bob)
	if got := tb2.HeldBy(bob.Subject); got != 0 {
		t.Errorf("bob holds after his only session ended unbound: got %d, want 0", got)
	}
	if got := tb2.Lookup("s2", bob.Key); got != nil {
		t.Errorf("lookup of the ended session: got %v, want nil", got)
	}
}
