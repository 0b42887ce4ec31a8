// Package deploy tests what deploy/ and goreleaser.yaml ship, with the real
// tools: nginx and Caddy in front of a real boris-gateway, driven by go-sdk's
// MCP client over HTTPS; systemd-analyze on the unit; the environment file
// and the Containerfile against the binaries' own settings; and, with
// BORIS_RELEASE_CHECK=1 (`make release-check`), the snapshot release archives.
//
// The proxy tests install nginx and caddy with apt-get when they are missing
// (Debian, as root), so CI needs nothing set up beforehand.
package deploy

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mjkoo/boris/internal/testbin"
)

// Paths shared by every test, set by TestMain.
var (
	repoRoot   string // the module's root directory
	binDir     string // holds the boris and boris-gateway built for this run
	borisBin   string
	gatewayBin string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		fmt.Fprintln(os.Stderr, "repo root:", err)
		return 1
	}
	repoRoot = root
	binDir, err = os.MkdirTemp("", "boris-deploy-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "temp dir:", err)
		return 1
	}
	defer os.RemoveAll(binDir)
	// Both binaries in one directory: the gateway finds the core next to it.
	if err := testbin.Build(binDir, "boris", "boris-gateway"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	borisBin = filepath.Join(binDir, "boris")
	gatewayBin = filepath.Join(binDir, "boris-gateway")
	return m.Run()
}

// deployFile reads a file of the repository, relative to its root.
func deployFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, rel))
	if err != nil {
		t.Fatalf("read %s: %v", rel, err)
	}
	return string(b)
}

// setting is one entry of a binary's --help: flag, environment variable and
// default.
type setting struct {
	flag, env, def string
}

var (
	helpEnvRE  = regexp.MustCompile(`^\s+env (BORIS_[A-Z0-9_]+), default (.*)$`)
	helpFlagRE = regexp.MustCompile(`^  --([a-z0-9-]+)`)
)

// settings runs bin --help and returns its settings keyed by flag name.
// Parsing the help text rather than the Config struct tests what an operator
// sees.
func settings(t *testing.T, bin string) map[string]setting {
	t.Helper()
	cmd := exec.Command(bin, "--help")
	cmd.Env = cleanEnv()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s --help: %v", filepath.Base(bin), err)
	}
	got := map[string]setting{}
	var cur string
	for _, line := range strings.Split(string(out), "\n") {
		if m := helpFlagRE.FindStringSubmatch(line); m != nil {
			cur = m[1]
			got[cur] = setting{flag: cur}
		} else if m := helpEnvRE.FindStringSubmatch(line); m != nil && cur != "" {
			got[cur] = setting{flag: cur, env: m[1], def: m[2]}
		}
	}
	if len(got) < 5 {
		t.Fatalf("%s --help listed %d settings, want the full list:\n%s", filepath.Base(bin), len(got), out)
	}
	return got
}

// envNames is the set of environment variables among settings.
func envNames(s map[string]setting) map[string]bool {
	names := map[string]bool{}
	for _, v := range s {
		if v.env != "" {
			names[v.env] = true
		}
	}
	return names
}

// cleanEnv is the test's environment without BORIS_* settings, so a
// developer's own configuration cannot change what a test sees.
func cleanEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BORIS_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}
