package gateway

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"time"
)

// maxLogins bounds the dashboard logins held at once; past it the one
// closest to expiring goes.
const maxLogins = 1024

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
	expires time.Time
}

func newLoginStore(lifetime time.Duration) *loginStore {
	if lifetime <= 0 {
		lifetime = 12 * time.Hour
	}
	return &loginStore{lifetime: lifetime, logins: map[[32]byte]login{}}
}

// add records a login for token and returns its cookie value (256 random
// bits, hex) and when it expires.
func (s *loginStore) add(token string) (string, time.Time) {
	var b [32]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	expires := time.Now().Add(s.lifetime)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prune()
	s.logins[sha256.Sum256([]byte(id))] = login{token: token, expires: expires}
	return id, expires
}

// prune drops expired logins and, at maxLogins, the one expiring first.
// Called with mu held.
func (s *loginStore) prune() {
	now := time.Now()
	var first [32]byte
	var firstAt time.Time
	for k, l := range s.logins {
		if now.After(l.expires) {
			delete(s.logins, k)
			continue
		}
		if firstAt.IsZero() || l.expires.Before(firstAt) {
			first, firstAt = k, l.expires
		}
	}
	if len(s.logins) >= maxLogins {
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
