package seen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjkoo/boris/core/checkpoint"
)

// TestTrackerSince: a file the session never saw has no mark; one it saw
// is changed once written in place or replaced, not when only read.
func TestTrackerSince(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	write := func(s string) os.FileInfo {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	tr := New()
	fi := write("one\n")
	if _, changed := tr.Since(path, fi); changed {
		t.Error("a file never seen: got changed, want not")
	}
	tr.Saw(path, fi, nil)
	if _, err := os.ReadFile(path); err != nil {
		t.Fatal(err)
	}
	again, _ := os.Stat(path)
	if _, changed := tr.Since(path, again); changed {
		t.Error("a file only read since: got changed, want not")
	}
	if at, changed := tr.Since(path, write("one\ntwo\n")); !changed || at.HasSeq {
		t.Errorf("a file appended to: got changed %v (mark %+v), want changed, marked by time only (checkpoints off)", changed, at)
	}
	tr.Saw(path, write("three\n"), nil)
	tmp := filepath.Join(dir, "tmp")
	if err := os.WriteFile(tmp, []byte("three\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil { // sed -i's replacement: same size
		t.Fatal(err)
	}
	replaced, _ := os.Stat(path)
	if _, changed := tr.Since(path, replaced); !changed {
		t.Error("a file replaced with the same bytes: got not changed, want changed (another inode)")
	}
	var none *Tracker
	none.Saw(path, replaced, nil)
	if _, changed := none.Since(path, replaced); changed {
		t.Error("a nil tracker: got changed, want nothing remembered")
	}
}

func TestHunksNear(t *testing.T) {
	diff := "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n a\n-b\n+B\n c\n@@ -40,3 +40,4 @@\n x\n+y\n z\n w\n"
	tests := []struct {
		name        string
		first, last int
		want        string
	}{
		{"the first hunk", 3, 3, "@@ -2,3 +2,3 @@\n a\n-b\n+B\n c\n"},
		{"within the slack", 45, 50, "@@ -40,3 +40,4 @@\n x\n+y\n z\n w\n"},
		{"far from both", 20, 30, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := hunksNear(diff, tt.first, tt.last); got != tt.want {
				t.Errorf("hunksNear(%d, %d) = %q, want %q", tt.first, tt.last, got, tt.want)
			}
		})
	}
	long := "@@ -1,100 +1,100 @@\n" + strings.Repeat("+x\n", 100)
	if got := strings.Count(hunksNear(long, 1, 1), "\n"); got != maxDiffLines {
		t.Errorf("a 100-line hunk: got %d lines, want %d", got, maxDiffLines)
	}
}

func TestStaleWords(t *testing.T) {
	cp := func(id, tool, summary string) checkpoint.Checkpoint {
		return checkpoint.Checkpoint{ID: id, Tool: tool, Summary: summary}
	}
	tests := []struct {
		name string
		st   Stale
		want string
	}{
		{"checkpoints off", Stale{}, "Note: f.go changed since you last viewed it (checkpoints are off, so Boris cannot say by what)."},
		{"no checkpoint says", Stale{Known: true}, "Note: f.go changed since you last viewed it (no checkpoint says by what)."},
		{"bash and outside", Stale{Known: true, Changes: []Change{
			{cp("cp_9", "bash", "sed -i s/a/b/ f.go"), "this session"},
			{cp("cp_8", checkpoint.OutsideTool, checkpoint.OutsideSummary), "another session"},
		}}, "Note: f.go changed since you last viewed it: cp_9, this session's bash: sed -i s/a/b/ f.go; cp_8, a change made outside Boris."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.st.Line("f.go"); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
