package cgroup

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenRefusesOthersSessionsDir: a sessions directory owned by another
// user (left by a gateway that ran as that user) is not taken over, even
// by a process that could write it: Open fails with ErrUnavailable naming
// the directory and its owner, and leaves it alone.
func TestOpenRefusesOthersSessionsDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: gives the sessions cgroup to another user")
	}
	root := testRoot(t)
	dir := filepath.Join(root, sessionsDir)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	m, err := Open(Options{Root: root})
	if err == nil {
		m.Close()
		t.Fatal("Open with a sessions cgroup owned by uid 65534: got a manager, want ErrUnavailable")
	}
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, ErrNotOwned) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "uid 65534") {
		t.Errorf("Open: got %v, want ErrUnavailable and ErrNotOwned naming %s and uid 65534", err, dir)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("the other user's sessions cgroup: %v, want it left in place", err)
	}
}
