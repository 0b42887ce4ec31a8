// Package authtest provides helpers for testing code that uses package auth:
// signing JWTs, serving a JWKS, parsing Bearer challenges.
//
// It does not import package auth, so that package's own tests can use it.
package authtest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// KeySet holds key pairs to sign test tokens with, one or more of every
// type package auth verifies.
type KeySet struct {
	RSA      *rsa.PrivateKey // 2048 bits: the IdP's key
	RSA2     *rsa.PrivateKey // 2048 bits: another, trusted by nobody
	RSASmall *rsa.PrivateKey // 1024 bits: too small to trust
	EC256    *ecdsa.PrivateKey
	EC384    *ecdsa.PrivateKey
	EC521    *ecdsa.PrivateKey
	Ed25519  ed25519.PrivateKey
}

// Keys returns the process's KeySet, generated on the first call: RSA
// generation is slow, more so under the race detector.
func Keys() KeySet { return keys() }

var keys = sync.OnceValue(func() KeySet {
	must := func(k any, err error) any {
		if err != nil {
			panic(err)
		}
		return k
	}
	_, ed, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	return KeySet{
		RSA:      must(rsa.GenerateKey(rand.Reader, 2048)).(*rsa.PrivateKey),
		RSA2:     must(rsa.GenerateKey(rand.Reader, 2048)).(*rsa.PrivateKey),
		RSASmall: must(rsa.GenerateKey(rand.Reader, 1024)).(*rsa.PrivateKey),
		EC256:    must(ecdsa.GenerateKey(elliptic.P256(), rand.Reader)).(*ecdsa.PrivateKey),
		EC384:    must(ecdsa.GenerateKey(elliptic.P384(), rand.Reader)).(*ecdsa.PrivateKey),
		EC521:    must(ecdsa.GenerateKey(elliptic.P521(), rand.Reader)).(*ecdsa.PrivateKey),
		Ed25519:  ed,
	}
})

// Claims returns the claims of a token valid for an hour from now: sub,
// aud, iat and exp, with iss and scope when they are not empty.
func Claims(iss, aud, sub, scope string) jwt.MapClaims {
	now := time.Now()
	c := jwt.MapClaims{
		"aud": aud,
		"sub": sub,
		"iat": now.Unix(),
		"exp": now.Add(time.Hour).Unix(),
	}
	if iss != "" {
		c["iss"] = iss
	}
	if scope != "" {
		c["scope"] = scope
	}
	return c
}

// With returns a copy of c with the claims of kv (name, value, name,
// value...) set; a nil value deletes the claim.
func With(c jwt.MapClaims, kv ...any) jwt.MapClaims {
	out := jwt.MapClaims{}
	for k, v := range c {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(out, kv[i].(string))
			continue
		}
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// Sign returns claims signed with key by method; kid, if not empty, goes
// in the header. It fails the test if the token cannot be signed.
func Sign(t testing.TB, method jwt.SigningMethod, key any, kid string, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatalf("sign %s: %v", method.Alg(), err)
	}
	return s
}

func b64url(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// JWK returns the JWK of an RSA, ECDSA or Ed25519 public key (RFC 7517,
// RFC 7518 §6, RFC 8037) with kid, "use": "sig" and the matching alg. It
// panics on any other key.
func JWK(pub crypto.PublicKey, kid string) map[string]any {
	k := map[string]any{"kid": kid, "use": "sig"}
	switch p := pub.(type) {
	case *rsa.PublicKey:
		k["kty"], k["alg"] = "RSA", "RS256"
		k["n"] = b64url(p.N.Bytes())
		k["e"] = b64url(big.NewInt(int64(p.E)).Bytes())
	case *ecdsa.PublicKey:
		raw, err := p.Bytes()
		if err != nil {
			panic(err)
		}
		size := (len(raw) - 1) / 2
		k["kty"] = "EC"
		k["crv"], k["alg"] = map[int]string{32: "P-256", 48: "P-384", 66: "P-521"}[size], map[int]string{32: "ES256", 48: "ES384", 66: "ES512"}[size]
		k["x"], k["y"] = b64url(raw[1:1+size]), b64url(raw[1+size:])
	case ed25519.PublicKey:
		k["kty"], k["crv"], k["alg"] = "OKP", "Ed25519", "EdDSA"
		k["x"] = b64url(p)
	default:
		panic("authtest.JWK: unsupported key")
	}
	return k
}

// JWKSServer is an IdP's JWKS endpoint whose set, and whether it answers,
// a test changes as it goes; it counts the fetches. It answers at any path.
type JWKSServer struct {
	// Server is the underlying server, closed when the test ends.
	Server *httptest.Server

	fetches atomic.Int64

	mu   sync.Mutex
	set  []map[string]any
	down bool // answer 503
}

// NewJWKSServer starts a JWKS endpoint serving set, closed when the test
// ends.
func NewJWKSServer(t testing.TB, set ...map[string]any) *JWKSServer {
	t.Helper()
	s := &JWKSServer{set: set}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		s.fetches.Add(1)
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.down {
			http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": s.set})
	}))
	t.Cleanup(s.Server.Close)
	return s
}

// URL is the JWKS URL to configure a verifier with.
func (s *JWKSServer) URL() string { return s.Server.URL + "/.well-known/jwks.json" }

// Fetches is how many requests the server has received, answered or not.
func (s *JWKSServer) Fetches() int64 { return s.fetches.Load() }

// Publish replaces the set the server serves.
func (s *JWKSServer) Publish(set ...map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.set = set
}

// SetDown makes the server answer 503 (down) or serve its set again.
func (s *JWKSServer) SetDown(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = down
}

// Close shuts the server down: fetches then fail to connect.
func (s *JWKSServer) Close() { s.Server.Close() }

var challengeParamRe = regexp.MustCompile(`([a-z_]+)="([^"\\]*)"`)

// ParseChallenge splits a WWW-Authenticate header value of the form
// `Bearer k="v", ...` into its parameters, failing the test if it is not
// one well-formed Bearer challenge (RFC 6750 §3).
func ParseChallenge(t testing.TB, h string) map[string]string {
	t.Helper()
	rest, ok := strings.CutPrefix(h, "Bearer ")
	if !ok {
		t.Fatalf("WWW-Authenticate: got %q, want a Bearer challenge", h)
	}
	params := map[string]string{}
	for _, part := range strings.Split(rest, ", ") {
		m := challengeParamRe.FindStringSubmatch(part)
		if m == nil || m[0] != part {
			t.Fatalf("WWW-Authenticate %q: parameter %q is not key=\"value\" (RFC 6750 §3)", h, part)
		}
		params[m[1]] = m[2]
	}
	return params
}

// PKIXDER marshals a public key as PKIX DER, failing the test if it
// cannot.
func PKIXDER(t testing.TB, pub crypto.PublicKey) []byte {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

// WriteFile writes data (a secret, a token list, a key) to a file called
// name in a fresh temporary directory and returns its path.
func WriteFile(t testing.TB, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// WritePEM writes der as a PEM file with one block of blockType ("PUBLIC
// KEY", "CERTIFICATE"...) and returns its path.
func WritePEM(t testing.TB, blockType string, der []byte) string {
	t.Helper()
	return WriteFile(t, "key.pem", pem.EncodeToMemory(&pem.Block{Type: blockType, Bytes: der}))
}

// WritePublicKey writes pub as a PKIX "PUBLIC KEY" PEM file and returns its
// path.
func WritePublicKey(t testing.TB, pub crypto.PublicKey) string {
	t.Helper()
	return WritePEM(t, "PUBLIC KEY", PKIXDER(t, pub))
}
