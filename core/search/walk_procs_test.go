package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/mjkoo/boris/core/scope"
	"github.com/mjkoo/boris/internal/procs"
)

// TestWalkWidens: in a boris that runs on one P (procs.Narrow), a walk's
// workers run on every P Go would use, and the process is back on one P
// once the walk is done.
func TestWalkWidens(t *testing.T) {
	n := runtime.GOMAXPROCS(0)
	if n < 2 {
		t.Skip("needs GOMAXPROCS of at least 2; this machine runs Go on 1 CPU")
	}
	dir := t.TempDir()
	for i := range 20 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	policy, err := scope.New(dir, []string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	procs.Manage()
	procs.Narrow()
	t.Cleanup(procs.Restore)
	var least atomic.Int64
	least.Store(int64(n))
	if _, err := walk(context.Background(), Options{Policy: policy, Root: dir}, func(*entry) Reason {
		if p := int64(runtime.GOMAXPROCS(0)); p < least.Load() {
			least.Store(p)
		}
		return Searched
	}); err != nil {
		t.Fatal(err)
	}
	if got := least.Load(); got != int64(n) {
		t.Errorf("during the walk: GOMAXPROCS %d, want %d", got, n)
	}
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("after the walk: GOMAXPROCS %d, want 1", got)
	}
}
