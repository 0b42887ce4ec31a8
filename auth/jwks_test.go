package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/mjkoo/boris/auth/authtest"
)

// newJWKSVerifier verifies against srv's set, refreshing at most every
// minRefresh.
func newJWKSVerifier(t *testing.T, srv *authtest.JWKSServer, minRefresh time.Duration) *JWTVerifier {
	t.Helper()
	v, err := NewJWTVerifier(context.Background(), JWTOptions{
		JWKSURL: srv.URL(), Issuer: testIssuer, Audience: testAudience, JWKSMinRefresh: minRefresh,
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// newK1JWKSVerifier serves authtest.Keys().RSA as kid "k1" and verifies
// against it, refreshing at most every minRefresh.
func newK1JWKSVerifier(t *testing.T, minRefresh time.Duration) (*authtest.JWKSServer, *JWTVerifier) {
	t.Helper()
	srv := authtest.NewJWKSServer(t, authtest.JWK(&authtest.Keys().RSA.PublicKey, "k1"))
	return srv, newJWKSVerifier(t, srv, minRefresh)
}

// accepted reports whether v accepts token, for messages.
func accepted(v *JWTVerifier, token string) error {
	_, err := v.Verify(context.Background(), token)
	return err
}

// TestJWKSKeyRotation: a token with a kid the cache does not know makes the
// verifier fetch the set again, so an IdP's new key works at once and a
// retired one stops working.
func TestJWKSKeyRotation(t *testing.T) {
	k := authtest.Keys()
	srv := authtest.NewJWKSServer(t, authtest.JWK(&k.RSA.PublicKey, "old"))
	v := newJWKSVerifier(t, srv, time.Nanosecond) // no rate limit in the way
	claims := validClaims("alice", ScopeRead)
	oldToken := authtest.Sign(t, jwt.SigningMethodRS256, k.RSA, "old", claims)
	newToken := authtest.Sign(t, jwt.SigningMethodES256, k.EC256, "new", claims)

	if err := accepted(v, oldToken); err != nil {
		t.Fatalf("token of the published key: got %v, want accepted", err)
	}
	if got := srv.Fetches(); got != 1 {
		t.Fatalf("fetches after start-up and a known kid: got %d, want 1", got)
	}
	srv.Publish(authtest.JWK(&k.EC256.PublicKey, "new"))
	if err := accepted(v, newToken); err != nil {
		t.Fatalf("token of the rotated-in key: got %v, want accepted after a refresh", err)
	}
	if got := srv.Fetches(); got != 2 {
		t.Errorf("fetches after an unknown kid: got %d, want 2", got)
	}
	if err := accepted(v, oldToken); err == nil {
		t.Error("token of the retired key: got accepted, want refused")
	}
}

// TestJWKSRefreshStormRateLimited: tokens with made-up kids, however many
// and however concurrent, cause at most one fetch per interval, while
// tokens of known keys keep working.
func TestJWKSRefreshStormRateLimited(t *testing.T) {
	k := authtest.Keys()
	srv, v := newK1JWKSVerifier(t, time.Hour)
	claims := validClaims("alice", ScopeRead)
	good := authtest.Sign(t, jwt.SigningMethodRS256, k.RSA, "k1", claims)
	forged := make([]string, 200)
	for i := range forged {
		forged[i] = authtest.Sign(t, jwt.SigningMethodHS256, testSecret, fmt.Sprintf("kid-%d", i), claims)
	}
	var wg sync.WaitGroup
	errs := make(chan string, len(forged)*2)
	for _, tok := range forged {
		wg.Go(func() {
			if accepted(v, tok) == nil {
				errs <- "a token with a made-up kid was accepted"
			}
			if err := accepted(v, good); err != nil {
				errs <- fmt.Sprintf("a good token during the storm: got %v, want accepted", err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
		break
	}
	if got := srv.Fetches(); got != 1 {
		t.Errorf("fetches: got %d for %d unknown kids within the interval, want 1 (the start-up fetch)", got, len(forged))
	}
}

// TestJWKSServerDown: when the JWKS URL fails, the cached keys keep working
// and tokens of unknown keys are refused.
func TestJWKSServerDown(t *testing.T) {
	k := authtest.Keys()
	srv, v := newK1JWKSVerifier(t, time.Nanosecond)
	claims := validClaims("alice", ScopeRead)
	good := authtest.Sign(t, jwt.SigningMethodRS256, k.RSA, "k1", claims)
	unknown := authtest.Sign(t, jwt.SigningMethodRS256, k.RSA2, "k2", claims)

	srv.SetDown(true)
	if err := accepted(v, unknown); err == nil {
		t.Error("unknown kid with the JWKS down: got accepted, want refused")
	}
	if got := srv.Fetches(); got != 2 {
		t.Errorf("fetches: got %d, want 2 (start-up, then the failed refresh)", got)
	}
	if err := accepted(v, good); err != nil {
		t.Errorf("cached key after a failed refresh: got %v, want accepted", err)
	}
	srv.Close() // gone altogether: connection refused
	if err := accepted(v, unknown); err == nil {
		t.Error("unknown kid with the JWKS gone: got accepted, want refused")
	}
	if err := accepted(v, good); err != nil {
		t.Errorf("cached key with the JWKS gone: got %v, want accepted", err)
	}
}

// TestJWKSDownAtStartup: an IdP unreachable at start-up is not fatal; its
// keys are fetched when the first token needs them.
func TestJWKSDownAtStartup(t *testing.T) {
	k := authtest.Keys()
	srv := authtest.NewJWKSServer(t, authtest.JWK(&k.RSA.PublicKey, "k1"))
	srv.SetDown(true)
	v := newJWKSVerifier(t, srv, time.Nanosecond)
	good := authtest.Sign(t, jwt.SigningMethodRS256, k.RSA, "k1", validClaims("alice", ScopeRead))
	if err := accepted(v, good); err == nil {
		t.Fatal("with no keys fetched yet: got accepted, want refused")
	}
	srv.SetDown(false)
	if err := accepted(v, good); err != nil {
		t.Errorf("once the JWKS answers: got %v, want accepted", err)
	}
}

// unusableKeys are JWKs Boris must skip, each with a token signed by the
// matching private key (or whatever comes closest) under its kid.
func unusableKeys(t *testing.T) (set []map[string]any, tokens map[string]string) {
	t.Helper()
	k := authtest.Keys()
	claims := validClaims("mallory", ScopeRead+" "+ScopeExec)
	withField := func(m map[string]any, kv ...string) map[string]any {
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	one := b64url([]byte{1})
	set = []map[string]any{
		withField(authtest.JWK(&k.RSA2.PublicKey, "enc"), "use", "enc"),
		authtest.JWK(&k.RSASmall.PublicKey, "small"),
		withField(authtest.JWK(&k.EC256.PublicKey, "offcurve"), "x", b64url(make([]byte, 31))+one, "y", b64url(make([]byte, 31))+one),
		withField(authtest.JWK(&k.EC256.PublicKey, "short-x"), "x", one),
		{"kty": "oct", "kid": "oct", "k": b64url(testSecret), "alg": "HS256"},
		withField(authtest.JWK(&k.RSA2.PublicKey, "alg-es"), "alg", "ES256"),
		withField(authtest.JWK(&k.RSA2.PublicKey, "alg-hs"), "alg", "HS256"),
		withField(authtest.JWK(&k.RSA2.PublicKey, "alg-none"), "alg", "none"),
		withField(authtest.JWK(&k.RSA2.PublicKey, "even-e"), "e", b64url([]byte{1, 0, 0})),
		withField(authtest.JWK(k.Ed25519.Public(), "x25519"), "crv", "X25519"),
		{"kty": "RSA", "kid": "bad-n", "n": "!!!", "e": "AQAB"},
	}
	ecOff := authtest.Sign(t, jwt.SigningMethodES256, k.EC256, "offcurve", claims)
	tokens = map[string]string{
		"use=enc":            authtest.Sign(t, jwt.SigningMethodRS256, k.RSA2, "enc", claims),
		"RSA 1024 bits":      authtest.Sign(t, jwt.SigningMethodRS256, k.RSASmall, "small", claims),
		"EC point off-curve": ecOff,
		"EC short x":         authtest.Sign(t, jwt.SigningMethodES256, k.EC256, "short-x", claims),
		"unknown kty oct":    authtest.Sign(t, jwt.SigningMethodHS256, testSecret, "oct", claims),
		"alg ES256 on RSA":   authtest.Sign(t, jwt.SigningMethodRS256, k.RSA2, "alg-es", claims),
		"alg HS256 on RSA":   authtest.Sign(t, jwt.SigningMethodRS256, k.RSA2, "alg-hs", claims),
		"HS256 on alg-hs":    authtest.Sign(t, jwt.SigningMethodHS256, authtest.PKIXDER(t, &k.RSA2.PublicKey), "alg-hs", claims),
		"alg none on RSA":    authtest.Sign(t, jwt.SigningMethodRS256, k.RSA2, "alg-none", claims),
		"even exponent":      authtest.Sign(t, jwt.SigningMethodRS256, k.RSA2, "even-e", claims),
		"OKP X25519":         authtest.Sign(t, jwt.SigningMethodEdDSA, k.Ed25519, "x25519", claims),
	}
	return set, tokens
}

// TestJWKSUnusableKeysIgnored: keys with unusable parameters are skipped
// while the good keys in the same set work.
func TestJWKSUnusableKeysIgnored(t *testing.T) {
	k := authtest.Keys()
	bad, badTokens := unusableKeys(t)
	good := []map[string]any{authtest.JWK(&k.RSA.PublicKey, "rsa"), authtest.JWK(&k.EC384.PublicKey, "ec"), authtest.JWK(k.Ed25519.Public(), "ed")}
	srv := authtest.NewJWKSServer(t, append(bad, good...)...)
	v := newJWKSVerifier(t, srv, time.Hour)
	claims := validClaims("alice", ScopeRead)
	goodTokens := map[string]string{
		"RSA":   authtest.Sign(t, jwt.SigningMethodRS256, k.RSA, "rsa", claims),
		"EC":    authtest.Sign(t, jwt.SigningMethodES384, k.EC384, "ec", claims),
		"EdDSA": authtest.Sign(t, jwt.SigningMethodEdDSA, k.Ed25519, "ed", claims),
	}
	for name, tok := range goodTokens {
		t.Run("good "+name, func(t *testing.T) {
			if err := accepted(v, tok); err != nil {
				t.Errorf("got %v, want accepted", err)
			}
		})
	}
	for name, tok := range badTokens {
		t.Run("unusable "+name, func(t *testing.T) {
			if err := accepted(v, tok); err == nil {
				t.Error("got accepted, want refused: the key should have been skipped")
			}
		})
	}
}

// TestJWKSParseSet checks key by key which JWKs are kept.
func TestJWKSParseSet(t *testing.T) {
	k := authtest.Keys()
	bad, _ := unusableKeys(t)
	j := &jwks{log: slog.New(slog.DiscardHandler)}
	for _, key := range bad {
		t.Run("skip "+key["kid"].(string), func(t *testing.T) {
			if got := j.parseSet([]json.RawMessage{mustJSON(t, key)}); len(got) != 0 {
				t.Errorf("got %v, want the key skipped", got)
			}
		})
	}
	good := []map[string]any{
		authtest.JWK(&k.RSA.PublicKey, "rsa"), authtest.JWK(&k.EC256.PublicKey, "p256"), authtest.JWK(&k.EC521.PublicKey, "p521"), authtest.JWK(k.Ed25519.Public(), "ed"),
		{"kty": "RSA", "kid": "no-use-no-alg", "n": authtest.JWK(&k.RSA.PublicKey, "")["n"], "e": "AQAB"},
	}
	for _, key := range good {
		t.Run("keep "+key["kid"].(string), func(t *testing.T) {
			got := j.parseSet([]json.RawMessage{mustJSON(t, key)})
			if len(got[key["kid"].(string)]) != 1 {
				t.Errorf("got %v, want the key kept under its kid", got)
			}
		})
	}
	if got := j.parseSet([]json.RawMessage{json.RawMessage(`"not an object"`)}); len(got) != 0 {
		t.Errorf("a JWK that is not an object: got %v, want skipped", got)
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
