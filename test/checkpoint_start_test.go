package test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// heldStart starts a core whose starting checkpoint waits, before it reads
// the tree, until the returned release is called (the core's test hook: a
// FIFO it reads to its end). release is also called at the end of the test.
func heldStart(t *testing.T, tree string) (*core, func()) {
	t.Helper()
	fifo := filepath.Join(realTempDir(t), "hold")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("holding the start needs a FIFO: mkfifo %s: %v", fifo, err)
	}
	state := realTempDir(t)
	c := startCoreWith(t, coreOptions{args: []string{"--workdir", tree},
		env: []string{"XDG_STATE_HOME=" + state, "BORIS_TEST_HOLD_CHECKPOINT_START=" + fifo}})
	release := func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0) // blocks until the core opens it to read
		if err != nil {
			t.Fatalf("release the start: %v", err)
		}
		f.Close()
	}
	t.Cleanup(func() { // a test that failed before releasing: never blocks
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	return c, release
}

// TestNoCallWaitsForTheStart: while the tree's starting checkpoint is held
// from completing, reads answer, a file tool's write answers and is
// undone once the start is recorded, and a command's change is said to be
// unrecorded (in the next result and in history) where the start may have
// taken it. Before,
// every call that changed a file waited for the start: these calls would
// never have answered.
func TestNoCallWaitsForTheStart(t *testing.T) {
	tree := realTempDir(t)
	writeFile(t, filepath.Join(tree, "a.txt"), "one\n")
	writeFile(t, filepath.Join(tree, "b.txt"), "bee\n")
	c, release := heldStart(t, tree)

	if got := c.ok("view", map[string]any{"path": "a.txt"}); !strings.Contains(got, "one") {
		t.Fatalf("view while the start is held: got %q, want the file", got)
	}
	c.ok("grep", map[string]any{"pattern": "bee"})
	c.ok("str_replace", map[string]any{"path": "a.txt", "old_str": "one", "new_str": "two"})
	c.ok("bash", map[string]any{"command": "echo more >> b.txt"})
	release()

	// history (which waits for the start) lists a gap naming b.txt, and
	// its result, the first after the start, says it: the start read b.txt
	// after the command changed it, so that change cannot be undone.
	hist := c.ok("history", map[string]any{})
	gap := regexp.MustCompile(`(?m)^gap .*bash: echo more >> b\.txt: not recorded \(changed while the tree's starting checkpoint was being taken.*b\.txt`)
	if !gap.MatchString(hist) || !strings.Contains(hist, "[checkpoint] a change was not recorded: ") {
		t.Errorf("history after the held start: got %q, want a gap naming b.txt, said in the result", hist)
	}
	if !strings.Contains(hist, "start: ") || !strings.Contains(hist, "str_replace: a.txt") {
		t.Fatalf("history after the held start: got %q, want the start and the str_replace", hist)
	}
	// The str_replace made while the start was held is its own checkpoint:
	// undoing it puts back what the session found.
	c.ok("undo", map[string]any{"path": "a.txt"})
	if got := readFile(t, filepath.Join(tree, "a.txt")); got != "one\n" {
		t.Errorf("a.txt after undoing the edit made while the start was held: got %q, want %q", got, "one\n")
	}
	if got := readFile(t, filepath.Join(tree, "b.txt")); got != "bee\nmore\n" {
		t.Errorf("b.txt: got %q, want the command's change kept", got)
	}
}

// TestACommandBeforeTheWatcherIsNamed: a command runs before the
// checkpoints have added a single watch on the tree (held by the core's
// test hook) and does not wait for them: it answers while they are held.
// What it changed is in no watch's events, yet once the start is
// recorded a gap names the file it appended to and the directory it
// removed a file from: never a change lost in silence. Before, a command
// waited for the whole tree to be watched (half a second on 80,000
// files), and with the hook's watch held it would never have answered.
func TestACommandBeforeTheWatcherIsNamed(t *testing.T) {
	tree := realTempDir(t)
	writeFile(t, filepath.Join(tree, "a.txt"), "one\n")
	writeFile(t, filepath.Join(tree, "sub/b.txt"), "bee\n")
	writeFile(t, filepath.Join(tree, "sub/gone.txt"), "gone\n")
	fifo := filepath.Join(realTempDir(t), "hold")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("holding the watcher needs a FIFO: mkfifo %s: %v", fifo, err)
	}
	c := startCoreWith(t, coreOptions{args: []string{"--workdir", tree},
		env: []string{"XDG_STATE_HOME=" + realTempDir(t), "BORIS_TEST_HOLD_CHECKPOINT_WATCH=" + fifo}})
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})

	c.ok("bash", map[string]any{"command": "echo more >> sub/b.txt && rm sub/gone.txt"})
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0) // the watcher starts
	if err != nil {
		t.Fatalf("release the watcher: %v", err)
	}
	f.Close()

	hist := c.ok("history", map[string]any{})
	for _, want := range []string{"sub/b.txt", "sub/"} {
		gap := regexp.MustCompile(`(?m)^gap .*bash: echo more >> sub/b\.txt && rm sub/gone\.txt: not recorded \(changed while the tree's starting checkpoint was being taken[^\n]*` + regexp.QuoteMeta(want) + `[,)]`)
		if !gap.MatchString(hist) {
			t.Errorf("history after the held watcher: got %q, want a gap naming %s", hist, want)
		}
	}
	if gaps := regexp.MustCompile(`(?m)^gap .*$`).FindAllString(hist, -1); strings.Contains(strings.Join(gaps, "\n"), "a.txt") {
		t.Errorf("history's gaps after the held watcher: got %q, want a.txt (unchanged) named in none", gaps)
	}
}
