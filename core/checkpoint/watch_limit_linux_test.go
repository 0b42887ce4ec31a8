package checkpoint

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The watch limit (fs.inotify.max_user_watches) is lowered for these tests
// in a user namespace of their own, where /proc/sys/user/max_inotify_watches
// bounds the watches of the namespace: the test binary runs the test again
// there, as the namespace's root.

// userNSEnv marks the test binary run inside the user namespace.
const userNSEnv = "BORIS_TEST_IN_USERNS"

// withWatchLimit runs the calling test again in a user namespace whose
// inotify watch limit is limit; it returns true in there (the test goes
// on) and false in the parent, once the run in there has passed.
func withWatchLimit(t *testing.T, limit int) bool {
	t.Helper()
	if os.Getenv(userNSEnv) != "" {
		if err := os.WriteFile("/proc/sys/user/max_inotify_watches", []byte(strconv.Itoa(limit)), 0); err != nil {
			t.Skipf("lowering the watch limit needs /proc/sys/user/max_inotify_watches writable in a user namespace: %v", err)
		}
		return true
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("lowering the watch limit needs unshare(1), to enter a user namespace: not on PATH")
	}
	if out, err := exec.Command(unshare, "-Ur", "true").CombinedOutput(); err != nil {
		t.Skipf("lowering the watch limit needs a user namespace: unshare -Ur: %v: %s", err, out)
	}
	cmd := exec.Command(unshare, "-Ur", os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), userNSEnv+"=1")
	out, err := cmd.CombinedOutput()
	switch {
	case err != nil:
		t.Fatalf("in a user namespace with %d watches: %v\n%s", limit, err, out)
	case strings.Contains(string(out), "--- SKIP"):
		t.Skipf("in a user namespace: %s", out)
	case !strings.Contains(string(out), "--- PASS: "+t.Name()):
		t.Fatalf("in a user namespace: the test did not run:\n%s", out)
	}
	return false
}

// newLimitRecorder starts recording tree and waits for its start.
func newLimitRecorder(t *testing.T, tree string) *Recorder {
	t.Helper()
	state := t.TempDir()
	open := func(ctx context.Context) (*Store, error) {
		return Open(ctx, Options{Tree: tree, StateDir: state})
	}
	r := NewRecorder(tree, open, nil, slog.New(slog.DiscardHandler))
	t.Cleanup(r.Close)
	r.Start()
	r.Await(context.Background())
	if r.Store() == nil {
		t.Fatalf("open the shadow repository: %v", r.Err())
	}
	return r
}

// wantNote checks that the recorder says (once, in a result) and lists
// (in history) a note holding want.
func wantNote(t *testing.T, r *Recorder, want string) {
	t.Helper()
	said := strings.Join(r.TakeGaps(), "\n")
	if !strings.Contains(said, want) {
		t.Errorf("said in the next result: got %q, want a line with %q", said, want)
	}
	listed := strings.Join(r.Gaps(), "\n")
	if !strings.Contains(listed, "note ") || !strings.Contains(listed, want) {
		t.Errorf("listed in history: got %q, want a note with %q", listed, want)
	}
	if again := r.TakeGaps(); len(again) > 0 {
		t.Errorf("said again: %q, want it said once", again)
	}
}

// TestMoreDirectoriesThanWatches: a tree with more directories than the
// watch limit allows is recorded all the same (every recording scans the
// whole tree), and the session is told so, in a result and in history.
func TestMoreDirectoriesThanWatches(t *testing.T) {
	if !withWatchLimit(t, 3) {
		return
	}
	tree := t.TempDir()
	for i := range 8 {
		mustWrite(t, filepath.Join(tree, "d"+strconv.Itoa(i), "f.txt"), "f\n")
	}
	r := newLimitRecorder(t, tree)
	wantNote(t, r, "more directories than inotify may watch (fs.inotify.max_user_watches)")

	r.BeforeCommand(context.Background(), "edit d3/f.txt")
	mustWrite(t, filepath.Join(tree, "d3", "f.txt"), "g\n")
	r.Record("bash", "edit d3/f.txt")
	wantRecorded(t, r, "d3/f.txt")
}

// TestWatchesRunOutMidSession: directories made during a session beyond
// the watch limit stop the watcher naming what changes; the session is
// told so once (before, nothing said it), and the change that made them
// is recorded by a scan of the whole tree.
func TestWatchesRunOutMidSession(t *testing.T) {
	if !withWatchLimit(t, 3) {
		return
	}
	tree := t.TempDir()
	mustWrite(t, filepath.Join(tree, "a", "f.txt"), "f\n")
	r := newLimitRecorder(t, tree) // two watches: the tree and a
	if said := r.TakeGaps(); len(said) > 0 {
		t.Fatalf("after the start: got %q, want nothing said (the tree fits the limit)", said)
	}

	r.BeforeCommand(context.Background(), "mkdir -p x/y/z")
	mustWrite(t, filepath.Join(tree, "x", "y", "z", "g.txt"), "g\n")
	r.Record("bash", "mkdir -p x/y/z")
	wantRecorded(t, r, "x/y/z/g.txt")
	wantNote(t, r, "a directory made during the session could not be watched")
}

// wantRecorded waits for the recordings queued and checks that the latest
// checkpoint holds path.
func wantRecorded(t *testing.T, r *Recorder, path string) {
	t.Helper()
	ctx := context.Background()
	r.Await(ctx)
	cps, err := r.Store().History(ctx, "", 1)
	if err != nil || len(cps) == 0 {
		t.Fatalf("history: %v, %d checkpoints", err, len(cps))
	}
	for _, f := range cps[0].Files {
		if f.Path == path {
			return
		}
	}
	t.Errorf("latest checkpoint %+v: want it to hold %s", cps[0], path)
}
