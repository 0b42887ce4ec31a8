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

	"github.com/mjkoo/boris/internal/npmcache"
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
// outside the checkout, where test/interop installs its clients too
// (internal/npmcache).
type NodePackage struct {
	Dir  string // the benchmark's directory, holding package.json
	Name string // the npm name, e.g. "supergateway"
}

// Entry returns the path of the package's entry script, dist/index.js.
func (p NodePackage) Entry() (string, error) {
	dir, err := p.pkgDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "dist", "index.js"), nil
}

// pkgDir returns the package's directory in the installation.
func (p NodePackage) pkgDir() (string, error) {
	dir, err := npmcache.Dir(p.Dir)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "node_modules", filepath.FromSlash(p.Name)), nil
}

// Ensure installs the pinned packages when they are not yet (saying so on
// logw, as "prog: ...") and returns the entry script's path.
func (p NodePackage) Ensure(ctx context.Context, prog string, logw io.Writer) (string, error) {
	if _, err := npmcache.Install(ctx, p.Dir, prefixed{prog + ": ", logw}); err != nil {
		return "", fmt.Errorf("install %s: %w", p.Name, err)
	}
	js, err := p.Entry()
	if err == nil {
		_, err = os.Stat(js)
	}
	if err != nil {
		return "", fmt.Errorf("install %s: %w", p.Name, err)
	}
	return js, nil
}

// prefixed writes each write to w after prefix.
type prefixed struct {
	prefix string
	w      io.Writer
}

func (p prefixed) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.w, p.prefix); err != nil {
		return 0, err
	}
	return p.w.Write(b)
}

// Version returns the installed version, from the package's package.json.
func (p NodePackage) Version() (string, error) {
	dir, err := p.pkgDir()
	if err != nil {
		return "", fmt.Errorf("read %s version: %w", p.Name, err)
	}
	pkgJSON := filepath.Join(dir, "package.json")
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

// BuildWithFloor builds boris and the floor server of test/bench/floor
// (a bare go-sdk server of one tool, on the same SDK version) into ws.Dir
// and returns both binaries' paths.
func BuildWithFloor(ctx context.Context, ws *Workspace) (boris, floor string, err error) {
	if boris, err = Build(ctx, ws.Root, ws.Dir, "boris"); err != nil {
		return "", "", err
	}
	floor, err = BuildPackage(ctx, ws.Root, ws.Dir, "./test/bench/floor/server", "floor")
	return boris, floor, err
}
