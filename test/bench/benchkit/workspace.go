package benchkit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// Workspace is what one run of an MCP benchmark works in: the module it
// builds from, and a temporary directory, removed by Close, that holds the
// built binaries and, under files/, the fixture.
type Workspace struct {
	Root    string  // the module root (ModuleRoot)
	Dir     string  // the temporary directory
	Fixture Fixture // the small file every read is checked against
}

// NewWorkspace finds the module root, creates a temporary directory named
// after pattern (as os.MkdirTemp names it) and writes the fixture there,
// its lines naming the benchmark name (see WriteFixture).
func NewWorkspace(ctx context.Context, pattern, name string) (*Workspace, error) {
	root, err := ModuleRoot(ctx)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		return nil, fmt.Errorf("create temp dir: %w", err)
	}
	ws := &Workspace{Root: root, Dir: dir}
	if ws.Fixture, err = WriteFixture(filepath.Join(dir, "files"), name); err != nil {
		ws.Close()
		return nil, err
	}
	return ws, nil
}

// Close removes the temporary directory and everything in it.
func (w *Workspace) Close() error {
	if err := os.RemoveAll(w.Dir); err != nil {
		return fmt.Errorf("remove temp dir: %w", err)
	}
	return nil
}
