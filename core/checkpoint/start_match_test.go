package checkpoint

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// TestStartOfAnUnchangedTreeRunsNoGit: a session that finds its tree as
// the latest checkpoint records it (another session's, on the same
// tree) learns so in process, running no git; any difference git would
// record, or might (a file .gitignore may leave out, a nested
// repository), is left to git, and recorded as before.
func TestStartOfAnUnchangedTreeRunsNoGit(t *testing.T) {
	for _, c := range []struct {
		name     string
		change   func(t *testing.T, tree string)
		noGit    bool // no git ran
		recorded bool // a checkpoint was recorded
	}{
		{"unchanged", func(*testing.T, string) {}, true, false},
		{"empty directories made", func(t *testing.T, tree string) { mkdir(t, filepath.Join(tree, "tmp", "x", "y")) }, true, false},
		{"file edited", func(t *testing.T, tree string) { mustWrite(t, filepath.Join(tree, "sub", "b.txt"), "changed\n") }, false, true},
		{"mode changed", func(t *testing.T, tree string) { chmod(t, filepath.Join(tree, "a.txt"), 0o755) }, false, true},
		{"file deleted", func(t *testing.T, tree string) { remove(t, filepath.Join(tree, "sub", "b.txt")) }, false, true},
		{"file made", func(t *testing.T, tree string) { mustWrite(t, filepath.Join(tree, "new.txt"), "new\n") }, false, true},
		{"ignored file made", func(t *testing.T, tree string) { mustWrite(t, filepath.Join(tree, "x.log"), "log\n") }, false, false},
		{"link retargeted", func(t *testing.T, tree string) {
			remove(t, filepath.Join(tree, "l"))
			if err := os.Symlink("sub/b.txt", filepath.Join(tree, "l")); err != nil {
				t.Fatal(err)
			}
		}, false, true},
		{"file made a directory", func(t *testing.T, tree string) {
			remove(t, filepath.Join(tree, "a.txt"))
			mkdir(t, filepath.Join(tree, "a.txt"))
		}, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			tree, state := t.TempDir(), t.TempDir()
			mustWrite(t, filepath.Join(tree, ".gitignore"), "*.log\n")
			mustWrite(t, filepath.Join(tree, "a.txt"), "a\n")
			mustWrite(t, filepath.Join(tree, "sub", "b.txt"), "b\n")
			if err := os.Symlink("a.txt", filepath.Join(tree, "l")); err != nil {
				t.Fatal(err)
			}
			first, _ := openCounting(t, tree, state)
			if cp, err := first.RecordStart(context.Background(), "start", StartSummary, noSeal); err != nil || cp == nil {
				t.Fatalf("first start: %v, %v", cp, err)
			}
			first.Close()
			c.change(t, tree)
			s, runs := openCounting(t, tree, state)
			defer s.Close()
			runs.Store(0)
			cp, err := s.RecordStart(context.Background(), OutsideTool, BetweenSummary, noSeal)
			if err != nil {
				t.Fatal(err)
			}
			if got := runs.Load() == 0; got != c.noGit {
				t.Errorf("%d git processes ran, want none: %v", runs.Load(), c.noGit)
			}
			if got := cp != nil; got != c.recorded {
				t.Errorf("recorded %v, want %v", cp, c.recorded)
			}
		})
	}
}

// TestRecorderStartOfAnUnchangedTreeRunsNoGit: the whole start of a
// session on a tree as its latest checkpoint holds it (the shadow opened,
// the watcher, the start) runs no git, so no git spawner either; the
// first change is recorded as ever.
func TestRecorderStartOfAnUnchangedTreeRunsNoGit(t *testing.T) {
	tree, state := t.TempDir(), t.TempDir()
	mustWrite(t, filepath.Join(tree, "a.txt"), "a\n")
	first, _ := openCounting(t, tree, state)
	if _, err := first.RecordStart(context.Background(), "start", StartSummary, noSeal); err != nil {
		t.Fatal(err)
	}
	first.Close()
	runs := &atomic.Int64{}
	open := func(ctx context.Context) (*Store, error) {
		return Open(ctx, Options{Tree: tree, StateDir: state, Log: slog.New(slog.DiscardHandler),
			Start: func(cmd *exec.Cmd) error { runs.Add(1); return cmd.Start() }})
	}
	r := NewRecorder(tree, open, nil, slog.New(slog.DiscardHandler))
	defer r.Close()
	ctx := context.Background()
	r.Await(ctx) // the start, recorded
	if n := runs.Load(); n != 0 {
		t.Errorf("%d git processes ran for the start of an unchanged tree, want none", n)
	}
	mustWrite(t, filepath.Join(tree, "b.txt"), "b\n")
	r.BeforeChange(ctx)
	r.Record("bash", "echo b > b.txt")
	r.Await(ctx)
	cps, err := r.Store().History(ctx, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(cps) != 2 || len(cps[0].Files) != 1 || cps[0].Files[0].Path != "b.txt" {
		t.Errorf("history %+v, want the start and a checkpoint of b.txt", cps)
	}
}

// openCounting opens the store of tree in state, counting the git
// processes it starts.
func openCounting(t *testing.T, tree, state string) (*Store, *atomic.Int64) {
	t.Helper()
	runs := &atomic.Int64{}
	s, err := Open(context.Background(), Options{Tree: tree, StateDir: state, Log: slog.New(slog.DiscardHandler),
		Start: func(cmd *exec.Cmd) error { runs.Add(1); return cmd.Start() }})
	if err != nil {
		t.Fatal(err)
	}
	return s, runs
}

func noSeal([]string, bool) map[string]captured { return nil }

func chmod(t *testing.T, p string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, p string) {
	t.Helper()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
}

// mustWrite writes data to p, making its directory.
func mustWrite(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
