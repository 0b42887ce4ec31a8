package core

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchFsBoris returns a boris with the filesystem toolset over a
// directory holding edit.go (2,000 lines) and tree/, 10,000 small files
// in 100 leaf directories, as test/bench/fstools builds them.
func benchFsBoris(b *testing.B) (*boris, string) {
	dir := b.TempDir()
	var sb strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&sb, "\tx%d := compute(%d) // line %d of the file\n", i, i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "edit.go"), []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	for p := range 10 {
		for q := range 10 {
			leaf := filepath.Join(dir, "tree", fmt.Sprintf("p%02d", p), fmt.Sprintf("q%d", q))
			if err := os.MkdirAll(leaf, 0o755); err != nil {
				b.Fatal(err)
			}
			for f := range 100 {
				if err := os.WriteFile(filepath.Join(leaf, fmt.Sprintf("f%02d.go", f)), []byte("package x\n"), 0o644); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	return newBenchBoris(b, "--toolset", "filesystem", "--allow-dir", dir, "--checkpoints", "off"), dir
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
