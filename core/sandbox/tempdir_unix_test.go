//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
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
	held, heldLock, err := makeTempDir(root)
	if err != nil {
		t.Fatal(err)
	}
	defer heldLock.Close()
	own, ownLock, err := makeTempDir(root)
	if err != nil {
		t.Fatal(err)
	}
	defer ownLock.Close()
	dead, deadLock, err := makeTempDir(root)
	if err != nil {
		t.Fatal(err)
	}
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
				dir, lock, err := makeTempDir(root)
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

// TestNewSweepsAndCloseReleases: New removes what a killed boris left and
// Close removes its own directory; a directory whose lock is released
// without Close (the process died) is swept by the next New.
func TestNewSweepsAndCloseReleases(t *testing.T) {
	if abiVersion(nil) < 1 {
		t.Skip("needs Landlock (Linux 5.13+ with landlock enabled): without it there is no private temporary directory")
	}
	root := t.TempDir()
	env := []string{"TMPDIR=" + root}
	first, err := New(Options{MakeTempDir: true, Environ: env})
	if err != nil {
		t.Fatal(err)
	}
	first.tempLock.Close() // killed: the kernel drops the lock, Close never runs
	second, err := New(Options{MakeTempDir: true, Environ: env})
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		_, err := os.Stat(first.TempDir())
		if os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the killed sandbox's directory 10 s after the next New: got %v, want it swept", err)
		}
	}
	if err := second.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(root, "*")); len(left) != 0 {
		t.Errorf("left under TMPDIR after Close: %v", left)
	}
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
