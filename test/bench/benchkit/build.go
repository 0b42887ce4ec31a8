package benchkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// ErrNoModule is returned, wrapped, by ModuleRoot when the go command is
// not run from inside a module.
var ErrNoModule = errors.New("run from inside the boris module")

// ModuleRoot returns the directory of the main module's go.mod, so that a
// benchmark started anywhere inside the module builds from its root.
func ModuleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("find module root: go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("find module root: %w", ErrNoModule)
	}
	return filepath.Dir(gomod), nil
}

// Build builds ./cmd/name of the module at root, with CGO disabled as
// releases are, into dir and returns the binary's path. boris-gateway
// finds the core next to itself, so a run builds both into one dir.
func Build(ctx context.Context, root, dir, name string) (string, error) {
	return BuildPackage(ctx, root, dir, "./cmd/"+name, name)
}

// BuildPackage builds the main package pkg (a path relative to root, such
// as ./test/bench/floor/server) as Build builds a command, into dir/name.
func BuildPackage(ctx context.Context, root, dir, pkg, name string) (string, error) {
	bin := filepath.Join(dir, name)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build %s: %w\n%s", name, err, out)
	}
	return bin, nil
}

// NodePackage is the npm package a benchmark measures boris against,
// pinned in the package.json and package-lock.json of Dir and installed
// under Dir/node_modules (git-ignored).
type NodePackage struct {
	Dir  string // the benchmark's directory, holding package.json
	Name string // the npm name, e.g. "supergateway"
}

// Entry returns the path of the package's entry script, dist/index.js.
func (p NodePackage) Entry() string {
	return filepath.Join(p.pkgDir(), "dist", "index.js")
}

// pkgDir returns the package's directory under node_modules.
func (p NodePackage) pkgDir() string {
	return filepath.Join(p.Dir, "node_modules", filepath.FromSlash(p.Name))
}

// Ensure runs npm ci in Dir when the entry script is missing, logging
// "prog: installing ..." and npm's output to logw, and returns the entry
// script's path.
func (p NodePackage) Ensure(ctx context.Context, prog string, logw io.Writer) (string, error) {
	js := p.Entry()
	if _, err := os.Stat(js); err == nil {
		return js, nil
	}
	fmt.Fprintln(logw, prog+": installing", p.Name, "(npm ci)")
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = p.Dir
	cmd.Stdout, cmd.Stderr = logw, logw
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("install %s: npm ci in %s: %w", p.Name, p.Dir, err)
	}
	if _, err := os.Stat(js); err != nil {
		return "", fmt.Errorf("install %s: %w", p.Name, err)
	}
	return js, nil
}

// Version returns the installed version, from the package's package.json.
func (p NodePackage) Version() (string, error) {
	pkgJSON := filepath.Join(p.pkgDir(), "package.json")
	data, err := os.ReadFile(pkgJSON)
	if err != nil {
		return "", fmt.Errorf("read %s version: %w", p.Name, err)
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(data, &pkg); err != nil {
		return "", fmt.Errorf("read %s version: parse %s: %w", p.Name, pkgJSON, err)
	}
	return pkg.Version, nil
}

// Environment describes the machine and the Node runtime of a run, for a
// report. A command embeds it beside its peer's version, which each
// command's JSON names after the peer.
type Environment struct {
	GoVersion string `json:"go"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	CPUs      int    `json:"cpus"`
	Node      string `json:"node"`
}

// DescribeEnvironment collects the Go, OS and CPU facts, the version node
// --version prints, and the installed version of the peer package, which
// the caller reports under the peer's own name.
func DescribeEnvironment(ctx context.Context, node string, peer NodePackage) (env Environment, peerVersion string, err error) {
	env = Environment{GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU()}
	out, err := exec.CommandContext(ctx, node, "--version").Output()
	if err != nil {
		return env, "", fmt.Errorf("run %s --version: %w", node, err)
	}
	env.Node = strings.TrimSpace(string(out))
	peerVersion, err = peer.Version()
	return env, peerVersion, err
}

// String formats the environment as a report's first line begins:
// "go1.26.0 linux/amd64, 2 CPUs; node v20.0.0".
func (e Environment) String() string {
	return fmt.Sprintf("%s %s/%s, %d CPUs; node %s", e.GoVersion, e.OS, e.Arch, e.CPUs, e.Node)
}
