package test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// pki is what the test's control plane authenticates with, as files in
// dir: a CA, the API server's serving certificate, an administrator's
// client certificate (group system:masters) and the service account
// signing key.
type pki struct {
	dir                            string
	caCert, serverCert, serverKey  string
	clientCert, clientKey          string
	serviceAccountKey, serviceAcct string
}

func newPKI(t *testing.T, dir string) pki {
	t.Helper()
	p := pki{dir: dir}
	caKey := newKey(t)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "boris-test-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatalf("create the test CA: %v", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatalf("parse the test CA: %v", err)
	}
	p.caCert = p.writePEM(t, "ca.crt", "CERTIFICATE", caDER)
	p.serverCert, p.serverKey = p.leaf(t, ca, caKey, "server", &x509.Certificate{
		Subject:     pkix.Name{CommonName: "kube-apiserver"},
		DNSNames:    []string{"localhost", "kubernetes.default.svc"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
	p.clientCert, p.clientKey = p.leaf(t, ca, caKey, "admin", &x509.Certificate{
		Subject:     pkix.Name{CommonName: "boris-test-admin", Organization: []string{"system:masters"}},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	saKey := newKey(t)
	der, err := x509.MarshalECPrivateKey(saKey)
	if err != nil {
		t.Fatalf("marshal the service account key: %v", err)
	}
	p.serviceAccountKey = p.writePEM(t, "sa.key", "EC PRIVATE KEY", der)
	pub, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		t.Fatalf("marshal the service account public key: %v", err)
	}
	p.serviceAcct = p.writePEM(t, "sa.pub", "PUBLIC KEY", pub)
	return p
}

// leaf issues a certificate from tmpl, signed by the CA, and writes it
// and its key as name.crt and name.key.
func (p pki) leaf(t *testing.T, ca *x509.Certificate, caKey *ecdsa.PrivateKey, name string, tmpl *x509.Certificate) (string, string) {
	t.Helper()
	key := newKey(t)
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatalf("serial for %s: %v", name, err)
	}
	tmpl.SerialNumber = serial
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatalf("issue the %s certificate: %v", name, err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatalf("marshal the %s key: %v", name, err)
	}
	return p.writePEM(t, name+".crt", "CERTIFICATE", der), p.writePEM(t, name+".key", "EC PRIVATE KEY", keyDER)
}

func (p pki) writePEM(t *testing.T, name, kind string, der []byte) string {
	t.Helper()
	path := filepath.Join(p.dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatalf("write %s: %v", path, err)
	}
	return path
}

func newKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("generate a key: %v", err)
	}
	return k
}
