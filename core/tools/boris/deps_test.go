package boris

import (
	"log/slog"
	"testing"

	"github.com/mjkoo/boris/core/toolkit/tooltest"
)

// newTestTools returns the toolset working in dir (tooltest.In: the one
// allowed directory, an unconfined shell there, checkpoints off), with
// the default limits.
func newTestTools(tb testing.TB, dir string) *tools {
	tb.Helper()
	return &tools{d: tooltest.In(tb, dir), opt: Options{
		MaxFileSize: 10 << 20, Timeout: 120, BackgroundTaskLimit: 10, Log: slog.New(slog.DiscardHandler),
	}}
}
