package test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var outsideCheckpointRe = regexp.MustCompile(`(cp_\d+)\s+\S+ \S+\s+outside: `)

// TestOutsideChangesAreTheirOwnCheckpoint is the case that lost a user's
// file: an outside creation followed by the agent's edit of it used to be
// one checkpoint, and undoing the edit removed the file. The outside
// change is now a checkpoint of its own, so undoing the edit puts back
// the user's text.
func TestOutsideChangesAreTheirOwnCheckpoint(t *testing.T) {
	tree := realTempDir(t)
	c, _ := startCheckpointCore(t, tree)
	c.ok("create_file", map[string]any{"path": "a.txt", "content": "a\n"})
	awaitStart(c)
	writeFile(t, filepath.Join(tree, "ext.txt"), "w1\n") // outside Boris
	c.ok("str_replace", map[string]any{"path": "ext.txt", "old_str": "w1", "new_str": "w2"})
	hist := c.ok("history", map[string]any{})
	m := outsideCheckpointRe.FindStringSubmatch(hist)
	if m == nil || !strings.Contains(hist, "A ext.txt") || !strings.Contains(hist, "M ext.txt") {
		t.Fatalf("history: got %q, want an outside checkpoint adding ext.txt and str_replace's modifying it", hist)
	}
	c.ok("undo", map[string]any{"path": "ext.txt"})
	if got := readFile(t, filepath.Join(tree, "ext.txt")); got != "w1\n" {
		t.Fatalf("ext.txt after undoing the edit: got %q, want the user's %q", got, "w1\n")
	}
	c.ok("undo", map[string]any{})
	if got := readFile(t, filepath.Join(tree, "ext.txt")); got != "w2\n" {
		t.Errorf("ext.txt after undoing the undo: got %q, want the edit back", got)
	}
}

// TestUndoConflictsWithOutsideChanges: undoing an agent's checkpoint whose
// files were changed afterwards outside Boris is refused with CONFLICT,
// naming the file and the outside checkpoint, and changes nothing; with
// force it goes ahead, and undoing that undo brings the outside change
// back.
func TestUndoConflictsWithOutsideChanges(t *testing.T) {
	tree := realTempDir(t)
	writeFile(t, filepath.Join(tree, "a.txt"), "a\n")
	c, _ := startCheckpointCore(t, tree)
	c.ok("create_file", map[string]any{"path": "b.txt", "content": "agent\n"})
	agent := latestID(t, c)
	writeFile(t, filepath.Join(tree, "b.txt"), "user\n") // outside Boris
	c.ok("str_replace", map[string]any{"path": "a.txt", "old_str": "a", "new_str": "A"})
	outside := outsideCheckpointRe.FindStringSubmatch(c.ok("history", map[string]any{}))
	if outside == nil {
		t.Fatal("history: want an outside checkpoint")
	}
	got := c.fails("CONFLICT", "undo", map[string]any{"checkpoint": agent})
	if !strings.Contains(got, "b.txt") || !strings.Contains(got, outside[1]) {
		t.Errorf("undo %s: got %q, want it to name b.txt and %s", agent, got, outside[1])
	}
	if got := readFile(t, filepath.Join(tree, "b.txt")); got != "user\n" {
		t.Fatalf("b.txt after a refused undo: got %q, want the user's", got)
	}
	// Undoing the outside change itself, or another file, is no conflict.
	c.ok("undo", map[string]any{"checkpoint": latestID(t, c)})
	c.ok("undo", map[string]any{"checkpoint": agent, "force": true})
	if _, err := os.Lstat(filepath.Join(tree, "b.txt")); err == nil {
		t.Errorf("b.txt after a forced undo of its creation: still there")
	}
	c.ok("undo", map[string]any{})
	if got := readFile(t, filepath.Join(tree, "b.txt")); got != "user\n" {
		t.Errorf("b.txt after undoing the forced undo: got %q, want the user's back", got)
	}
}

// TestRecordingFailureIsSaid: when a change cannot be recorded (here the
// shadow repository's objects made read-only, which the confined git
// cannot get around), the next tool result says so in a line, once, and
// history lists the gap: the agent is never led to believe an undo is
// available when it is not.
func TestRecordingFailureIsSaid(t *testing.T) {
	if !landlockAvailable() {
		t.Skip("needs Landlock: checkpoint git runs confined without capabilities only then, so a read-only directory stops it even as root")
	}
	tree := realTempDir(t)
	writeFile(t, filepath.Join(tree, "a.txt"), "one\n")
	c, state := startCheckpointCore(t, tree)
	c.ok("str_replace", map[string]any{"path": "a.txt", "old_str": "one", "new_str": "two"})
	c.ok("history", map[string]any{})
	objects := filepath.Join(shadowOf(t, filepath.Join(state, "boris")), "objects")
	_ = filepath.WalkDir(objects, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o555)
		}
		return nil
	})
	t.Cleanup(func() {
		_ = filepath.WalkDir(objects, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				_ = os.Chmod(p, 0o755)
			}
			return nil
		})
	})
	// A command's change is recorded by git, after the call answered.
	c.ok("bash", map[string]any{"command": "echo three > a.txt"})
	out := c.ok("create_file", map[string]any{"path": "c.txt", "content": "c\n"})
	if !strings.Contains(out, "[checkpoint] a change was not recorded") || !strings.Contains(out, "bash: echo three > a.txt") {
		t.Fatalf("the next result: got %q, want it to say bash's change was not recorded", out)
	}
	hist := c.ok("history", map[string]any{})
	if !strings.Contains(hist, "gap  ") || !strings.Contains(hist, "bash: echo three > a.txt: not recorded") {
		t.Errorf("history: got %q, want the gap listed", hist)
	}
	if again := c.ok("view", map[string]any{"path": "a.txt"}); strings.Count(again, "not recorded") != 0 {
		t.Errorf("a later result: got %q, want the gap said once", again)
	}
}

// TestRecordingFailureOnAFullDiskIsSaid: with the state directory on a
// full file system, a file tool's change, recorded in process before the
// call answers, cannot be recorded: its own result says so, and history
// lists the gap.
func TestRecordingFailureOnAFullDiskIsSaid(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to mount a small tmpfs as a full disk")
	}
	state := realTempDir(t)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", state).CombinedOutput(); err != nil {
		t.Skipf("needs mount -t tmpfs (root with CAP_SYS_ADMIN): %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", state).Run() })
	tree := realTempDir(t)
	writeFile(t, filepath.Join(tree, "a.txt"), "one\n")
	c := startCoreWith(t, coreOptions{args: []string{"--workdir", tree}, env: []string{"XDG_STATE_HOME=" + state, "BORIS_STATE_DIR="}})
	c.ok("history", map[string]any{}) // the start is recorded
	filler, err := os.Create(filepath.Join(state, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	block := make([]byte, 64<<10)
	for {
		if _, err := filler.Write(block); err != nil {
			break // ENOSPC: the disk is full
		}
	}
	filler.Close()
	for i := range 64 { // and no inode is left for a new file either
		if f, err := os.Create(filepath.Join(state, fmt.Sprintf("f%d", i))); err == nil {
			f.Close()
		}
	}
	out := c.ok("str_replace", map[string]any{"path": "a.txt", "old_str": "one", "new_str": "two"})
	if !strings.Contains(out, "[checkpoint] a change was not recorded") || !strings.Contains(out, "str_replace: a.txt") {
		t.Fatalf("str_replace on a full disk: got %q, want its result to say its change was not recorded", out)
	}
	if got := readFile(t, filepath.Join(tree, "a.txt")); got != "two\n" {
		t.Errorf("a.txt: got %q, want the edit made all the same", got)
	}
	if hist := c.ok("history", map[string]any{}); !strings.Contains(hist, "gap  ") {
		t.Errorf("history: got %q, want the gap listed", hist)
	}
}
