package auth

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync"
)

// minTokenLen is the shortest static token accepted: guessing must not be
// an option.
const minTokenLen = 16

// StaticTokens verifies fixed bearer tokens, from flags and optionally a
// file that Reload re-reads (on SIGHUP).
type StaticTokens struct {
	fixed []staticToken // from flags and environment
	file  string

	mu     sync.RWMutex
	tokens []staticToken // fixed plus the file's
}

type staticToken struct {
	subject string
	digest  [sha256.Size]byte
}

// NewStaticTokens builds a verifier from "NAME=TOKEN" or "TOKEN" specs and
// an optional token file of the same lines (blank lines and # comments
// allowed). A token without a name gets the subject "token-" plus the first
// hex digits of its SHA-256, so logs can tell tokens apart without showing them.
func NewStaticTokens(specs []string, file string) (*StaticTokens, error) {
	st := &StaticTokens{file: file}
	for i, spec := range specs {
		t, err := parseToken(spec)
		if err != nil {
			return nil, fmt.Errorf("token %d: %w", i+1, err)
		}
		st.fixed = append(st.fixed, t)
	}
	return st, st.Reload()
}

// Reload re-reads the token file. On error the previous tokens stay.
func (st *StaticTokens) Reload() error {
	tokens := append([]staticToken{}, st.fixed...)
	if st.file != "" {
		fromFile, err := readTokenFile(st.file)
		if err != nil {
			return err
		}
		tokens = append(tokens, fromFile...)
	}
	st.mu.Lock()
	st.tokens = tokens
	st.mu.Unlock()
	return nil
}

// Len reports how many tokens are configured.
func (st *StaticTokens) Len() int {
	st.mu.RLock()
	defer st.mu.RUnlock()
	return len(st.tokens)
}

func readTokenFile(path string) ([]staticToken, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read token file: %w", err)
	}
	var tokens []staticToken
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		t, err := parseToken(line)
		if err != nil {
			return nil, fmt.Errorf("token file %s line %d: %w", path, n, err)
		}
		tokens = append(tokens, t)
	}
	return tokens, nil
}

func parseToken(spec string) (staticToken, error) {
	name, tok, named := strings.Cut(strings.TrimSpace(spec), "=")
	if !named {
		tok = name
	}
	if len(tok) < minTokenLen {
		return staticToken{}, fmt.Errorf("token shorter than %d characters", minTokenLen)
	}
	t := staticToken{subject: name, digest: sha256.Sum256([]byte(tok))}
	if !named {
		t.subject = "token-" + hex.EncodeToString(t.digest[:4])
	}
	return t, nil
}

// Verify compares token with every configured token in constant time
// (crypto/subtle.ConstantTimeCompare over SHA-256 digests, so neither the
// content nor the length of a configured token leaks through timing, and
// the loop never stops early). A static token grants every scope.
func (st *StaticTokens) Verify(_ context.Context, token string) (*Identity, error) {
	digest := sha256.Sum256([]byte(token))
	st.mu.RLock()
	defer st.mu.RUnlock()
	match := -1
	for i, t := range st.tokens {
		if subtle.ConstantTimeCompare(digest[:], t.digest[:]) == 1 {
			match = i
		}
	}
	if match < 0 {
		if strings.Count(token, ".") == 2 {
			return nil, errNotMine // JWT-shaped: let the JWT verifier explain
		}
		return nil, fmt.Errorf("%w: unknown token", ErrInvalidToken)
	}
	return &Identity{Kind: KindToken, Subject: st.tokens[match].subject, Scopes: AllScopes}, nil
}

// GenerateToken returns a fresh random token: "boris_" and 256 random bits
// in hex. The prefix makes it recognisable to secret scanners and keeps it
// from ever starting with "-", which command lines would take for a flag.
func GenerateToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return "boris_" + hex.EncodeToString(b[:])
}

// AddToken adds a token at run time (the gateway's generated one).
func (st *StaticTokens) AddToken(subject, token string) {
	t := staticToken{subject: subject, digest: sha256.Sum256([]byte(token))}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.fixed = append(st.fixed, t)
	st.tokens = append(st.tokens, t)
}
