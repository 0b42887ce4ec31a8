package dashboard

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"time"
)

// Bounds on the dashboard logins held in memory. Each principal keeps at
// most maxLoginsPerPrincipal, its own oldest going first, so that no
// principal can log another out by logging in over and over; maxLogins
// bounds them all together, past which the oldest login of the principal
// holding the most goes.
const (
	maxLogins             = 1024
	maxLoginsPerPrincipal = 16
)

// loginStore holds the dashboard's logins, in memory only (a restart logs
// everyone out). A login is found by the SHA-256 of its cookie value, so
// the map's lookups reveal nothing about the values through timing.
type loginStore struct {
	lifetime time.Duration

	mu     sync.Mutex
	logins map[[32]byte]login
}

// login is one browser's exchanged token.
type login struct {
	token   string // checked again on every use
	subject string // the Principal.SubjectKey the token named at login
	expires time.Time
}

func newLoginStore(lifetime time.Duration) *loginStore {
	if lifetime <= 0 {
		lifetime = 12 * time.Hour
	}
	return &loginStore{lifetime: lifetime, logins: map[[32]byte]login{}}
}

// add records a login of the principal subject (its SubjectKey) with token
// and returns its cookie value (256 random bits, hex) and when it expires.
func (s *loginStore) add(subject, token string) (string, time.Time) {
	var b [32]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	expires := time.Now().Add(s.lifetime)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prune(subject)
	s.logins[sha256.Sum256([]byte(id))] = login{token: token, subject: subject, expires: expires}
	return id, expires
}

// prune makes room for a login of subject: it drops expired logins, then
// subject's oldest while it holds maxLoginsPerPrincipal, then, at
// maxLogins, the oldest of the principal holding the most. Every login
// lives as long, so the oldest is the one expiring first. Called with mu
// held.
func (s *loginStore) prune(subject string) {
	now := time.Now()
	held := map[string]int{}
	for k, l := range s.logins {
		if now.After(l.expires) {
			delete(s.logins, k)
			continue
		}
		held[l.subject]++
	}
	if held[subject] >= maxLoginsPerPrincipal {
		s.dropOldest(subject)
	}
	if len(s.logins) >= maxLogins {
		most := subject
		for sub, n := range held {
			if n > held[most] {
				most = sub
			}
		}
		s.dropOldest(most)
	}
}

// dropOldest ends the login of subject that expires first. Called with mu
// held.
func (s *loginStore) dropOldest(subject string) {
	var first [32]byte
	var firstAt time.Time
	for k, l := range s.logins {
		if l.subject == subject && (firstAt.IsZero() || l.expires.Before(firstAt)) {
			first, firstAt = k, l.expires
		}
	}
	if !firstAt.IsZero() {
		delete(s.logins, first)
	}
}

// token returns the token of the login id names, if it has not expired.
func (s *loginStore) token(id string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := sha256.Sum256([]byte(id))
	l, ok := s.logins[k]
	if !ok || time.Now().After(l.expires) {
		delete(s.logins, k)
		return "", false
	}
	return l.token, true
}

// remove ends the login id names.
func (s *loginStore) remove(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.logins, sha256.Sum256([]byte(id)))
}
