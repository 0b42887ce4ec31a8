package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCaptureKeepsTheCallsChange: a change made on disk after a call has
// answered, before its recording ran, is not taken for the call's: the
// call's checkpoint holds what the call left (captured as it ended), and
// the later change is the next recording's (an outside checkpoint).
func TestCaptureKeepsTheCallsChange(t *testing.T) {
	tree := t.TempDir()
	for name, data := range map[string]string{".gitignore": "*.log\n", "a.txt": "a0\n", "b.txt": "b0\n"} {
		write(t, filepath.Join(tree, name), data)
	}
	s := openTestStore(t, tree)
	if err := s.Watch(); err != nil {
		t.Skipf("needs inotify: %v", err)
	}
	ctx := context.Background()
	if _, err := s.Record(ctx, "bash", "settle"); err != nil { // the watcher's first, full scan
		t.Fatal(err)
	}
	show := func(rev, path string) string {
		out, err := s.run(ctx, nil, nil, "show", rev+":"+path)
		if err != nil {
			return "<absent>"
		}
		return strings.TrimSpace(string(out))
	}

	// A command edits a.txt, removes b.txt and writes x.log and new.txt;
	// then, after it answered, another process changes all four.
	write(t, filepath.Join(tree, "a.txt"), "a-call\n")
	if err := os.Remove(filepath.Join(tree, "b.txt")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(tree, "x.log"), "log-call\n")
	write(t, filepath.Join(tree, "new.txt"), "new-call\n")
	c := s.Capture()
	write(t, filepath.Join(tree, "a.txt"), "a-outside\n")
	write(t, filepath.Join(tree, "b.txt"), "b-outside\n")
	write(t, filepath.Join(tree, "x.log"), "log-outside\n")
	write(t, filepath.Join(tree, "new.txt"), "new-outside\n")
	cp, err := s.RecordCaptured(ctx, "bash", "the command", c)
	if err != nil || cp == nil {
		t.Fatalf("RecordCaptured: %v, %v", cp, err)
	}
	want := map[string]string{"a.txt": "a-call", "b.txt": "<absent>", "x.log": "<absent>", "new.txt": "new-call"}
	for p, w := range want {
		if got := show("HEAD", p); got != w {
			t.Errorf("the command's checkpoint holds %s = %q, want %q", p, got, w)
		}
	}
	out, err := s.Record(ctx, OutsideTool, "outside")
	if err != nil || out == nil {
		t.Fatalf("the outside recording: %v, %v", out, err)
	}
	want = map[string]string{"a.txt": "a-outside", "b.txt": "b-outside", "x.log": "<absent>", "new.txt": "new-outside"}
	for p, w := range want {
		if got := show("HEAD", p); got != w {
			t.Errorf("the outside checkpoint holds %s = %q, want %q", p, got, w)
		}
	}
	// Named paths (a new file a file tool wrote) are captured alike.
	write(t, filepath.Join(tree, "named.txt"), "named-call\n")
	c = s.Capture(filepath.Join(tree, "named.txt"))
	write(t, filepath.Join(tree, "named.txt"), "named-outside\n")
	if _, err := s.RecordCaptured(ctx, "create_file", "named.txt", c); err != nil {
		t.Fatal(err)
	}
	if got := show("HEAD", "named.txt"); got != "named-call" {
		t.Errorf("create_file's checkpoint holds %q, want named-call", got)
	}
	if _, err := s.Record(ctx, OutsideTool, "outside"); err != nil {
		t.Fatal(err)
	}
	if got := show("HEAD", "named.txt"); got != "named-outside" {
		t.Errorf("the outside checkpoint holds %q, want named-outside", got)
	}
}
