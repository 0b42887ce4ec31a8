package auth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mjkoo/boris/auth/authtest"
)

func TestLoadPublicKey(t *testing.T) {
	k := authtest.Keys()
	p224, err := ecdsa.GenerateKey(elliptic.P224(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	cert := selfSigned(t, k.EC256)
	tests := []struct {
		name    string
		path    func(t *testing.T) string
		wantErr string // "" means the key loads
	}{
		{"RSA PKIX", func(t *testing.T) string { return authtest.WritePublicKey(t, &k.RSA.PublicKey) }, ""},
		{"RSA PKCS#1", func(t *testing.T) string {
			return authtest.WritePEM(t, "RSA PUBLIC KEY", x509.MarshalPKCS1PublicKey(&k.RSA.PublicKey))
		}, ""},
		{"ECDSA P-256", func(t *testing.T) string { return authtest.WritePublicKey(t, &k.EC256.PublicKey) }, ""},
		{"ECDSA P-521", func(t *testing.T) string { return authtest.WritePublicKey(t, &k.EC521.PublicKey) }, ""},
		{"Ed25519", func(t *testing.T) string { return authtest.WritePublicKey(t, k.Ed25519.Public()) }, ""},
		{"certificate", func(t *testing.T) string { return authtest.WritePEM(t, "CERTIFICATE", cert) }, ""},
		{"RSA 1024 bits", func(t *testing.T) string { return authtest.WritePublicKey(t, &k.RSASmall.PublicKey) }, "1024 bits"},
		{"ECDSA P-224", func(t *testing.T) string { return authtest.WritePublicKey(t, &p224.PublicKey) }, "unsupported elliptic curve"},
		{"private key", func(t *testing.T) string {
			return authtest.WritePEM(t, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(k.RSA))
		}, "unsupported PEM block"},
		{"not PEM", func(t *testing.T) string {
			path := filepath.Join(t.TempDir(), "key.pem")
			if err := os.WriteFile(path, []byte("ssh-ed25519 AAAA..."), 0o600); err != nil {
				t.Fatal(err)
			}
			return path
		}, "no PEM block"},
		{"missing file", func(t *testing.T) string { return filepath.Join(t.TempDir(), "absent.pem") }, "read public key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, err := LoadPublicKey(tt.path(t))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("got %v, want the key loaded", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("got key %T, error %v; want an error mentioning %q", key, err, tt.wantErr)
			}
		})
	}
}

// selfSigned returns a DER certificate for key's public half.
func selfSigned(t *testing.T, key *ecdsa.PrivateKey) []byte {
	t.Helper()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "idp.example.test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

// TestHMACSecretLength: RFC 7518 §3.2 wants a key at least as long as the
// hash; secrets under 32 bytes are refused, and a trailing newline (as
// editors write) does not count.
func TestHMACSecretLength(t *testing.T) {
	secret32 := string(testSecret)
	tests := []struct {
		name    string
		content string
		want    string // the secret loaded; "" means refused
	}{
		{"32 bytes", secret32, secret32},
		{"32 bytes and a newline", secret32 + "\n", secret32},
		{"32 bytes and CRLF", secret32 + "\r\n", secret32},
		{"31 bytes", secret32[:31], ""},
		{"31 bytes and a newline", secret32[:31] + "\n", ""},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "secret")
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := LoadHMACSecret(path)
			switch {
			case tt.want == "" && err == nil:
				t.Errorf("got secret %q, want it refused", got)
			case tt.want == "" && !strings.Contains(err.Error(), "at least 32"):
				t.Errorf("got %v, want an error naming the 32-byte minimum", err)
			case tt.want != "" && (err != nil || string(got) != tt.want):
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	if _, err := LoadHMACSecret(filepath.Join(t.TempDir(), "absent")); err == nil {
		t.Error("missing secret file: got nil, want an error")
	}
}
