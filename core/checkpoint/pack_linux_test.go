package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// countObjects reads git count-objects -v: loose objects and objects in
// packs.
func countObjects(t *testing.T, s *Store) (loose, packed int) {
	t.Helper()
	for _, line := range strings.Split(gitOut(t, s, "count-objects", "-v"), "\n") {
		k, v, _ := strings.Cut(line, ": ")
		n, _ := strconv.Atoi(v)
		switch k {
		case "count":
			loose = n
		case "in-pack":
			packed = n
		}
	}
	return loose, packed
}

// TestStartWritesOnePack: the first recording of a tree of many files
// stores their contents as one pack, not a file per object, and records
// the same tree git would: every file, mode and link, fsck clean.
func TestStartWritesOnePack(t *testing.T) {
	tree := t.TempDir()
	const n = 3 * packMin
	for i := range n {
		dir := filepath.Join(tree, fmt.Sprintf("d%d", i%10))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), fmt.Sprintf("file %d\n", i))
	}
	if err := os.Chmod(filepath.Join(tree, "d1", "f1.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("d0/f0.txt", filepath.Join(tree, "link")); err != nil {
		t.Fatal(err)
	}
	s := openTestStore(t, tree)
	loose, packed := countObjects(t, s)
	if packed < n || loose > 20 {
		t.Errorf("after the start: %d loose objects and %d in packs, want the %d files' contents packed and only trees and the commit loose", loose, packed, n)
	}
	gitOut(t, s, "fsck", "--strict", "--no-dangling")
	listing := gitOut(t, s, "ls-tree", "-r", "HEAD")
	if got := strings.Count(listing, "\n") + 1; got != n+1 {
		t.Errorf("the start recorded %d entries, want %d files and a link", got, n+1)
	}
	for _, want := range []string{"100755 blob", "120000 blob"} {
		if !strings.Contains(listing, want) {
			t.Errorf("the start's tree has no %q entry:\n%.300s", want, listing)
		}
	}
	if got := gitOut(t, s, "show", "HEAD:d7/f7.txt"); got != "file 7" {
		t.Errorf("d7/f7.txt as recorded: %q", got)
	}
}

// TestPackReadsNothingOutside: a listing that names paths through a link
// to outside the tree, a link to a file outside, or a FIFO packs none of
// them and never blocks: the pack only ever holds what is beneath the
// tree, reached without a link.
func TestPackReadsNothingOutside(t *testing.T) {
	tree, outside := t.TempDir(), t.TempDir()
	const secret = "outside secret 7f3a"
	write(t, filepath.Join(outside, "secret.txt"), secret+"\n")
	var paths []string
	for i := range packMin {
		rel := fmt.Sprintf("f%d.txt", i)
		write(t, filepath.Join(tree, rel), fmt.Sprintf("file %d\n", i))
		paths = append(paths, rel)
	}
	if err := os.Symlink(outside, filepath.Join(tree, "dirlink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(tree, "filelink")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(tree, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	paths = append(paths, "dirlink/secret.txt", "filelink", "fifo", "../"+filepath.Base(outside)+"/secret.txt", filepath.Join(outside, "secret.txt"))
	s, err := Open(context.Background(), Options{Tree: tree, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.packFiles(context.Background(), nil, paths)
	if _, packed := countObjects(t, s); packed != packMin {
		t.Errorf("%d objects packed, want the %d files beneath the tree", packed, packMin)
	}
	all, err := s.run(context.Background(), nil, nil, "cat-file", "--batch-all-objects", "--batch")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(all), secret) {
		t.Errorf("the shadow holds the outside file's content")
	}
}
