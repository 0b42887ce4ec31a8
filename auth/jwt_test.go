package auth

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/mjkoo/boris/auth/authtest"
)

// forgedCase is a token that must be refused, or (ok) the control that
// proves the verifier accepts the real thing.
type forgedCase struct {
	name     string
	token    string
	ok       bool
	oversize bool // refused for its size by the middleware, before any verifier
}

// forgedTokens is the forged-token suite against a verifier trusting
// authtest.Keys().RSA under kid "k1", with testIssuer and testAudience and a
// leeway of at most a minute.
func forgedTokens(t *testing.T) []forgedCase {
	t.Helper()
	k := authtest.Keys()
	valid := validClaims("alice", ScopeRead)
	now := time.Now()
	pubPKIX := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: authtest.PKIXDER(t, &k.RSA.PublicKey)})
	pubPKCS1 := pem.EncodeToMemory(&pem.Block{Type: "RSA PUBLIC KEY", Bytes: x509.MarshalPKCS1PublicKey(&k.RSA.PublicKey)})
	good := authtest.Sign(t, jwt.SigningMethodRS256, k.RSA, "k1", valid)
	parts := strings.Split(good, ".")
	hugeHeader := jwt.NewWithClaims(jwt.SigningMethodRS256, valid)
	hugeHeader.Header["kid"], hugeHeader.Header["pad"] = "k1", strings.Repeat("x", maxTokenLen)
	huge, err := hugeHeader.SignedString(k.RSA)
	if err != nil {
		t.Fatal(err)
	}
	critical := func(crit any) string {
		tok := jwt.NewWithClaims(jwt.SigningMethodRS256, valid)
		tok.Header["kid"], tok.Header["crit"], tok.Header["exp-ext"] = "k1", crit, true
		s, err := tok.SignedString(k.RSA)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	return []forgedCase{
		{"control: RS256 with the IdP key", good, true, false},
		{"control: PS256 with the IdP key", authtest.Sign(t, jwt.SigningMethodPS256, k.RSA, "k1", valid), true, false},
		{"control: no kid", authtest.Sign(t, jwt.SigningMethodRS256, k.RSA, "", valid), true, false},

		{"alg none", authtest.Sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, "k1", valid), false, false},
		{"alg none, signature kept", b64url([]byte(`{"alg":"none","kid":"k1","typ":"JWT"}`)) + "." + parts[1] + "." + parts[2], false, false},
		{"HS256 signed with the RSA public key PEM", authtest.Sign(t, jwt.SigningMethodHS256, pubPKIX, "k1", valid), false, false},
		{"HS256 signed with the RSA public key PKCS#1 PEM", authtest.Sign(t, jwt.SigningMethodHS256, pubPKCS1, "k1", valid), false, false},
		{"HS256 signed with the RSA public key DER", authtest.Sign(t, jwt.SigningMethodHS256, authtest.PKIXDER(t, &k.RSA.PublicKey), "k1", valid), false, false},
		{"HS256 signed with the RSA modulus", authtest.Sign(t, jwt.SigningMethodHS256, k.RSA.N.Bytes(), "k1", valid), false, false},
		{"wrong key", authtest.Sign(t, jwt.SigningMethodRS256, k.RSA2, "k1", valid), false, false},
		{"wrong key, no kid", authtest.Sign(t, jwt.SigningMethodRS256, k.RSA2, "", valid), false, false},
		{"wrong iss", authtest.Sign(t, jwt.SigningMethodRS256, k.RSA, "k1", authtest.With(valid, "iss", "https://evil.example.test")), false, false},
		{"missing iss", authtest.Sign(t, jwt.SigningMethodRS256, k.RSA, "k1", authtest.With(valid, "iss", nil)), false, false},
		{"wrong aud", authtest.Sign(t, jwt.SigningMethodRS256, k.RSA, "k1", authtest.With(valid, "aud", "https://other.example.test/mcp")), false, false},
		{"missing aud", authtest.Sign(t, jwt.SigningMethodRS256, k.RSA, "k1", authtest.With(valid, "aud", nil)), false, false},
		{"expired", authtest.Sign(t, jwt.SigningMethodRS256, k.RSA, "k1", authtest.With(valid, "exp", now.Add(-time.Hour).Unix())), false, false},
		{"nbf beyond leeway", authtest.Sign(t, jwt.SigningMethodRS256, k.RSA, "k1", authtest.With(valid, "nbf", now.Add(time.Hour).Unix())), false, false},
		{"iat beyond leeway", authtest.Sign(t, jwt.SigningMethodRS256, k.RSA, "k1", authtest.With(valid, "iat", now.Add(time.Hour).Unix())), false, false},
		{"missing exp", authtest.Sign(t, jwt.SigningMethodRS256, k.RSA, "k1", authtest.With(valid, "exp", nil)), false, false},
		{"exp as a string", authtest.Sign(t, jwt.SigningMethodRS256, k.RSA, "k1", authtest.With(valid, "exp", "never")), false, false},
		{"missing sub", authtest.Sign(t, jwt.SigningMethodRS256, k.RSA, "k1", authtest.With(valid, "sub", nil)), false, false},
		{"unknown kid", authtest.Sign(t, jwt.SigningMethodRS256, k.RSA2, "attacker", valid), false, false},
		{"signature of another token", parts[0] + "." + b64url([]byte(`{"sub":"root","aud":"`+testAudience+`"}`)) + "." + parts[2], false, false},
		{"signature truncated", good[:len(good)-4], false, false},
		{"bad base64", parts[0] + ".!!!" + parts[1][3:] + "." + parts[2], false, false},
		{"padded base64", parts[0] + "=." + parts[1] + "." + parts[2], false, false},
		{"three dots", good + ".", false, false},
		{"only dots", "..", false, false},
		{"header not JSON", b64url([]byte("not json")) + "." + parts[1] + "." + parts[2], false, false},
		{"huge header, validly signed", huge, false, true},
		{"crit names an unknown extension, validly signed", critical([]string{"exp-ext"}), false, false},
		{"crit empty, validly signed", critical([]string{}), false, false},
		{"crit not a list, validly signed", critical("exp-ext"), false, false},
	}
}

// newRSAJWKSVerifier is a verifier trusting authtest.Keys().RSA as kid "k1"
// through a JWKS, refreshed at most hourly.
func newRSAJWKSVerifier(t *testing.T) (*JWTVerifier, *authtest.JWKSServer) {
	t.Helper()
	srv := authtest.NewJWKSServer(t, authtest.JWK(&authtest.Keys().RSA.PublicKey, "k1"))
	v, err := NewJWTVerifier(context.Background(), JWTOptions{
		JWKSURL: srv.URL(), Issuer: testIssuer, Audience: testAudience,
		Leeway: 30 * time.Second, JWKSMinRefresh: time.Hour,
	})
	if err != nil {
		t.Fatal(err)
	}
	return v, srv
}

func TestJWTForgedTokens(t *testing.T) {
	k := authtest.Keys()
	jwksV, _ := newRSAJWKSVerifier(t)
	pemV, err := NewJWTVerifier(context.Background(), JWTOptions{
		PublicKeys: []crypto.PublicKey{&k.RSA.PublicKey}, Issuer: testIssuer, Audience: testAudience, Leeway: 30 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	verifiers := map[string]*JWTVerifier{"JWKS": jwksV, "PEM key": pemV}
	for _, tt := range forgedTokens(t) {
		if tt.oversize {
			continue // TestMiddlewareForgedTokens
		}
		for vname, v := range verifiers {
			t.Run(vname+"/"+tt.name, func(t *testing.T) {
				id, err := v.Verify(context.Background(), tt.token)
				if tt.ok {
					if err != nil || id.Subject != "alice" {
						t.Fatalf("got %+v, %v; want subject alice", id, err)
					}
					return
				}
				if err == nil {
					t.Fatalf("got %+v, want the token refused", id)
				}
				if !errors.Is(err, ErrInvalidToken) {
					t.Errorf("got %v, want an error wrapping ErrInvalidToken", err)
				}
			})
		}
	}
}

// TestJWTAlgorithmsPerKeyType: each key type verifies its own algorithms
// and nothing else (the allow-list in keys.go).
func TestJWTAlgorithmsPerKeyType(t *testing.T) {
	k := authtest.Keys()
	v, err := NewJWTVerifier(context.Background(), JWTOptions{
		HMACSecret: testSecret,
		PublicKeys: []crypto.PublicKey{&k.RSA.PublicKey, &k.EC256.PublicKey, &k.EC384.PublicKey, &k.EC521.PublicKey, k.Ed25519.Public()},
		Audience:   testAudience,
	})
	if err != nil {
		t.Fatal(err)
	}
	claims := validClaims("alice", ScopeRead)
	tests := []struct {
		name   string
		method jwt.SigningMethod
		key    any
		ok     bool
	}{
		{"HS256", jwt.SigningMethodHS256, testSecret, true},
		{"HS384", jwt.SigningMethodHS384, testSecret, true},
		{"HS512", jwt.SigningMethodHS512, testSecret, true},
		{"RS256", jwt.SigningMethodRS256, k.RSA, true},
		{"RS384", jwt.SigningMethodRS384, k.RSA, true},
		{"RS512", jwt.SigningMethodRS512, k.RSA, true},
		{"PS256", jwt.SigningMethodPS256, k.RSA, true},
		{"PS512", jwt.SigningMethodPS512, k.RSA, true},
		{"ES256", jwt.SigningMethodES256, k.EC256, true},
		{"ES384", jwt.SigningMethodES384, k.EC384, true},
		{"ES512", jwt.SigningMethodES512, k.EC521, true},
		{"EdDSA", jwt.SigningMethodEdDSA, k.Ed25519, true},
		{"HS256 with the EC public key", jwt.SigningMethodHS256, authtest.PKIXDER(t, &k.EC256.PublicKey), false},
		{"HS256 with the Ed25519 public key DER", jwt.SigningMethodHS256, authtest.PKIXDER(t, k.Ed25519.Public()), false},
		{"HS256 with the raw Ed25519 public key", jwt.SigningMethodHS256, []byte(k.Ed25519.Public().(ed25519.PublicKey)), false},
		{"HS256 with a prefix of the secret", jwt.SigningMethodHS256, testSecret[:31], false},
		{"RS256 with an untrusted key", jwt.SigningMethodRS256, k.RSA2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := v.Verify(context.Background(), authtest.Sign(t, tt.method, tt.key, "", claims))
			if tt.ok && err != nil {
				t.Errorf("got %v, want accepted", err)
			}
			if !tt.ok && err == nil {
				t.Errorf("got %+v, want refused", id)
			}
		})
	}
}

// TestJWTLeeway: exp, nbf and iat are honoured with the configured clock
// skew, and no more. The margins are minutes wide, not a race with the clock.
func TestJWTLeeway(t *testing.T) {
	now := time.Now()
	tests := []struct {
		name   string
		leeway time.Duration
		claim  string
		at     time.Time
		ok     bool
	}{
		{"expired within leeway", 2 * time.Minute, "exp", now.Add(-time.Minute), true},
		{"expired beyond leeway", 2 * time.Minute, "exp", now.Add(-3 * time.Minute), false},
		{"expired without leeway", 0, "exp", now.Add(-time.Minute), false},
		{"nbf within leeway", 2 * time.Minute, "nbf", now.Add(time.Minute), true},
		{"nbf beyond leeway", 2 * time.Minute, "nbf", now.Add(3 * time.Minute), false},
		{"nbf past", 0, "nbf", now.Add(-time.Minute), true},
		{"iat within leeway", 2 * time.Minute, "iat", now.Add(time.Minute), true},
		{"iat beyond leeway", 2 * time.Minute, "iat", now.Add(3 * time.Minute), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := NewJWTVerifier(context.Background(), JWTOptions{HMACSecret: testSecret, Audience: testAudience, Leeway: tt.leeway})
			if err != nil {
				t.Fatal(err)
			}
			token := authtest.Sign(t, jwt.SigningMethodHS256, testSecret, "", authtest.With(validClaims("alice", ScopeRead), tt.claim, tt.at.Unix()))
			_, err = v.Verify(context.Background(), token)
			if tt.ok && err != nil {
				t.Errorf("got %v, want accepted", err)
			}
			if !tt.ok && err == nil {
				t.Error("got accepted, want refused")
			}
		})
	}
}

func TestJWTScopes(t *testing.T) {
	v, err := NewJWTVerifier(context.Background(), JWTOptions{HMACSecret: testSecret, Audience: testAudience, Issuer: testIssuer})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		claim string
		value any
		want  []string
	}{
		{"scope string", "scope", "boris:read  boris:exec openid", []string{ScopeRead, ScopeExec, "openid"}},
		{"scp list", "scp", []string{ScopeWrite, ScopeRead}, []string{ScopeWrite, ScopeRead}},
		{"scp string", "scp", ScopeExec, []string{ScopeExec}},
		{"none", "scope", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			token := authtest.Sign(t, jwt.SigningMethodHS256, testSecret, "", authtest.With(validClaims("alice", ""), tt.claim, tt.value))
			id, err := v.Verify(context.Background(), token)
			if err != nil {
				t.Fatal(err)
			}
			if id.Subject != "alice" {
				t.Errorf("subject: got %q, want alice", id.Subject)
			}
			if diff := cmp.Diff(tt.want, id.Scopes); diff != "" {
				t.Errorf("scopes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewJWTVerifierRefuses(t *testing.T) {
	tests := []struct {
		name string
		opts JWTOptions
		want string
	}{
		{"no audience", JWTOptions{HMACSecret: testSecret}, "audience"},
		{"no key", JWTOptions{Audience: testAudience}, "key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := NewJWTVerifier(context.Background(), tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, %v; want an error mentioning %q", v, err, tt.want)
			}
		})
	}
}
