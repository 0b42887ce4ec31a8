package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkRecord measures one recording through git of one changed file
// on a tree of 2,000 files, by each strategy: the path named (a file tool
// git must record), what the watcher saw (a command), and the whole tree
// (no watcher): go test -run '^$' -bench Record ./core/checkpoint
func BenchmarkRecord(b *testing.B) {
	for _, bc := range []struct {
		name  string
		watch bool
		named bool
	}{
		{name: "named", named: true},
		{name: "watched", watch: true},
		{name: "wholeTree"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			tree := b.TempDir()
			for d := range 20 {
				dir := filepath.Join(tree, fmt.Sprintf("d%02d", d))
				if err := os.MkdirAll(dir, 0o755); err != nil {
					b.Fatal(err)
				}
				for f := range 100 {
					write(b, filepath.Join(dir, fmt.Sprintf("f%03d.txt", f)), fmt.Sprintf("file %d %d\n", d, f))
				}
			}
			s := openTestStore(b, tree)
			if bc.watch {
				if err := s.Watch(); err != nil {
					b.Skipf("the watcher cannot start here (%v): no watched recording to measure", err)
				}
			}
			abs := filepath.Join(tree, "d07", "f042.txt")
			var paths []string
			if bc.named {
				paths = []string{abs}
			}
			for i := 0; b.Loop(); i++ {
				write(b, abs, fmt.Sprintf("edit %d\n", i))
				cp, err := s.Record(context.Background(), "bench", "edit", paths...)
				if err != nil || cp == nil {
					b.Fatalf("record: checkpoint %v, err %v", cp, err)
				}
			}
		})
	}
}
