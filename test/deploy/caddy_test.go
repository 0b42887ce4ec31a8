package deploy

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
)

const caddyfilePath = "deploy/caddy/Caddyfile"

// TestCaddy runs real Caddy with deploy/caddy/Caddyfile in front of a real
// boris-gateway and drives an MCP session through it over HTTPS.
//
// The file is used as shipped, except for these substitutions (in order):
//   - the commented-out "# tls <cert> <key>" line -> "tls" with the test's
//     self-signed pair (instead of obtaining a certificate with ACME);
//   - mcp.example.com -> mcp.boris.test (the site address);
//   - 127.0.0.1:8080 (the upstream) -> the gateway's address.
//
// A global options block is put in front, as an operator's own would be:
// loopback ports only, no admin endpoint, no trust-store changes. HOME and
// the XDG directories (Caddy's storage) point into a temp directory.
func TestCaddy(t *testing.T) {
	caddy := ensureInstalled(t, "caddy", "caddy")
	// Caddy warns on every start about a file that is not as `caddy fmt`
	// writes it.
	if out, err := exec.Command(caddy, "fmt", filepath.Join(repoRoot, caddyfilePath)).Output(); err != nil || string(out) != deployFile(t, caddyfilePath) {
		t.Errorf("%s is not formatted as `caddy fmt` writes it (%v)", caddyfilePath, err)
	}
	dir := t.TempDir()
	certs := makeCert(t, dir)
	proxyAddr, redirectAddr := proxyAddress(t), proxyAddress(t)
	gw := startGateway(t, "https://"+testHost+":"+portOf(proxyAddr)+"/mcp")

	const certs0 = "/etc/letsencrypt/live/mcp.example.com/fullchain.pem /etc/letsencrypt/live/mcp.example.com/privkey.pem"
	site := substitute(t, caddyfilePath, deployFile(t, caddyfilePath), [][2]string{
		{"# tls " + certs0, "tls " + certs.cert + " " + certs.key},
		{"mcp.example.com", testHost},
		{"127.0.0.1:8080", gw.addr},
	})
	global := fmt.Sprintf(`{
	admin off
	default_bind 127.0.0.1
	https_port %s
	http_port %s
	skip_install_trust
}

`, portOf(proxyAddr), portOf(redirectAddr))
	conf := filepath.Join(dir, "Caddyfile")
	writeText(t, conf, global+site)

	cmd := exec.Command(caddy, "run", "--config", conf, "--adapter", "caddyfile")
	cmd.Dir = dir
	cmd.Env = cleanEnv("HOME="+dir, "XDG_DATA_HOME="+filepath.Join(dir, "data"), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	p := startProc(t, "caddy", cmd)
	testThroughProxy(t, p, proxyAddr, certs, gw)
}
