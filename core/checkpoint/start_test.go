package checkpoint

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// heldRecorder starts recording tree with its start held where hold
// says ("watch": before the watcher starts; "start": before the start
// reads the tree, the watcher started) until the returned release is
// called. It returns once the start is held there: on a loaded host the
// start may take its time to get there, and a change made before would
// meet the recorder elsewhere.
func heldRecorder(t *testing.T, tree, where string) (*Recorder, func()) {
	t.Helper()
	state := t.TempDir()
	open := func(ctx context.Context) (*Store, error) { return Open(ctx, Options{Tree: tree, StateDir: state}) }
	r := NewRecorder(tree, open, nil, slog.New(slog.DiscardHandler))
	held, reached := make(chan struct{}), make(chan struct{})
	hold := func(ctx context.Context) {
		close(reached)
		select {
		case <-held:
		case <-ctx.Done():
		}
	}
	if where == "watch" {
		r.SetWatchHold(hold)
	} else {
		r.SetStartHold(hold)
	}
	t.Cleanup(r.Close)
	r.Start()
	select {
	case <-reached:
	case <-time.After(time.Minute):
		t.Fatalf("the start was not held (%s) within a minute", where)
	}
	return r, sync1(held)
}

// sync1 returns a func closing ch once.
func sync1(ch chan struct{}) func() {
	done := false
	return func() {
		if !done {
			done = true
			close(ch)
		}
	}
}

// TestCommandsWhileTheStartIsHeld: with the start held before the watcher
// starts, or after, a command runs at once, and once the start is recorded
// a gap names what it changed: the file it appended to and, where no watch
// was yet, the directory it removed a file from. A file tool's temporary
// file, made and gone meanwhile or still there beside the file a write
// under way is writing, is named nowhere; a file of the same shape that
// stays, beside no write, is.
func TestCommandsWhileTheStartIsHeld(t *testing.T) {
	for _, tc := range []struct {
		where string
		want  []string
	}{
		{"watch", []string{"sub/b.txt", "sub/,", "sub/.kept.boris-MNOPQRSTUVWX.tmp"}},
		{"start", []string{"sub/b.txt", "sub/gone.txt", "sub/.kept.boris-MNOPQRSTUVWX.tmp"}},
	} {
		t.Run(tc.where, func(t *testing.T) {
			tree := t.TempDir()
			mustWrite(t, filepath.Join(tree, "a.txt"), "one\n")
			mustWrite(t, filepath.Join(tree, "sub/b.txt"), "bee\n")
			mustWrite(t, filepath.Join(tree, "sub/gone.txt"), "gone\n")
			mustWrite(t, filepath.Join(tree, "sub/keep.txt"), "keep\n")
			r, release := heldRecorder(t, tree, tc.where)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()

			r.BeforeCommand(ctx, "edit")
			if ctx.Err() != nil {
				t.Fatal("the command waited for the held start")
			}
			mustWrite(t, filepath.Join(tree, "sub/b.txt"), "bee\nmore\n")
			if err := os.Remove(filepath.Join(tree, "sub/gone.txt")); err != nil {
				t.Fatal(err)
			}
			temp := filepath.Join(tree, "sub/.b.txt.boris-ABCDEFGHIJKL.tmp")
			mustWrite(t, temp, "bee\nmore\n")
			if err := os.Remove(temp); err != nil {
				t.Fatal(err)
			}
			mustWrite(t, filepath.Join(tree, "sub/.kept.boris-MNOPQRSTUVWX.tmp"), "kept\n")
			// A file tool's write under way as the start ends: its
			// temporary file is still there.
			written := filepath.Join(tree, "sub/w.txt")
			r.BeforeWrite(ctx, written)
			writing := filepath.Join(tree, "sub/.w.txt.boris-QRSTUVWXYZ23.tmp")
			mustWrite(t, writing, "new\n")
			r.Record("bash", "edit")
			release()
			r.Await(ctx)
			if ctx.Err() != nil {
				t.Fatal("the start was not recorded within a minute of its release")
			}
			if err := os.Rename(writing, written); err != nil {
				t.Fatal(err)
			}
			gaps := strings.Join(r.Gaps(), "\n")
			for _, want := range tc.want {
				if !strings.Contains(gaps, want) {
					t.Errorf("gaps: got %q, want them to name %q", gaps, want)
				}
			}
			for _, unchanged := range []string{"a.txt", "keep.txt", ".b.txt.boris-", ".w.txt.boris-"} {
				if strings.Contains(gaps, unchanged) {
					t.Errorf("gaps: got %q, want %s (unchanged) named nowhere", gaps, unchanged)
				}
			}
		})
	}
}

// TestWriteInANestedRepositoryWhileTheStartIsHeld: a file tool's write
// inside a nested repository (a workspace: the shadow records it as a
// reference, never its files) while the start is taken leaves no gap: no
// checkpoint holds the file, so no state of it is missed. A write beside
// it is kept for the start as any other.
func TestWriteInANestedRepositoryWhileTheStartIsHeld(t *testing.T) {
	tree := t.TempDir()
	mustWrite(t, filepath.Join(tree, "ws/repo/.git/HEAD"), "ref: refs/heads/main\n")
	mustWrite(t, filepath.Join(tree, "ws/repo/data.txt"), "one\n")
	mustWrite(t, filepath.Join(tree, "top.txt"), "top\n")
	r, release := heldRecorder(t, tree, "start")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, rel := range []string{"ws/repo/data.txt", "top.txt"} {
		abs := filepath.Join(tree, rel)
		r.BeforeWrite(ctx, abs)
		mustWrite(t, abs, "two\n")
		r.RecordFiles("edit_file", "edit "+rel, abs)
	}
	release()
	r.Await(ctx)
	if ctx.Err() != nil {
		t.Fatal("the start was not recorded within a minute of its release")
	}
	if gaps := r.Gaps(); len(gaps) != 0 {
		t.Errorf("gaps: got %q, want none", gaps)
	}
}
