package boris

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/checkpoint"
	"github.com/mjkoo/boris/core/scope"
	"github.com/mjkoo/boris/core/shell"
)

// testDeps are the tools' dependencies for tests: dir is the working
// directory, the one allowed directory, and where an unconfined shell
// starts; checkpoints are off.
type testDeps struct {
	policy *scope.Policy
	shell  *shell.Shell
}

func (d *testDeps) Policy() *scope.Policy          { return d.policy }
func (d *testDeps) Dir() string                    { return d.shell.Dir() }
func (d *testDeps) Shell() *shell.Shell            { return d.shell }
func (d *testDeps) Recorder() *checkpoint.Recorder { return nil }
func (d *testDeps) UndoLastEdit(context.Context, *mcp.CallToolRequest, string) (*mcp.CallToolResult, error) {
	return nil, errors.New("no checkpoints in these tests")
}

// newTestTools returns the toolset working in dir, with the default
// limits; the shell is closed when the test ends.
func newTestTools(tb testing.TB, dir string) *tools {
	tb.Helper()
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		tb.Fatal(err)
	}
	policy, err := scope.New(dir, []string{dir}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	sh, err := shell.New(dir, shell.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { sh.Close(); policy.Close() })
	return &tools{d: &testDeps{policy: policy, shell: sh}, opt: Options{
		MaxFileSize: 10 << 20, Timeout: 120, BackgroundTaskLimit: 10, Log: slog.New(slog.DiscardHandler),
	}}
}
