package checkpoint

import (
	"context"
	"log/slog"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/mjkoo/boris/internal/nice"
)

// TestStartRunsAtALowerPriority: the starting checkpoint reads the tree
// on a thread niced by startNice (it yields the CPU to calls); the
// threads of the rest of the process keep their priority.
func TestStartRunsAtALowerPriority(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	own := nice.Thread()
	if own+startNice > 19 {
		t.Skipf("this test runs at nice %d: no lower priority is left to take", own)
	}
	tree := t.TempDir()
	mustWrite(t, filepath.Join(tree, "a.txt"), "a\n")
	open := func(ctx context.Context) (*Store, error) {
		return Open(ctx, Options{Tree: tree, StateDir: t.TempDir(), Log: slog.New(slog.DiscardHandler)})
	}
	r := NewRecorder(tree, open, nil, slog.New(slog.DiscardHandler))
	defer r.Close()
	var during int
	r.SetStartHold(func(context.Context) { during = nice.Thread() })
	ctx := context.Background()
	r.Await(ctx)
	if during != own+startNice {
		t.Errorf("the start read the tree at nice %d, want %d (the session's %d + %d)", during, own+startNice, own, startNice)
	}
	if now := nice.Thread(); now != own {
		t.Errorf("the test's own thread is at nice %d after the start, want %d", now, own)
	}
}
