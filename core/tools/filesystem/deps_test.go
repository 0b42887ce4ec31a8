package filesystem

import (
	"testing"

	"github.com/mjkoo/boris/core/toolkit/tooltest"
)

// newTestTools returns the filesystem tools working in dir, the one
// directory they may touch (tooltest.In: checkpoints and workspaces off),
// with the default --max-file-size.
func newTestTools(tb testing.TB, dir string) *tools {
	tb.Helper()
	return &tools{d: tooltest.In(tb, dir), opt: Options{MaxFileSize: 10 << 20}}
}
