package test

import (
	"os"
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
	c.ok("str_replace", map[string]any{"path": "a.txt", "old_str": "two", "new_str": "three"})
	out := c.ok("create_file", map[string]any{"path": "c.txt", "content": "c\n"})
	if !strings.Contains(out, "[checkpoint] a change was not recorded") || !strings.Contains(out, "str_replace: a.txt") {
		t.Fatalf("the next result: got %q, want it to say str_replace's change was not recorded", out)
	}
	hist := c.ok("history", map[string]any{})
	if !strings.Contains(hist, "gap  ") || !strings.Contains(hist, "str_replace: a.txt: not recorded") {
		t.Errorf("history: got %q, want the gap listed", hist)
	}
	if again := c.ok("view", map[string]any{"path": "a.txt"}); strings.Count(again, "str_replace: a.txt: not recorded") != 0 {
		t.Errorf("a later result: got %q, want the gap said once", again)
	}
}
