package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestBuildShared: with BinDirEnv set, two processes' directories get the
// one binary built in the shared directory (the same file, linked), and
// it runs.
func TestBuildShared(t *testing.T) {
	if testing.Short() {
		t.Skip("builds boris (-short)")
	}
	shared := t.TempDir()
	t.Setenv(BinDirEnv, shared)
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		if err := Build(dir, "boris"); err != nil {
			t.Fatal(err)
		}
	}
	fa, err := os.Stat(filepath.Join(a, "boris"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(b, "boris"), filepath.Join(shared, "boris")} {
		fb, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if !os.SameFile(fa, fb) {
			t.Errorf("%s is not the binary built in the shared directory", p)
		}
	}
	if out, err := exec.Command(filepath.Join(b, "boris"), "--version").CombinedOutput(); err != nil {
		t.Errorf("boris --version: %v: %s", err, out)
	}
	// A directory that already holds the name is refused, not overwritten.
	if err := Build(a, "boris"); err == nil {
		t.Error("building into a directory that holds boris already: no error")
	}
}
