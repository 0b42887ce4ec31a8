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
