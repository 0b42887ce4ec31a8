package filesystem

import (
	"path/filepath"
	"testing"

	"github.com/mjkoo/boris/core/checkpoint"
	"github.com/mjkoo/boris/core/scope"
	"github.com/mjkoo/boris/core/workspace"
)

// testDeps are the tools' dependencies for tests: dir is the working
// directory and the one allowed directory; checkpoints and workspaces are
// off.
type testDeps struct {
	policy *scope.Policy
	dir    string
	ws     *workspace.Paths
}

func (d *testDeps) Policy() *scope.Policy          { return d.policy }
func (d *testDeps) Dir() string                    { return d.dir }
func (d *testDeps) Recorder() *checkpoint.Recorder { return nil }
func (d *testDeps) Workspaces() *workspace.Paths   { return d.ws }

// newTestTools returns the filesystem tools working in dir, the one
// directory they may touch, with the default --max-file-size.
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
	tb.Cleanup(func() { policy.Close() })
	d := &testDeps{policy: policy, dir: dir}
	d.ws = &workspace.Paths{Files: d}
	return &tools{d: d, opt: Options{MaxFileSize: 10 << 20}}
}
