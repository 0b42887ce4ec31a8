package benchkit

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkspace checks that a workspace holds the fixture under files/ of
// a fresh directory named after the pattern, and that Close removes it.
func TestWorkspace(t *testing.T) {
	ws, err := NewWorkspace(context.Background(), "benchkit-test-", "test bench")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(ws.Dir), "benchkit-test-") {
		t.Errorf("Dir: got %q, want a name starting benchkit-test-", ws.Dir)
	}
	if _, err := os.Stat(filepath.Join(ws.Root, "go.mod")); err != nil {
		t.Errorf("Root %q: %v", ws.Root, err)
	}
	if _, err := os.Stat(ws.Fixture.Path); err != nil || filepath.Base(ws.Fixture.Dir) != "files" {
		t.Errorf("Fixture %q: stat error %v; want a file under files/", ws.Fixture.Path, err)
	}
	if err := ws.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ws.Dir); !os.IsNotExist(err) {
		t.Errorf("after Close: stat %s: got %v, want it gone", ws.Dir, err)
	}
}
