package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"sync"
	"time"
)

// jwksMaxBody bounds a JWKS document.
const jwksMaxBody = 1 << 20

// jwks caches the keys of a JSON Web Key Set URL (RFC 7517). It refreshes
// when asked for an unknown kid, at most once per minInterval, so a flood
// of tokens with made-up kids cannot turn the gateway against the IdP.
// When the URL fails, the cached keys stay in use.
type jwks struct {
	url         string
	client      *http.Client
	minInterval time.Duration
	log         *slog.Logger

	mu        sync.Mutex
	keys      map[string][]any // by kid; "" holds keys without a kid
	lastFetch time.Time
}

// lookup returns the keys for kid, refreshing once if it is unknown. The
// fetch runs outside the lock and outside any one request's context: a slow
// identity provider delays only the tokens naming unknown kids, and a client
// hanging up does not abort a refresh others will rely on.
func (j *jwks) lookup(kid string) []any {
	j.mu.Lock()
	if keys := j.keysFor(kid); len(keys) > 0 || time.Since(j.lastFetch) < j.minInterval {
		j.mu.Unlock()
		return keys
	}
	j.lastFetch = time.Now() // claims the refresh: concurrent lookups do not fetch again
	j.mu.Unlock()
	j.refresh()
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.keysFor(kid)
}

// keysFor picks keys by kid; a token without a kid may use any key.
func (j *jwks) keysFor(kid string) []any {
	if kid != "" {
		return j.keys[kid]
	}
	var all []any
	for _, ks := range j.keys {
		all = append(all, ks...)
	}
	return all
}

// refresh fetches the set; on failure the cached keys stay.
func (j *jwks) refresh() {
	keys, err := j.fetch(context.Background())
	if err != nil {
		j.log.Warn("JWKS refresh failed; keeping cached keys", "url", j.url, "err", err)
		return
	}
	j.mu.Lock()
	j.keys = keys
	j.mu.Unlock()
}

func (j *jwks) fetch(ctx context.Context) (map[string][]any, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, j.url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := j.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %s", resp.Status)
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, jwksMaxBody)).Decode(&set); err != nil {
		return nil, fmt.Errorf("decode JWKS: %w", err)
	}
	return j.parseSet(set.Keys), nil
}

// parseSet keeps the usable signature keys; the rest are skipped with a log
// line, never fatal (an IdP may publish keys Boris cannot use).
func (j *jwks) parseSet(raw []json.RawMessage) map[string][]any {
	keys := map[string][]any{}
	for _, r := range raw {
		var k jwk
		if err := json.Unmarshal(r, &k); err != nil {
			continue
		}
		key, err := k.publicKey()
		if err == nil {
			err = usable(key)
		}
		if err == nil && k.Alg != "" && !allows(key, k.Alg) {
			err = fmt.Errorf("alg %s does not fit the key", k.Alg)
		}
		if err != nil {
			j.log.Debug("JWKS key skipped", "kid", k.Kid, "reason", err)
			continue
		}
		keys[k.Kid] = append(keys[k.Kid], key)
	}
	return keys
}

// jwk is one JSON Web Key (RFC 7517 §4, RFC 7518 §6, RFC 8037).
type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	N   string `json:"n"`
	E   string `json:"e"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

func (k *jwk) publicKey() (any, error) {
	if k.Use != "" && k.Use != "sig" {
		return nil, fmt.Errorf("use %q is not sig", k.Use)
	}
	switch k.Kty {
	case "RSA":
		return k.rsaKey()
	case "EC":
		return k.ecKey()
	case "OKP":
		x, err := b64(k.X)
		if k.Crv != "Ed25519" || err != nil || len(x) != ed25519.PublicKeySize {
			return nil, errors.New("unusable OKP key")
		}
		return ed25519.PublicKey(x), nil
	}
	return nil, fmt.Errorf("unsupported kty %q", k.Kty)
}

func (k *jwk) rsaKey() (any, error) {
	n, err1 := b64(k.N)
	e, err2 := b64(k.E)
	if err1 != nil || err2 != nil || len(e) == 0 || len(e) > 4 {
		return nil, errors.New("unusable RSA parameters")
	}
	exp := int(new(big.Int).SetBytes(e).Int64())
	if exp < 3 || exp%2 == 0 {
		return nil, errors.New("unusable RSA exponent")
	}
	return &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: exp}, nil
}

func (k *jwk) ecKey() (any, error) {
	curves := map[string]elliptic.Curve{"P-256": elliptic.P256(), "P-384": elliptic.P384(), "P-521": elliptic.P521()}
	curve, ok := curves[k.Crv]
	x, err1 := b64(k.X)
	y, err2 := b64(k.Y)
	if !ok || err1 != nil || err2 != nil {
		return nil, errors.New("unusable EC parameters")
	}
	size := (curve.Params().BitSize + 7) / 8
	if len(x) != size || len(y) != size {
		return nil, errors.New("EC coordinates of the wrong size")
	}
	// Build the uncompressed point and let ecdsa validate it is on the curve.
	point := append(append([]byte{4}, x...), y...)
	pub, err := ecdsa.ParseUncompressedPublicKey(curve, point)
	if err != nil {
		return nil, fmt.Errorf("EC point: %w", err)
	}
	return pub, nil
}

func b64(s string) ([]byte, error) { return base64.RawURLEncoding.DecodeString(s) }
