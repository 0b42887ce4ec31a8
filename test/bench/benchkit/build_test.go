package benchkit

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjkoo/boris/internal/npmcache"
)

// TestModuleRoot checks that the root found from this package's directory
// holds the module's go.mod.
func TestModuleRoot(t *testing.T) {
	root, err := ModuleRoot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte("module github.com/mjkoo/boris\n")) {
		t.Errorf("go.mod at %s: got %.40q, want the boris module", root, data)
	}
}

// TestBuildFails checks that a failed build says what was being built and
// carries the go command's output.
func TestBuildFails(t *testing.T) {
	root, err := ModuleRoot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_, err = Build(context.Background(), root, t.TempDir(), "no-such-command")
	if err == nil || !strings.HasPrefix(err.Error(), "build no-such-command: ") || !strings.Contains(err.Error(), "no-such-command") {
		t.Errorf("Build of a missing command: got %v, want \"build no-such-command: ...\" with go's output", err)
	}
}

// installFake writes a package as npm would install it for the benchmark
// directory dir (given a package.json and package-lock.json, and an
// installation root of the test's own), marked installed.
func installFake(t *testing.T, dir, name, packageJSON string) {
	t.Helper()
	for file, data := range map[string]string{"package.json": `{"name": "fake-bench"}`, "package-lock.json": "{}"} {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	inst, err := npmcache.Dir(dir)
	if err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(inst, "node_modules", filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Join(pkg, "dist"), 0o755); err != nil {
		t.Fatal(err)
	}
	for file, data := range map[string]string{"package.json": packageJSON, "dist/index.js": ""} {
		if err := os.WriteFile(filepath.Join(pkg, filepath.FromSlash(file)), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(inst, ".boris-installed"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestNodePackage checks the entry script and version of an installed
// scoped package, outside the benchmark's directory, and that Ensure
// leaves an installed package alone.
func TestNodePackage(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("BORIS_TEST_CACHE", cache)
	dir := t.TempDir()
	installFake(t, dir, "@scope/peer", `{"name": "@scope/peer", "version": "1.2.3"}`)
	p := NodePackage{Dir: dir, Name: "@scope/peer"}
	var log bytes.Buffer
	js, err := p.Ensure(context.Background(), "bench", &log)
	if err != nil || !strings.HasPrefix(js, cache+string(filepath.Separator)) || !strings.HasSuffix(js, filepath.Join("node_modules", "@scope", "peer", "dist", "index.js")) || log.Len() != 0 {
		t.Errorf("Ensure: got %q, %v, log %q; want the entry script under %s, nil, no log", js, err, log.String(), cache)
	}
	if v, err := p.Version(); err != nil || v != "1.2.3" {
		t.Errorf("Version: got %q, %v; want 1.2.3, nil", v, err)
	}
}

// TestNodePackageVersionErrors checks that a missing or broken
// package.json is reported naming the package.
func TestNodePackageVersionErrors(t *testing.T) {
	t.Setenv("BORIS_TEST_CACHE", t.TempDir())
	dir := t.TempDir()
	installFake(t, dir, "broken", `{`)
	for _, name := range []string{"missing", "broken"} {
		_, err := NodePackage{Dir: dir, Name: name}.Version()
		if err == nil || !strings.HasPrefix(err.Error(), "read "+name+" version: ") {
			t.Errorf("Version of %s: got %v, want \"read %s version: ...\"", name, err, name)
		}
	}
}

// TestEnvironmentString checks the report's opening words.
func TestEnvironmentString(t *testing.T) {
	e := Environment{GoVersion: "go1.26.0", OS: "linux", Arch: "amd64", CPUs: 2, Node: "v20.1.0"}
	if got, want := e.String(), "go1.26.0 linux/amd64, 2 CPUs; node v20.1.0"; got != want {
		t.Errorf("String: got %q, want %q", got, want)
	}
}
