package filesystem

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// benchFsBoris returns the filesystem tools over a directory written by
// writeFsFixture.
func benchFsBoris(b *testing.B) (*tools, string) {
	dir := writeFsFixture(b)
	return newTestTools(b, dir), dir
}

// writeFsFixture writes benchkit's filesystem tree to a new directory.
func writeFsFixture(b *testing.B) string {
	dir := b.TempDir()
	if err := benchkit.WriteFsTree(dir); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkFsEditDryRun: edit_file's dry run of one line in 2,000, the
// handler alone.
func BenchmarkFsEditDryRun(b *testing.B) {
	bo, dir := benchFsBoris(b)
	p := fsEditParams{Path: filepath.Join(dir, "edit.go"), DryRun: true,
		Edits: []fsEdit{{OldText: "\tx1000 := compute(1000) // line 1000 of the file", NewText: "\tx1000 := compute(1001) // changed"}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bo.fsEditFile(context.Background(), nil, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFsDirectoryTree: directory_tree of 10,000 files, the handler
// alone.
func BenchmarkFsDirectoryTree(b *testing.B) {
	bo, dir := benchFsBoris(b)
	p := fsTreeParams{Path: filepath.Join(dir, "tree")}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bo.fsDirectoryTree(context.Background(), nil, p); err != nil {
			b.Fatal(err)
		}
	}
}
