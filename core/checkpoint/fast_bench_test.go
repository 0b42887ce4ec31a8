package checkpoint

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkRecordFiles measures one str_replace's recording in process on
// a small tree (go test -bench RecordFiles ./core/checkpoint).
func BenchmarkRecordFiles(b *testing.B) {
	tree := b.TempDir()
	if err := os.MkdirAll(filepath.Join(tree, "d"), 0o755); err != nil {
		b.Fatal(err)
	}
	write(b, filepath.Join(tree, "d", "edit.txt"), "0\n")
	s := openTestStore(b, tree)
	abs := filepath.Join(tree, "d", "edit.txt")
	for i := 0; b.Loop(); i++ {
		write(b, abs, fmt.Sprintf("%d\n", i))
		if _, err := s.RecordFiles("str_replace", "edit", abs); err != nil {
			b.Fatal(err)
		}
	}
}
