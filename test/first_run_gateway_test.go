package test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMakeRunGateway: the gateway as make run starts it (nothing
// configured: a generated token, cores with --workdir only) prints how to
// read the metrics with that token, which works; its start is not in a
// warned-about state (issue 27: principals' boards readable by every
// core); and the one principal's board is the gateway user's own, which
// boris tasks reads.
func TestMakeRunGateway(t *testing.T) {
	home := realTempDir(t)
	dir := realTempDir(t)
	g := startAuthGateway(t, []string{"HOME=" + home, "XDG_STATE_HOME="}, "--", "--workdir", dir)
	var token string
	waitFor(t, "the generated token and the metrics command on stderr", func() bool {
		m := authGeneratedTokenRe.FindStringSubmatch(g.stderr.String())
		if m != nil {
			token = m[1]
		}
		return m != nil && strings.Contains(g.stderr.String(), "/metrics\n")
	})
	base := strings.TrimSuffix(g.url, "/mcp")
	if want := `curl -H "Authorization: Bearer ` + token + `" ` + base + "/metrics"; !strings.Contains(g.stderr.String(), want) {
		t.Errorf("stderr: got\n%s\nwant the command %s", g.stderr, want)
	}
	req, _ := http.NewRequest(http.MethodGet, base+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "# TYPE ") {
		t.Errorf("GET /metrics with the generated token: got %d %.200s, want 200 and Prometheus metrics", resp.StatusCode, body)
	}

	s := g.connect(token)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "create_task", Arguments: map[string]any{"description": "made through make run"}})
	if err != nil || res.IsError {
		t.Fatalf("create_task: %v %v", err, res)
	}
	stdout, stderr, code := tasksCLI(t, []string{"HOME=" + home, "BORIS_TASKS_DB="}, "list")
	if code != 0 || !strings.Contains(stdout, "made through make run") {
		t.Errorf("boris tasks list as the gateway's user: exit %d, %q %q; want the task the agent wrote", code, stdout, stderr)
	}
	if log := g.stderr.String(); strings.Contains(log, "readable by every core") {
		t.Errorf("make run's gateway warns about open boards:\n%s", log)
	}
	if _, err := os.Stat(filepath.Join(home, ".boris", "gateway", "boards")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a principals' boards directory was made for the one principal: %v", err)
	}
}

// TestPrintConfigNamesMetrics: make run's first output says how to see the
// dashboard and the metrics with the generated token.
func TestPrintConfigNamesMetrics(t *testing.T) {
	out, err := exec.Command("../scripts/print-config.sh", borisBin, "/srv/project", "9000").CombinedOutput()
	if err != nil {
		t.Fatalf("print-config.sh: %v\n%s", err, out)
	}
	for _, want := range []string{`"generated"`, "http://127.0.0.1:9000/dashboard", `curl -H "Authorization: Bearer TOKEN" http://127.0.0.1:9000/metrics`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("print-config.sh output:\n%s\nwant %q", out, want)
		}
	}
}

// TestGatewayTokenArgumentWarns: one --token on the command line, with no
// --workdir-template, is warned about (ps shows it to every user); the same
// token from the environment is not.
func TestGatewayTokenArgumentWarns(t *testing.T) {
	const warning = "visible to every process on this host"
	g := startAuthGateway(t, nil, "--token", "alice="+authAlice)
	if !strings.Contains(g.stderr.String(), warning) {
		t.Errorf("one --token argument: stderr\n%s\nwant a warning that it is visible", g.stderr)
	}
	e := startAuthGateway(t, []string{"BORIS_GATEWAY_TOKENS=alice=" + authAlice})
	if strings.Contains(e.stderr.String(), warning) {
		t.Errorf("a token from BORIS_GATEWAY_TOKENS: stderr\n%s\nwant no warning", e.stderr)
	}
}

// TestGatewayPublicKeyIsNotSecret: a --jwt-public-key file where cores'
// commands can read it does not stop the gateway (issue 27: it was
// refused as a secret); a key file that also holds a private key does.
func TestGatewayPublicKeyIsNotSecret(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	priv, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := realTempDir(t) // cores have no --allow-dir: their commands may read it
	pubFile := filepath.Join(dir, "jwt.pub")
	writeFile(t, pubFile, string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub})))
	startAuthGateway(t, nil, "--jwt-public-key", pubFile, "--jwt-audience", "boris-e2e", "--", "--workdir", dir)

	pairFile := filepath.Join(dir, "jwt.pem")
	writeFile(t, pairFile, readFile(t, pubFile)+string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: priv})))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, gatewayBin(t), "--listen", "127.0.0.1:0", "--jwt-public-key", pairFile, "--jwt-audience", "boris-e2e", "--", "--workdir", dir)
	cmd.Env = cleanEnv()
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), pairFile) {
		t.Errorf("a key file holding a private key where commands can read it: got %v\n%s\nwant exit 2 naming it", err, out)
	}
}
