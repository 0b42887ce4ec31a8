package checkpoint

import (
	"context"
	"crypto/rand"
	"io/fs"
	"path/filepath"
	"testing"
)

// TestPruneBoundsTheShadowsSize: a file rewritten with new bytes at every
// checkpoint leaves the shadow holding about as many copies of it as
// checkpoints are kept (Keep, and a quarter more, at least one, before a prune), not one
// per change ever made: pruned checkpoints' objects leave the disk.
func TestPruneBoundsTheShadowsSize(t *testing.T) {
	const size, keep, changes = 256 << 10, 2, 8
	tree := t.TempDir()
	s, err := Open(context.Background(), Options{Tree: tree, StateDir: t.TempDir(), Keep: keep})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	for i := range changes {
		write(t, filepath.Join(tree, "blob.bin"), string(randomBytes(t, size)))
		if _, err := s.Record(ctx, "bash", "rewrite", "blob.bin"); err != nil {
			t.Fatalf("record change %d: %v", i, err)
		}
	}
	got := dirSize(t, s.Dir())
	if limit := int64(keep+max(keep/4, 1)+2) * size; got > limit {
		t.Errorf("shadow after %d changes of a %d KiB file, keeping %d: got %d KiB on disk, want at most %d KiB",
			changes, size>>10, keep, got>>10, limit>>10)
	}
}

// randomBytes is n bytes no compression shrinks.
func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// dirSize is the bytes of the files under dir.
func dirSize(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err == nil {
			n += fi.Size()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
