// The walk tests build a tree with a FIFO and symlinks: Unix only.

//go:build unix

package search

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mjkoo/boris/core/scope"
)

// tree is a fixture directory and a policy allowing only it, with its
// secret/ subtree denied.
type tree struct {
	root, outside string
	policy        *scope.Policy
}

// newTree builds a tree with every kind of entry the walk skips. Files
// are given distinct modification times in the order listed, oldest first.
func newTree(t *testing.T) *tree {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tr := &tree{root: filepath.Join(base, "root"), outside: filepath.Join(base, "outside")}
	files := []struct{ path, data string }{
		{".git/HEAD", "ref: refs/heads/main\n"},
		{".git/info/exclude", "excluded.txt\n"},
		{".gitignore", "*.log\n!keep.log\nbuild/\n/top-only.txt\n"},
		{"a.go", "package a // needle\n"},
		{"keep.log", "needle\n"},
		{"x.log", "needle\n"},
		{"excluded.txt", "needle\n"},
		{"top-only.txt", "needle\n"},
		{"build/out.txt", "needle\n"},
		{"sub/.gitignore", "!x.log\n*.tmp\n"},
		{"sub/x.log", "needle\n"},
		{"sub/z.log", "needle\n"},
		{"sub/top-only.txt", "needle\n"},
		{"sub/y.tmp", "needle\n"},
		{"bin.dat", "\x00needle\n"},
		{"big.txt", strings.Repeat("needle\n", 100)},
		{"secret/s.txt", "needle\n"},
		{"../outside/o.txt", "needle\n"},
	}
	for i, f := range files {
		p := filepath.Join(tr.root, f.path)
		writeTestFile(t, p, f.data)
		mt := time.Date(2020, 1, 1, 0, i, 0, 0, time.UTC)
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{"link-in": "a.go", "link-out": "../outside/o.txt", "link-dir": "sub", "dangling": "nowhere"}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(tr.root, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(tr.root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr.policy, err = scope.New(base, []string{tr.root}, []string{filepath.Join(tr.root, "secret")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.policy.Close() })
	return tr
}

func writeTestFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// grepFiles runs a FilesWithMatches grep and returns the relative paths.
func (tr *tree) grepFiles(t *testing.T, dir, pattern string, keep func(rel, name string) bool) ([]string, Skipped) {
	t.Helper()
	m, err := NewMatcher(pattern, false, false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Grep(context.Background(), GrepOptions{
		Options:     Options{Policy: tr.policy, Root: filepath.Join(tr.root, dir), KeepFile: keep},
		Matcher:     m,
		MaxFileSize: 100,
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Files {
		rel, _ := filepath.Rel(tr.root, f.Path)
		got = append(got, rel)
	}
	return got, res.Skipped
}

func TestGrepSkips(t *testing.T) {
	tr := newTree(t)
	got, sk := tr.grepFiles(t, ".", "needle", nil)
	// Newest first: link-in shows its target's time (a.go), so it sorts
	// by path after a.go.
	want := []string{"sub/top-only.txt", "sub/x.log", "keep.log", "a.go", "link-in"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("matching files (-want +got):\n%s", diff)
	}
	wantSk := Skipped{Binary: 1, TooLarge: 1, Ignored: 6, Denied: 2, Unreadable: 1, GitDirs: 1, SymlinkDirs: 1, Special: 1}
	if sk != wantSk {
		t.Errorf("skipped = %+v, want %+v", sk, wantSk)
	}
	if got, want := sk.Footer("100"), "[Skipped: 1 binary, 6 ignored by .gitignore, 1 over 100, 2 denied by path scoping, 1 unreadable, "+
		"1 .git directory, 1 symlinked directory (not followed), 1 special file (FIFO, socket or device)]"; got != want {
		t.Errorf("footer = %q, want %q", got, want)
	}
}

func TestGrepSubdirUsesParentIgnores(t *testing.T) {
	tr := newTree(t)
	got, sk := tr.grepFiles(t, "sub", "needle", nil)
	// *.log from the repository root's .gitignore ignores z.log; sub's
	// own !x.log re-includes x.log; /top-only.txt is anchored at the root.
	if diff := cmp.Diff([]string{"sub/top-only.txt", "sub/x.log"}, got); diff != "" {
		t.Errorf("matching files (-want +got):\n%s", diff)
	}
	if want := (Skipped{Ignored: 2}); sk != want {
		t.Errorf("skipped = %+v, want %+v", sk, want)
	}
}

func TestGrepFilterIsNotASkip(t *testing.T) {
	tr := newTree(t)
	f, err := NewFilter("*.go", "")
	if err != nil {
		t.Fatal(err)
	}
	got, sk := tr.grepFiles(t, ".", "needle", f.Keep)
	if diff := cmp.Diff([]string{"a.go"}, got); diff != "" {
		t.Errorf("matching files (-want +got):\n%s", diff)
	}
	// Only directories are left to skip: files the filter rejects are not
	// counted, whatever else is true of them.
	if want := (Skipped{Ignored: 1, Denied: 1, GitDirs: 1}); sk != want {
		t.Errorf("skipped = %+v, want %+v", sk, want)
	}
}

func TestGrepSingleFile(t *testing.T) {
	tr := newTree(t)
	got, sk := tr.grepFiles(t, "x.log", "needle", nil) // ignored, but named explicitly
	if diff := cmp.Diff([]string{"x.log"}, got); diff != "" || sk != (Skipped{}) {
		t.Errorf("single file: got %v %+v, want [x.log] and nothing skipped", got, sk)
	}
	_, sk = tr.grepFiles(t, "bin.dat", "needle", nil)
	if sk != (Skipped{Binary: 1}) {
		t.Errorf("binary single file: skipped %+v, want 1 binary", sk)
	}
}

func TestWalkCancelled(t *testing.T) {
	tr := newTree(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m, _ := NewMatcher("needle", false, false)
	_, err := Grep(ctx, GrepOptions{Options: Options{Policy: tr.policy, Root: tr.root}, Matcher: m})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Grep with a cancelled context: err = %v, want context.Canceled", err)
	}
}

func TestGlob(t *testing.T) {
	tr := newTree(t)
	tests := []struct {
		pattern string
		want    []string
	}{
		{"**/*.log", []string{"sub/x.log", "keep.log"}},
		{"*.log", []string{"keep.log"}},
		{"sub/*", []string{"sub/top-only.txt", "sub/x.log", "sub/.gitignore"}},
		{"**/*.{go,tmp}", []string{"a.go"}}, // sub/y.tmp is ignored
		{"[a-b]*", []string{"big.txt", "bin.dat", "a.go"}},
		{"link-*", []string{"link-in"}}, // link-out denied, link-dir not followed
		{"**/top-only.txt", []string{"sub/top-only.txt"}},
		{"nothing*", nil},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			res, err := Glob(context.Background(), Options{Policy: tr.policy, Root: tr.root}, tt.pattern)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range res.Files {
				rel, _ := filepath.Rel(tr.root, f.Path)
				got = append(got, rel)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("glob %q (-want +got):\n%s", tt.pattern, diff)
			}
		})
	}
	if _, err := Glob(context.Background(), Options{Policy: tr.policy, Root: tr.root}, "a[b"); err == nil {
		t.Error("glob a[b: got no error, want a bad pattern error")
	}
}

func TestDirPruner(t *testing.T) {
	tests := []struct {
		pattern, dir string
		keep         bool
	}{
		{"**/*.go", "a/b", true},
		{"*.go", "a", false},
		{"src/*.go", "src", true},
		{"src/*.go", "lib", false},
		{"src/*.go", "src/deep", false},
		{"src/**/x", "src/a/b", true},
		{"{src,lib}/*.go", "lib", true},
		{"{src/a,lib}/*.go", "other", true}, // braces span a slash: no pruning
		{"**", "a/b/c", true},
	}
	for _, tt := range tests {
		keep := dirPruner(tt.pattern)
		if got := keep == nil || keep(tt.dir); got != tt.keep {
			t.Errorf("pattern %q, dir %q: keep = %v, want %v", tt.pattern, tt.dir, got, tt.keep)
		}
	}
}

// TestGrepFIFOIgnoreFiles checks that .gitignore files which are FIFOs, in
// the searched directory and above it, give no rules and block nothing: a
// FIFO without a writer never returns from a blocking open.
func TestGrepFIFOIgnoreFiles(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(base, ".git/HEAD"), "ref: refs/heads/main\n")
	writeTestFile(t, filepath.Join(base, "sub/a.txt"), "needle\n")
	for _, fifo := range []string{".gitignore", "sub/.gitignore", ".git/info/exclude"} {
		os.MkdirAll(filepath.Dir(filepath.Join(base, fifo)), 0o755)
		if err := syscall.Mkfifo(filepath.Join(base, fifo), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := scope.New(base, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	tr := &tree{root: base, policy: p}
	for _, dir := range []string{".", "sub"} {
		done := make(chan []string, 1)
		go func() {
			got, _ := tr.grepFiles(t, dir, "needle", nil)
			done <- got
		}()
		select {
		case got := <-done:
			if diff := cmp.Diff([]string{"sub/a.txt"}, got); diff != "" {
				t.Errorf("grep in %s: matching files (-want +got):\n%s", dir, diff)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("grep in %s: still blocked on a FIFO .gitignore after 5s", dir)
		}
	}
}
