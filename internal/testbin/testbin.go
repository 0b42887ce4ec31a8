// Package testbin provides what end-to-end tests of Boris's binaries need
// first: the binaries, built once per test run from this module's source;
// WaitFor, to await what those binaries do; and Tree, to lay out the files
// they are given.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BinDirEnv names a directory make test builds the binaries into once,
// before it starts the test processes: Build then finds them there up to
// date and links them into each process's own directory, instead of each
// process linking copies of its own.
const BinDirEnv = "BORIS_TEST_BIN_DIR"

// Build compiles each command of cmd/ named in cmds (e.g. "boris",
// "boris-gateway") into dir as static binaries, compiled as make build
// compiles them (CGO_ENABLED=0, -trimpath, no symbol table or debug
// information): the packages make run compiled are in Go's build cache
// for make test, and the other way round. With BinDirEnv set, they are
// built there (go build links only what is out of date) and hard-linked
// into dir: each test process still runs binaries from a directory of
// its own, which its checks for leftover processes rely on.
func Build(dir string, cmds ...string) error {
	shared := os.Getenv(BinDirEnv)
	if shared == "" {
		return build(dir, cmds...)
	}
	if err := build(shared, cmds...); err != nil {
		return err
	}
	for _, name := range cmds {
		if err := os.Link(filepath.Join(shared, name), filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("%s: %w", BinDirEnv, err)
		}
	}
	return nil
}

func build(dir string, cmds ...string) error {
	args := []string{"build", "-trimpath", "-ldflags=-s -w", "-o", dir + string(filepath.Separator)}
	for _, name := range cmds {
		args = append(args, "github.com/mjkoo/boris/cmd/"+name)
	}
	build := exec.Command("go", args...)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("build %s: %w\n%s", strings.Join(cmds, ", "), err, out)
	}
	return nil
}

// Main is a TestMain body: it builds cmds into a fresh temporary directory,
// hands that directory to ready, runs the tests, removes the directory and
// exits with the tests' status. Processes the tests start keep their
// state (checkpoint shadows) in that directory too, not in the user's
// ~/.local/state: XDG_STATE_HOME points there unless a test sets its own.
func Main(m *testing.M, ready func(dir string), cmds ...string) {
	tmp, err := os.MkdirTemp("", "boris-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "temp dir:", err)
		os.Exit(1)
	}
	if err := os.Setenv("XDG_STATE_HOME", filepath.Join(tmp, "state")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := Build(tmp, cmds...); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(tmp)
		os.Exit(1)
	}
	ready(tmp)
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

// WaitFor polls cond every 20 ms until it holds, failing the test after a
// generous deadline: a minute, since make test runs packages and the
// end-to-end shards side by side on as few as two cores, and a deadline
// only ends what never comes.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Tree writes files (path relative to root → content) under root,
// creating parents: a content starting with "#!" is executable, one
// starting with "->" makes a symlink to the rest instead.
func Tree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		if target, ok := strings.CutPrefix(content, "->"); ok {
			err = os.Symlink(target, p)
		} else {
			mode := os.FileMode(0o644)
			if strings.HasPrefix(content, "#!") {
				mode = 0o755
			}
			err = os.WriteFile(p, []byte(content), mode)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// RealTemp is a temporary directory of t's by its real path (the system's
// may be reached through a link, which paths a binary reports resolve).
func RealTemp(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}
