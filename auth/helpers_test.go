package auth

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
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Claims every valid test token carries.
const (
	testIssuer   = "https://idp.example.test"
	testAudience = "https://boris.example.test/mcp"
)

// testSecret is an HMAC secret of the minimum length.
var testSecret = []byte("0123456789abcdef0123456789abcdef")

// keys are the key pairs the tests sign with, generated once: RSA
// generation is slow, more so under the race detector.
type keys struct {
	rsa      *rsa.PrivateKey // the IdP's key
	rsa2     *rsa.PrivateKey // another, trusted by nobody
	rsaSmall *rsa.PrivateKey // 1024 bits: too small to trust
	ec256    *ecdsa.PrivateKey
	ec384    *ecdsa.PrivateKey
	ec521    *ecdsa.PrivateKey
	ed       ed25519.PrivateKey
}

var testKeys = sync.OnceValue(func() keys {
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
	return keys{
		rsa:      must(rsa.GenerateKey(rand.Reader, 2048)).(*rsa.PrivateKey),
		rsa2:     must(rsa.GenerateKey(rand.Reader, 2048)).(*rsa.PrivateKey),
		rsaSmall: must(rsa.GenerateKey(rand.Reader, 1024)).(*rsa.PrivateKey),
		ec256:    must(ecdsa.GenerateKey(elliptic.P256(), rand.Reader)).(*ecdsa.PrivateKey),
		ec384:    must(ecdsa.GenerateKey(elliptic.P384(), rand.Reader)).(*ecdsa.PrivateKey),
		ec521:    must(ecdsa.GenerateKey(elliptic.P521(), rand.Reader)).(*ecdsa.PrivateKey),
		ed:       ed,
	}
})

// validClaims are the claims of a token the test verifiers accept.
func validClaims(sub, scope string) jwt.MapClaims {
	now := time.Now()
	c := jwt.MapClaims{
		"iss": testIssuer,
		"aud": testAudience,
		"sub": sub,
		"iat": now.Unix(),
		"exp": now.Add(time.Hour).Unix(),
	}
	if scope != "" {
		c["scope"] = scope
	}
	return c
}

// with returns a copy of c with the given claims set (a nil value deletes).
func with(c jwt.MapClaims, kv ...any) jwt.MapClaims {
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

// sign makes a token; kid, if not empty, goes in the header.
func sign(t *testing.T, method jwt.SigningMethod, key any, kid string, claims jwt.MapClaims) string {
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

// jwkOf is the JWK of a public key (RFC 7517, 7518 §6, 8037), with kid and
// the matching alg.
func jwkOf(pub crypto.PublicKey, kid string) map[string]any {
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
		panic("jwkOf: unsupported key")
	}
	return k
}

// jwksServer is an IdP's JWKS endpoint whose set, and whether it answers,
// a test changes as it goes; it counts the fetches.
type jwksServer struct {
	srv     *httptest.Server
	fetches atomic.Int64

	mu   sync.Mutex
	set  []map[string]any
	down bool // answer 503
}

func newJWKSServer(t *testing.T, set ...map[string]any) *jwksServer {
	t.Helper()
	s := &jwksServer{set: set}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
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
	t.Cleanup(s.srv.Close)
	return s
}

func (s *jwksServer) url() string { return s.srv.URL + "/.well-known/jwks.json" }

// publish replaces the set the server serves.
func (s *jwksServer) publish(set ...map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.set = set
}

func (s *jwksServer) setDown(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = down
}

// writePEM writes a public key as a PEM file of the given block type and
// returns its path.
func writePEM(t *testing.T, blockType string, der []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: blockType, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// pkixDER marshals a public key as PKIX DER.
func pkixDER(t *testing.T, pub crypto.PublicKey) []byte {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return der
}
