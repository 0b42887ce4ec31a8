package checkpoint

import (
	"context"
	"log/slog"
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// threadNice is the nice value of the calling OS thread.
func threadNice(t *testing.T) int {
	t.Helper()
	prio, err := unix.Getpriority(unix.PRIO_PROCESS, unix.Gettid())
	if err != nil {
		t.Fatal(err)
	}
	return 20 - prio // the raw system call answers 20 - nice
}

// TestStartRunsAtALowerPriority: the starting checkpoint reads the tree
// on a thread niced by startNice (it yields the CPU to calls); the
// threads of the rest of the process keep their priority.
func TestStartRunsAtALowerPriority(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	own := threadNice(t)
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
	r.SetStartHold(func(context.Context) { during = threadNice(t) })
	ctx := context.Background()
	r.Await(ctx)
	if during != own+startNice {
		t.Errorf("the start read the tree at nice %d, want %d (the session's %d + %d)", during, own+startNice, own, startNice)
	}
	if now := threadNice(t); now != own {
		t.Errorf("the test's own thread is at nice %d after the start, want %d", now, own)
	}
}
