//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestSweepTakesOnlyUnheldDirectories: the sweep removes a private
// temporary directory nobody holds, and leaves alone one that is held,
// the caller's own, a symlink of the same name (a hostile tenant pointing
// the sweep at someone else's files), a file, a directory of the naming
// scheme before locking, one whose name only begins like the scheme's, and
// (as root) another user's directory.
func TestSweepTakesOnlyUnheldDirectories(t *testing.T) {
	root := t.TempDir()
	held, heldLock := newTempDir(t, root)
	defer heldLock.Close()
	own, ownLock := newTempDir(t, root)
	defer ownLock.Close()
	dead, deadLock := newTempDir(t, root)
	mustWrite(t, filepath.Join(dead, "sub", "file"))
	deadLock.Close() // its boris died

	victim := t.TempDir()
	mustWrite(t, filepath.Join(victim, "precious"))
	if err := os.Symlink(victim, filepath.Join(root, tempDirPrefix+"111")); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(root, tempDirPrefix+"222"))
	legacy := filepath.Join(root, "boris-123456")
	mustWrite(t, filepath.Join(legacy, "file"))
	named := filepath.Join(root, tempDirPrefix+"notes") // a user's own directory
	mustWrite(t, filepath.Join(named, "file"))
	keep := []string{held, own, filepath.Join(victim, "precious"), filepath.Join(root, tempDirPrefix+"222"), legacy, named}
	if os.Getuid() == 0 {
		other := filepath.Join(root, tempDirPrefix+"333")
		mustWrite(t, filepath.Join(other, "file"))
		if err := os.Chown(other, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		keep = append(keep, other)
	}

	if n := sweepTempDirs(root, own); n != 1 {
		t.Errorf("sweep removed %d directories, want 1 (the unheld one)", n)
	}
	if _, err := os.Lstat(dead); !os.IsNotExist(err) {
		t.Errorf("the unheld directory %s: got %v, want it removed", dead, err)
	}
	for _, p := range keep {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s should have been left alone: %v", p, err)
		}
	}
}

// TestSweepRacesCreation: borises starting at once, each sweeping the
// same TMPDIR while the others create theirs, never remove a directory
// whose boris is alive. flock locks belong to open file descriptions, so
// goroutines here conflict as processes would.
func TestSweepRacesCreation(t *testing.T) {
	root := t.TempDir()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 40 {
				dir := filepath.Join(root, tempDirName())
				lock, err := makeTempDir(dir)
				if err != nil {
					t.Error(err)
					return
				}
				sweepTempDirs(root, dir)
				if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o600); err != nil {
					t.Errorf("a live directory was swept: %v", err)
				}
				os.RemoveAll(dir)
				lock.Close()
			}
		})
	}
	wg.Wait()
}

// TestSweepsAndCloseReleases: the next sandbox's Sweep removes what a
// killed boris left and Close removes its own directory; a directory
// whose lock is released without Close (the process died) is swept by the
// next sandbox, however many times it asks (Sweep, then Prepare).
func TestSweepsAndCloseReleases(t *testing.T) {
	if abiVersion(nil) < 1 {
		t.Skip("needs Landlock (Linux 5.13+ with landlock enabled): without it there is no private temporary directory")
	}
	root := t.TempDir()
	env := []string{"TMPDIR=" + root}
	first, err := New(Options{MakeTempDir: true, Environ: env})
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Prepare(); err != nil {
		t.Fatal(err)
	}
	first.tempLock.Close() // killed: the kernel drops the lock, Close never runs
	second, err := New(Options{MakeTempDir: true, Environ: env})
	if err != nil {
		t.Fatal(err)
	}
	second.Sweep()
	if err := second.Prepare(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		_, err := os.Stat(first.TempDir())
		if os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the killed sandbox's directory 10 s after the next one's Sweep: got %v, want it swept", err)
		}
	}
	if err := second.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(root, "*")); len(left) != 0 {
		t.Errorf("left under TMPDIR after Close: %v", left)
	}
}

// newTempDir makes a private temporary directory under root, as Prepare
// does, and returns it with its lock.
func newTempDir(t *testing.T, root string) (string, *os.File) {
	t.Helper()
	dir := filepath.Join(root, tempDirName())
	lock, err := makeTempDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, lock
}

func mustWrite(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTempDirMadeBeforeCommands: New only names the private temporary
// directory; the rules handed to a command (Wrap) include it made. A path
// someone else took first is never used: Prepare fails, the rules leave it
// out, and Close leaves it alone.
func TestTempDirMadeBeforeCommands(t *testing.T) {
	if abiVersion(nil) < 1 {
		t.Skip("needs Landlock (Linux 5.13+ with landlock enabled): without it there is no private temporary directory")
	}
	root, work := t.TempDir(), t.TempDir()
	s, err := New(Options{Allowed: []string{work}, MakeTempDir: true, Environ: []string{"TMPDIR=" + root}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(s.TempDir()); !os.IsNotExist(err) {
		t.Errorf("private TMPDIR after New: got %v, want none yet", err)
	}
	argv := s.Wrap([]string{"/bin/true"})
	if fi, err := os.Lstat(s.TempDir()); err != nil || !fi.IsDir() {
		t.Fatalf("private TMPDIR once a command is wrapped: got %v, want a directory", err)
	}
	if !slices.Contains(argv, "w:"+s.TempDir()) {
		t.Errorf("wrapped argv %q does not grant the private TMPDIR", argv)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	taken, err := New(Options{Allowed: []string{work}, MakeTempDir: true, Environ: []string{"TMPDIR=" + root}})
	if err != nil {
		t.Fatal(err)
	}
	victim := t.TempDir()
	if err := os.Symlink(victim, taken.TempDir()); err != nil {
		t.Fatal(err)
	}
	if err := taken.Prepare(); err == nil {
		t.Error("Prepare with the path already taken: got no error, want one")
	}
	for _, p := range append(taken.Spec().Write, taken.Spec().Read...) {
		if p == taken.TempDir() || p == victim {
			t.Errorf("the rules grant %s, which is not this sandbox's", p)
		}
	}
	if err := taken.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(taken.TempDir()); err != nil {
		t.Errorf("Close removed a path it did not make: %v", err)
	}
}
