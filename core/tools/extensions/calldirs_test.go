package extensions

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mjkoo/boris/internal/safefile"
)

// openCallBase opens a fresh base directory for call directories.
func openCallBase(t *testing.T) (*safefile.Dir, string) {
	t.Helper()
	path := t.TempDir()
	d, err := safefile.OpenDir(path, "", false, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, path
}

// TestExtCallDirsReuse checks that a call directory is kept for the next
// call only when the call left it as it was given: the empty stream files
// and nothing else.
func TestExtCallDirsReuse(t *testing.T) {
	for _, tc := range []struct {
		name  string
		after func(t *testing.T, dir, outside string) // what the call did
		kept  bool
	}{
		{"untouched", func(*testing.T, string, string) {}, true},
		{"progress written", func(t *testing.T, dir, _ string) { callDirWrite(t, filepath.Join(dir, "progress"), "{}\n") }, false},
		{"log written", func(t *testing.T, dir, _ string) { callDirWrite(t, filepath.Join(dir, "log"), "{}\n") }, false},
		{"error file", func(t *testing.T, dir, _ string) { callDirWrite(t, filepath.Join(dir, "error"), "") }, false},
		{"cancelled", func(t *testing.T, dir, _ string) { callDirWrite(t, filepath.Join(dir, "cancelled"), "") }, false},
		{"stream removed", func(t *testing.T, dir, _ string) { callDirRemove(t, filepath.Join(dir, "log")) }, false},
		{"stream replaced by a directory", func(t *testing.T, dir, _ string) {
			callDirRemove(t, filepath.Join(dir, "log"))
			if err := os.Mkdir(filepath.Join(dir, "log"), 0o700); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"stream made read-only", func(t *testing.T, dir, _ string) { callDirChmod(t, filepath.Join(dir, "progress"), 0o400) }, false},
		{"directory mode changed", func(t *testing.T, dir, _ string) { callDirChmod(t, dir, 0o755) }, false},
		{"stream replaced by a link to another tree", func(t *testing.T, dir, outside string) {
			callDirRemove(t, filepath.Join(dir, "log"))
			if err := os.Symlink(outside, filepath.Join(dir, "log")); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"directory replaced by a link to another tree", func(t *testing.T, dir, outside string) {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, dir); err != nil {
				t.Fatal(err)
			}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d extCallDirs
			outside := t.TempDir()
			callDirWrite(t, filepath.Join(outside, "victim"), "keep")
			base, basePath := openCallBase(t)
			name, err := d.get(base)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(basePath, name)
			if got := callDirEntries(t, dir); !slices.Equal(got, []string{"log", "progress"}) {
				t.Fatalf("a new call directory holds %q, want [log progress]", got)
			}
			tc.after(t, dir, outside)
			d.put(base, name)
			_, err = os.Lstat(dir)
			if kept := err == nil; kept != tc.kept {
				t.Fatalf("after the call the directory exists: %v, want %v", kept, tc.kept)
			}
			if got := callDirEntries(t, outside); !slices.Equal(got, []string{"victim"}) {
				t.Errorf("the tree a link named holds %q after the call, want [victim] untouched", got)
			}
			next, err := d.get(base)
			if err != nil {
				t.Fatal(err)
			}
			if (next == name) != tc.kept {
				t.Errorf("the next call got %s, the first one's %s: reused %v, want %v", next, name, next == name, tc.kept)
			}
			if got := callDirEntries(t, filepath.Join(basePath, next)); !slices.Equal(got, []string{"log", "progress"}) {
				t.Errorf("the next call's directory holds %q, want [log progress]", got)
			}
		})
	}
}

// TestExtCallDirsBound checks that at most extCallDirsMax directories are
// kept; the others are removed.
func TestExtCallDirsBound(t *testing.T) {
	var d extCallDirs
	base, basePath := openCallBase(t)
	var dirs []string
	for range extCallDirsMax + 3 {
		dir, err := d.get(base)
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	for _, dir := range dirs {
		d.put(base, dir)
	}
	if got := len(callDirEntries(t, basePath)); got != extCallDirsMax {
		t.Errorf("%d directories left after %d calls at once, want %d kept", got, len(dirs), extCallDirsMax)
	}
}

func callDirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func callDirWrite(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func callDirRemove(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

func callDirChmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}
