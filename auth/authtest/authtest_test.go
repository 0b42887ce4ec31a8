package authtest

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"
)

func TestClaimsWith(t *testing.T) {
	c := Claims("", "aud", "alice", "")
	for _, name := range []string{"iss", "scope"} {
		if _, ok := c[name]; ok {
			t.Errorf("Claims with empty %s: got %v, want no %s claim", name, c, name)
		}
	}
	d := With(Claims("iss", "aud", "alice", "boris:read"), "sub", "bob", "exp", nil)
	if d["iss"] != "iss" || d["scope"] != "boris:read" || d["sub"] != "bob" || d["exp"] != nil {
		t.Errorf("With: got %v, want iss, scope, sub bob and no exp", d)
	}
	if c["sub"] != "alice" {
		t.Errorf("With changed its argument: sub %v, want alice", c["sub"])
	}
}

func TestSignVerifies(t *testing.T) {
	k := Keys()
	s := Sign(t, jwt.SigningMethodES256, k.EC256, "kid1", Claims("iss", "aud", "alice", ""))
	tok, err := jwt.Parse(s, func(*jwt.Token) (any, error) { return &k.EC256.PublicKey, nil })
	if err != nil || tok.Header["kid"] != "kid1" {
		t.Errorf("got %v, %v; want a valid token with kid kid1", tok, err)
	}
}

func TestJWKSServer(t *testing.T) {
	s := NewJWKSServer(t, JWK(Keys().Ed25519.Public(), "ed"))
	get := func() (int, []map[string]any) {
		t.Helper()
		resp, err := http.Get(s.URL())
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var set struct {
			Keys []map[string]any `json:"keys"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&set)
		return resp.StatusCode, set.Keys
	}
	if code, keys := get(); code != http.StatusOK || len(keys) != 1 || keys[0]["kid"] != "ed" || keys[0]["kty"] != "OKP" {
		t.Errorf("got %d %v, want 200 and the Ed25519 key", code, keys)
	}
	s.SetDown(true)
	if code, _ := get(); code != http.StatusServiceUnavailable {
		t.Errorf("down: got %d, want 503", code)
	}
	s.SetDown(false)
	s.Publish()
	if code, keys := get(); code != http.StatusOK || len(keys) != 0 {
		t.Errorf("after Publish(): got %d %v, want 200 and no keys", code, keys)
	}
	if got := s.Fetches(); got != 3 {
		t.Errorf("Fetches: got %d, want 3", got)
	}
}

func TestParseChallenge(t *testing.T) {
	got := ParseChallenge(t, `Bearer realm="boris", error="invalid_token", resource_metadata="https://x.test/m"`)
	want := map[string]string{"realm": "boris", "error": "invalid_token", "resource_metadata": "https://x.test/m"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
