package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"slices"
)

// minRSABits refuses RSA keys too small to trust.
const minRSABits = 2048

// minHMACSecret is the shortest HMAC secret accepted (RFC 7518 §3.2: a key
// of the same size as the hash output or larger; 32 bytes for HS256).
const minHMACSecret = 32

// algsFor is the explicit allow-list of JWS algorithms per key type: never
// "none", and HMAC only with a secret, never with a public key, so the
// classic "HS256 signed with the RSA public key" forgery cannot verify.
func algsFor(key any) []string {
	switch k := key.(type) {
	case []byte:
		return []string{"HS256", "HS384", "HS512"}
	case *rsa.PublicKey:
		return []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512"}
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			return []string{"ES256"}
		case elliptic.P384():
			return []string{"ES384"}
		case elliptic.P521():
			return []string{"ES512"}
		}
	case ed25519.PublicKey:
		return []string{"EdDSA"}
	}
	return nil
}

// allAlgs is every algorithm any key type may use.
var allAlgs = []string{"HS256", "HS384", "HS512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// allows reports whether key may verify a token signed with alg.
func allows(key any, alg string) bool { return slices.Contains(algsFor(key), alg) }

// LoadPublicKey reads a PEM public key (PKIX "PUBLIC KEY", PKCS#1 "RSA
// PUBLIC KEY", or a certificate) of type RSA, ECDSA or Ed25519.
func LoadPublicKey(path string) (crypto.PublicKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read public key: %w", err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("public key %s: no PEM block", path)
	}
	key, err := parsePEMBlock(block)
	if err != nil {
		return nil, fmt.Errorf("public key %s: %w", path, err)
	}
	if err := usable(key); err != nil {
		return nil, fmt.Errorf("public key %s: %w", path, err)
	}
	return key, nil
}

func parsePEMBlock(block *pem.Block) (crypto.PublicKey, error) {
	switch block.Type {
	case "PUBLIC KEY":
		return x509.ParsePKIXPublicKey(block.Bytes)
	case "RSA PUBLIC KEY":
		return x509.ParsePKCS1PublicKey(block.Bytes)
	case "CERTIFICATE":
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, err
		}
		return cert.PublicKey, nil
	}
	return nil, fmt.Errorf("unsupported PEM block %q: want PUBLIC KEY, RSA PUBLIC KEY or CERTIFICATE", block.Type)
}

// usable checks a public key is of a supported type and strength.
func usable(key crypto.PublicKey) error {
	switch k := key.(type) {
	case *rsa.PublicKey:
		if k.N.BitLen() < minRSABits {
			return fmt.Errorf("RSA key of %d bits, want at least %d", k.N.BitLen(), minRSABits)
		}
		return nil
	case *ecdsa.PublicKey, ed25519.PublicKey:
		if algsFor(k) == nil {
			return errors.New("unsupported elliptic curve")
		}
		return nil
	}
	return fmt.Errorf("unsupported key type %T", key)
}

// LoadHMACSecret reads a secret file, trimming one trailing newline.
func LoadHMACSecret(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read JWT secret: %w", err)
	}
	return CheckHMACSecret(trimNewline(data))
}

// CheckHMACSecret enforces the minimum secret length.
func CheckHMACSecret(secret []byte) ([]byte, error) {
	if len(secret) < minHMACSecret {
		return nil, fmt.Errorf("JWT secret of %d bytes, want at least %d", len(secret), minHMACSecret)
	}
	return secret, nil
}

func trimNewline(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b
}
