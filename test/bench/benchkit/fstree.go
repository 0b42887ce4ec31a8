package benchkit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WriteFsTree fills dir with what the filesystem tools' Go benchmarks
// read: small.txt (50 lines), edit.go (2,000 lines) and tree/, 10,000
// small files in 100 leaf directories.
func WriteFsTree(dir string) error {
	if err := os.WriteFile(filepath.Join(dir, "small.txt"), []byte(strings.Repeat("a line of the small file\n", 50)), 0o644); err != nil {
		return err
	}
	var sb strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&sb, "\tx%d := compute(%d) // line %d of the file\n", i, i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "edit.go"), []byte(sb.String()), 0o644); err != nil {
		return err
	}
	for p := range 10 {
		for q := range 10 {
			leaf := filepath.Join(dir, "tree", fmt.Sprintf("p%02d", p), fmt.Sprintf("q%d", q))
			if err := os.MkdirAll(leaf, 0o755); err != nil {
				return err
			}
			for f := range 100 {
				if err := os.WriteFile(filepath.Join(leaf, fmt.Sprintf("f%02d.go", f)), []byte("package x\n"), 0o644); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
