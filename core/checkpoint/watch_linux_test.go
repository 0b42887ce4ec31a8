package checkpoint

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func newTestWatcher(t *testing.T, tree string, skip func(string) bool) *watcher {
	t.Helper()
	if skip == nil {
		skip = func(string) bool { return false }
	}
	w, err := newWatcher(tree, skip)
	if err != nil {
		t.Skipf("inotify is not available here: %v", err)
	}
	t.Cleanup(w.close)
	if _, all := w.changes(); !all {
		t.Fatal("a new watcher must say anything may have changed before it")
	}
	return w
}

// wantChanges checks that the watcher names exactly want (order aside).
func wantChanges(t *testing.T, w *watcher, want ...string) {
	t.Helper()
	got, all := w.changes()
	if all {
		t.Fatalf("changes: got all, want %q", want)
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("changes: got %q, want %q", got, want)
	}
}

func TestWatcherNamesWhatChanged(t *testing.T) {
	tree := t.TempDir()
	mustWrite(t, filepath.Join(tree, "a.txt"), "a")
	mustWrite(t, filepath.Join(tree, "src/deep/b.txt"), "b")
	w := newTestWatcher(t, tree, nil)

	wantChanges(t, w) // nothing happened: nothing to scan

	mustWrite(t, filepath.Join(tree, "src/deep/b.txt"), "b2")
	wantChanges(t, w, "src/deep/b.txt")

	if err := os.Chmod(filepath.Join(tree, "a.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	wantChanges(t, w, "a.txt")

	if err := os.Remove(filepath.Join(tree, "a.txt")); err != nil {
		t.Fatal(err)
	}
	wantChanges(t, w, "a.txt")
}

func TestWatcherFollowsNewAndMovedDirectories(t *testing.T) {
	tree := t.TempDir()
	mustWrite(t, filepath.Join(tree, "src/x.txt"), "x")
	w := newTestWatcher(t, tree, nil)

	// A new directory made and filled before the watcher looks: its name
	// covers what is inside; later changes inside it are seen by name.
	mustWrite(t, filepath.Join(tree, "new/a/b/c.txt"), "c")
	wantChanges(t, w, "new")
	mustWrite(t, filepath.Join(tree, "new/a/b/c.txt"), "c2")
	wantChanges(t, w, "new/a/b/c.txt")

	// A renamed directory: changes inside it are named at its new path.
	if err := os.Rename(filepath.Join(tree, "src"), filepath.Join(tree, "lib")); err != nil {
		t.Fatal(err)
	}
	wantChanges(t, w, "lib", "src")
	mustWrite(t, filepath.Join(tree, "lib/x.txt"), "x2")
	wantChanges(t, w, "lib/x.txt")

	// rm -rf of a directory: its name, and every entry removed inside.
	if err := os.RemoveAll(filepath.Join(tree, "new")); err != nil {
		t.Fatal(err)
	}
	got, all := w.changes()
	if all || !slices.Contains(got, "new") {
		t.Fatalf("after rm -rf new: got %q (all %v), want it to name new", got, all)
	}
	if len(w.dirs) != 2 { // the tree and lib
		t.Fatalf("watches after the deletion: %v, want the tree and lib only", w.dirs)
	}
}

func TestWatcherSkipsGitAndStateDirectories(t *testing.T) {
	tree := t.TempDir()
	mustWrite(t, filepath.Join(tree, ".git/HEAD"), "ref")
	mustWrite(t, filepath.Join(tree, "state/boris/x"), "s")
	w := newTestWatcher(t, tree, func(rel string) bool { return rel == "state" })

	mustWrite(t, filepath.Join(tree, ".git/HEAD"), "ref2")
	mustWrite(t, filepath.Join(tree, "state/boris/x"), "s2")
	wantChanges(t, w) // inside unwatched directories: not named
}

func TestWatcherGivesUpNamingManyChanges(t *testing.T) {
	tree := t.TempDir()
	w := newTestWatcher(t, tree, nil)
	for i := range maxPending + 1 {
		mustWrite(t, filepath.Join(tree, fmt.Sprintf("f%04d", i)), "x")
	}
	if _, all := w.changes(); !all {
		t.Fatalf("after %d changed files: want all (scan the tree)", maxPending+1)
	}
	wantChanges(t, w) // and afterwards it names changes again
}

func TestWatcherForgetsPathsRecordedByName(t *testing.T) {
	tree := t.TempDir()
	w := newTestWatcher(t, tree, nil)
	mustWrite(t, filepath.Join(tree, "a.txt"), "a")
	mustWrite(t, filepath.Join(tree, "b.txt"), "b")
	w.drain()
	w.forgetPending([]string{"a.txt"})
	wantChanges(t, w, "b.txt")
}

// TestWatcherCatchesUpOnACommandBeforeIt: a command that started before
// the watcher added its watches changed files, removed one and made a
// directory; no event says so, yet the new watcher names each of them
// (by change time), and the directory the removed file left, while it
// names nothing that changed before the command.
func TestWatcherCatchesUpOnACommandBeforeIt(t *testing.T) {
	tree := t.TempDir()
	for _, rel := range []string{"a.txt", "gone.txt", "src/keep.txt", "src/sub/x.txt"} {
		mustWrite(t, filepath.Join(tree, rel), "old")
	}
	// The command starts once the file clock has moved past the last old
	// change: a probe beside the tree is rewritten until it has.
	t0 := awaitNewCtime(t, filepath.Join(t.TempDir(), "probe"), ctimeOf(t, filepath.Join(tree, "src/sub/x.txt")))
	mustWrite(t, filepath.Join(tree, "a.txt"), "new")
	if err := os.Remove(filepath.Join(tree, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(tree, "src/new/y.txt"), "y")

	since := func() (time.Time, bool) { return t0.Add(ctimeSlack), true }
	w, err := newWatcherSince(tree, func(string) bool { return false }, since)
	if err != nil {
		t.Skipf("inotify is not available here: %v", err)
	}
	t.Cleanup(w.close)
	got, all := w.pendingPaths()
	if all {
		t.Fatal("pendingPaths: got all, want the paths the command changed")
	}
	for _, want := range []string{"a.txt", "./", "src/new/y.txt", "src/"} {
		if !slices.Contains(got, want) {
			t.Errorf("pendingPaths: got %q, want it to name %q", got, want)
		}
	}
	for _, not := range []string{"src/keep.txt", "src/sub/x.txt", "src/sub", "src/sub/", "src"} {
		if slices.Contains(got, not) {
			t.Errorf("pendingPaths: got %q, want no %q (changed before the command)", got, not)
		}
	}
}

// ctimeOf is p's change time.
func ctimeOf(t *testing.T, p string) time.Time {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		t.Fatal(err)
	}
	return time.Unix(st.Ctim.Unix())
}

// awaitNewCtime rewrites probe until its change time is after after, and
// returns it.
func awaitNewCtime(t *testing.T, probe string, after time.Time) time.Time {
	t.Helper()
	for {
		mustWrite(t, probe, "probe")
		if c := ctimeOf(t, probe); c.After(after) {
			return c
		}
	}
}
