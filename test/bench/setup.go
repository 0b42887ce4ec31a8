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

// peerPackage is the npm package of the peer server, pinned in package.json.
const peerPackage = "@modelcontextprotocol/server-filesystem"

// fixtureLines is how many lines the small text file has.
const fixtureLines = 50

// server is one MCP server under test: how to start it on a directory and
// which tool call reads a file.
type server struct {
	name    string                           // column name in the report
	tool    string                           // tool that reads a file
	command func(dir string) *exec.Cmd       // starts the server scoped to dir
	args    func(file string) map[string]any // arguments that read file
}

// environment describes the machine and versions for the report.
type environment struct {
	GoVersion   string `json:"go"`
	OS          string `json:"os"`
	Arch        string `json:"arch"`
	CPUs        int    `json:"cpus"`
	Node        string `json:"node"`
	PeerVersion string `json:"server_filesystem"`
}

// fixture is the small file both servers read, with what it must contain.
type fixture struct {
	dir   string   // directory both servers are scoped to
	path  string   // absolute path of the file
	lines []string // every line of the file, without newlines
}

// borisServer describes boris run from bin with its view tool.
func borisServer(bin string) server {
	return server{
		name: "boris",
		tool: "view",
		command: func(dir string) *exec.Cmd {
			return exec.Command(bin, "--workdir", dir)
		},
		args: func(file string) map[string]any { return map[string]any{"path": file} },
	}
}

// peerServer describes server-filesystem run by node with read_text_file.
func peerServer(node, js string) server {
	return server{
		name: "server-filesystem",
		tool: "read_text_file",
		command: func(dir string) *exec.Cmd {
			return exec.Command(node, js, dir)
		},
		args: func(file string) map[string]any { return map[string]any{"path": file} },
	}
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

// buildBoris builds ./cmd/boris with CGO disabled into dir and returns the
// binary's path.
func buildBoris(ctx context.Context, root, dir string) (string, error) {
	bin := filepath.Join(dir, "boris")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/boris")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build boris: %w\n%s", err, out)
	}
	return bin, nil
}

// peerEntry returns the path of the peer server's entry script under benchDir.
func peerEntry(benchDir string) string {
	return filepath.Join(benchDir, "node_modules", filepath.FromSlash(peerPackage), "dist", "index.js")
}

// ensurePeer runs npm ci in benchDir when the peer server is not installed
// and returns the path of its entry script.
func ensurePeer(ctx context.Context, benchDir string, logw io.Writer) (string, error) {
	js := peerEntry(benchDir)
	if _, err := os.Stat(js); err == nil {
		return js, nil
	}
	fmt.Fprintln(logw, "bench: installing", peerPackage, "(npm ci)")
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

// describeEnvironment collects the Go, OS, node and peer versions.
func describeEnvironment(ctx context.Context, cfg config, benchDir string) (environment, error) {
	env := environment{GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU()}
	out, err := exec.CommandContext(ctx, cfg.node, "--version").Output()
	if err != nil {
		return env, fmt.Errorf("run %s --version: %w", cfg.node, err)
	}
	env.Node = strings.TrimSpace(string(out))
	pkgJSON := filepath.Join(filepath.Dir(filepath.Dir(peerEntry(benchDir))), "package.json")
	data, err := os.ReadFile(pkgJSON)
	if err != nil {
		return env, fmt.Errorf("read peer version: %w", err)
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(data, &pkg); err != nil {
		return env, fmt.Errorf("read peer version: parse %s: %w", pkgJSON, err)
	}
	env.PeerVersion = pkg.Version
	return env, nil
}

// writeFixture creates dir with a small text file of fixtureLines distinct
// lines. dir is resolved through symlinks so both servers see one real path.
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
		line := fmt.Sprintf("line %02d of the boris bench fixture: the quick brown fox jumps over the lazy dog", i)
		fx.lines = append(fx.lines, line)
		buf.WriteString(line + "\n")
	}
	if err := os.WriteFile(fx.path, buf.Bytes(), 0o644); err != nil {
		return fixture{}, fmt.Errorf("write fixture: %w", err)
	}
	return fx, nil
}
