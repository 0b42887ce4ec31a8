package auth

import (
	"encoding/base64"

	"github.com/golang-jwt/jwt/v5"

	"github.com/mjkoo/boris/auth/authtest"
)

// Claims every valid test token carries.
const (
	testIssuer   = "https://idp.example.test"
	testAudience = "https://boris.example.test/mcp"
)

// testSecret is an HMAC secret of the minimum length.
var testSecret = []byte("0123456789abcdef0123456789abcdef")

// validClaims are the claims of a token the test verifiers accept.
func validClaims(sub, scope string) jwt.MapClaims {
	return authtest.Claims(testIssuer, testAudience, sub, scope)
}

func b64url(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
