package test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// startSessionOn starts a core with checkpoints on tree whose history
// lives under state: several sessions on one tree share it.
func startSessionOn(t *testing.T, tree, state string) *core {
	t.Helper()
	return startCoreWith(t, coreOptions{args: []string{"--workdir", tree}, env: []string{"XDG_STATE_HOME=" + state}})
}

// endSession closes a core's session and waits for the process to exit,
// its recordings done.
func endSession(t *testing.T, c *core) {
	t.Helper()
	if err := c.session.Close(); err != nil {
		t.Logf("close session: %v", err)
	}
}

// TestOutsideWorkBetweenSessions: whatever the user does to a file between
// two sessions is outside work for undo. Session 1 creates a file and
// edits it; while no session runs, the user changes it (an edit, a
// deletion, a mode change, or a new file where session 1 had removed
// one); session 2's undo of session 1's last checkpoint answers
// [CONFLICT] and leaves the user's work as it is.
func TestOutsideWorkBetweenSessions(t *testing.T) {
	for _, tc := range []struct {
		name    string
		agent   []string // session 1's commands after creating f.sh ("" edits it)
		outside func(t *testing.T, path string)
		check   func(t *testing.T, path string)
	}{
		{
			name:    "edit",
			outside: func(t *testing.T, p string) { writeFile(t, p, "v2\nuser line\n") },
			check:   wantContent("v2\nuser line\n"),
		},
		{
			name:    "deletion",
			outside: func(t *testing.T, p string) { mustDo(t, os.Remove(p)) },
			check:   wantAbsent,
		},
		{
			name:    "mode change",
			outside: func(t *testing.T, p string) { mustDo(t, os.Chmod(p, 0o755)) },
			check: func(t *testing.T, p string) {
				fi, err := os.Stat(p)
				if err != nil || fi.Mode().Perm()&0o100 == 0 {
					t.Errorf("f.sh after the refused undo: got %v, %v, want the user's executable mode kept", fi, err)
				}
			},
		},
		{
			name:    "new file",
			agent:   []string{"rm f.sh"},
			outside: func(t *testing.T, p string) { writeFile(t, p, "the user's own\n") },
			check:   wantContent("the user's own\n"),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree, state := realTempDir(t), realTempDir(t)
			path := filepath.Join(tree, "f.sh")
			c1 := startSessionOn(t, tree, state)
			c1.ok("create_file", map[string]any{"path": "f.sh", "content": "v1\n"})
			c1.ok("str_replace", map[string]any{"path": "f.sh", "old_str": "v1", "new_str": "v2"})
			for _, cmd := range tc.agent {
				c1.ok("bash", map[string]any{"command": cmd})
			}
			last := latestID(t, c1)
			endSession(t, c1)

			tc.outside(t, path)

			c2 := startSessionOn(t, tree, state)
			got := c2.fails("CONFLICT", "undo", map[string]any{"checkpoint": last})
			if !strings.Contains(got, "f.sh") {
				t.Errorf("undo %s: got %q, want it to name f.sh", last, got)
			}
			tc.check(t, path)
		})
	}
}

// TestOutsideWorkOfAnotherSession: two sessions open on one tree at once
// share its history; an undo in one never silently takes back what the
// other did. Session A creates a file, session B edits it, and A's undo of
// its creation answers [CONFLICT] and keeps B's edit. B can undo its own
// edit. (Each step waits for the one before it to be recorded: which session
// records a change made the moment another's start reads the tree is a race
// this test does not measure.)
func TestOutsideWorkOfAnotherSession(t *testing.T) {
	tree, state := realTempDir(t), realTempDir(t)
	path := filepath.Join(tree, "f.txt")
	writeFile(t, filepath.Join(tree, "README"), "a tree\n") // a start to undo to
	a := startSessionOn(t, tree, state)
	b := startSessionOn(t, tree, state)
	a.ok("history", map[string]any{}) // both starts recorded
	b.ok("history", map[string]any{})
	a.ok("create_file", map[string]any{"path": "f.txt", "content": "from A\n"})
	created := latestID(t, a) // history waits for A's recording: B finds it recorded
	b.ok("str_replace", map[string]any{"path": "f.txt", "old_str": "from A", "new_str": "from B"})
	got := a.fails("CONFLICT", "undo", map[string]any{"checkpoint": created})
	if !strings.Contains(got, "f.txt") {
		t.Errorf("A's undo of %s: got %q, want it to name f.txt", created, got)
	}
	wantContent("from B\n")(t, path)
	b.ok("undo", map[string]any{})
	wantContent("from A\n")(t, path)
}

// awaitStart waits until the core has recorded the tree as its session
// found it (history waits for it): a change made on disk while that is
// being taken may be read into it, and a test of what is recorded as
// outside makes its change after.
func awaitStart(c *core) {
	c.t.Helper()
	// Minutes, not c.ok's one: a start on the 10,000-file tree of
	// TestCheckpointLargeTree takes a minute on a loaded 2-core host.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: "history", Arguments: map[string]any{"limit": 1}})
	if err != nil || res.IsError {
		c.t.Fatalf("history, waiting for the starting checkpoint: %v %v", err, res)
	}
}

func wantContent(want string) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		t.Helper()
		if got := readFile(t, path); got != want {
			t.Errorf("%s: got %q, want %q", filepath.Base(path), got, want)
		}
	}
}

func wantAbsent(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); err == nil {
		t.Errorf("%s: is there, want it still deleted", filepath.Base(path))
	}
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
