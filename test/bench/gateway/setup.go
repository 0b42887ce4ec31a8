package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// peerPackage is the npm package of the peer gateway, pinned in package.json.
const peerPackage = "supergateway"

// fixtureLines is how many lines the small text file has.
const fixtureLines = 50

// binaries are the programs under test.
type binaries struct {
	boris   string // the core, built from ./cmd/boris
	gateway string // boris-gateway, built from ./cmd/boris-gateway
	peerJS  string // supergateway's entry script
}

// environment describes the machine and versions for the report.
type environment struct {
	GoVersion   string `json:"go"`
	OS          string `json:"os"`
	Arch        string `json:"arch"`
	CPUs        int    `json:"cpus"`
	Node        string `json:"node"`
	PeerVersion string `json:"supergateway"`
}

// fixture is the small file every call reads, with what it must contain.
type fixture struct {
	dir   string   // directory every core is scoped to (--workdir)
	path  string   // absolute path of the file
	lines []string // every line of the file, without newlines
}

// prepare builds boris and boris-gateway into tmp, installs supergateway if
// needed and describes the run's environment.
func prepare(ctx context.Context, cfg config, root, tmp string, logw io.Writer) (binaries, environment, error) {
	var bins binaries
	var err error
	fmt.Fprintln(logw, "bench-gateway: building boris and boris-gateway")
	if bins.boris, err = build(ctx, root, tmp, "boris"); err != nil {
		return bins, environment{}, err
	}
	if bins.gateway, err = build(ctx, root, tmp, "boris-gateway"); err != nil {
		return bins, environment{}, err
	}
	benchDir := filepath.Join(root, "test", "bench", "gateway")
	if bins.peerJS, err = ensurePeer(ctx, benchDir, logw); err != nil {
		return bins, environment{}, err
	}
	env, err := describeEnvironment(ctx, cfg, benchDir)
	return bins, env, err
}

// moduleRoot returns the directory of the main module's go.mod.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("find module root: go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("find module root: run from inside the boris module")
	}
	return filepath.Dir(gomod), nil
}

// build builds ./cmd/name with CGO disabled into dir and returns the
// binary's path. boris-gateway finds the core next to itself, so both go
// in the same directory.
func build(ctx context.Context, root, dir, name string) (string, error) {
	bin := filepath.Join(dir, name)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/"+name)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build %s: %w\n%s", name, err, out)
	}
	return bin, nil
}

// peerEntry returns the path of supergateway's entry script under benchDir.
func peerEntry(benchDir string) string {
	return filepath.Join(benchDir, "node_modules", peerPackage, "dist", "index.js")
}

// ensurePeer runs npm ci in benchDir when supergateway is not installed and
// returns the path of its entry script.
func ensurePeer(ctx context.Context, benchDir string, logw io.Writer) (string, error) {
	js := peerEntry(benchDir)
	if _, err := os.Stat(js); err == nil {
		return js, nil
	}
	fmt.Fprintln(logw, "bench-gateway: installing", peerPackage, "(npm ci)")
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = benchDir
	cmd.Stdout, cmd.Stderr = logw, logw
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("install %s: npm ci in %s: %w", peerPackage, benchDir, err)
	}
	if _, err := os.Stat(js); err != nil {
		return "", fmt.Errorf("install %s: %w", peerPackage, err)
	}
	return js, nil
}

// describeEnvironment collects the Go, OS, node and supergateway versions.
func describeEnvironment(ctx context.Context, cfg config, benchDir string) (environment, error) {
	env := environment{GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU()}
	out, err := exec.CommandContext(ctx, cfg.node, "--version").Output()
	if err != nil {
		return env, fmt.Errorf("run %s --version: %w", cfg.node, err)
	}
	env.Node = strings.TrimSpace(string(out))
	pkgJSON := filepath.Join(benchDir, "node_modules", peerPackage, "package.json")
	data, err := os.ReadFile(pkgJSON)
	if err != nil {
		return env, fmt.Errorf("read %s version: %w", peerPackage, err)
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(data, &pkg); err != nil {
		return env, fmt.Errorf("read %s version: parse %s: %w", peerPackage, pkgJSON, err)
	}
	env.PeerVersion = pkg.Version
	return env, nil
}

// writeFixture creates dir with a small text file of fixtureLines distinct
// lines. dir is resolved through symlinks so every core sees one real path.
func writeFixture(dir string) (fixture, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fixture{}, fmt.Errorf("create fixture dir: %w", err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fixture{}, fmt.Errorf("resolve fixture dir: %w", err)
	}
	fx := fixture{dir: real, path: filepath.Join(real, "small.txt")}
	var buf bytes.Buffer
	for i := 1; i <= fixtureLines; i++ {
		line := fmt.Sprintf("line %02d of the boris gateway bench fixture: the quick brown fox jumps over the lazy dog", i)
		fx.lines = append(fx.lines, line)
		buf.WriteString(line + "\n")
	}
	if err := os.WriteFile(fx.path, buf.Bytes(), 0o644); err != nil {
		return fixture{}, fmt.Errorf("write fixture: %w", err)
	}
	return fx, nil
}
