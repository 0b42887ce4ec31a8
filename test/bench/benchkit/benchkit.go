// Package benchkit provides the pieces Boris's benchmark commands share:
// the command's life (signals, exit status, usage errors), building the
// binaries under test from the module, installing a pinned npm peer, the
// small file every read is checked against, timed and checked tool calls
// on one MCP session, latency statistics, and the report's formatting.
//
// The commands (test/bench, test/bench/gateway, test/bench/grep) are main
// packages, which cannot import one another; what they have in common
// lives here so that a fix to, say, the percentile or the result check
// reaches every benchmark.
package benchkit

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Run calls run with a context that SIGINT or SIGTERM cancels and returns
// the command's exit status: 0, or 1 after writing "prog: error" to
// stderr. A benchmark's main ends with os.Exit(Run(...)).
func Run(prog string, stderr io.Writer, run func(context.Context) error) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx)
	stop()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
		return 1
	}
	return 0
}

// ExitUsage rejects settings that parse but make no sense the way the flag
// package (flag.ExitOnError) rejects a bad flag: it writes "prog: msg" to
// stderr and exits with status 2.
func ExitUsage(prog, msg string) {
	fmt.Fprintf(os.Stderr, "%s: %s\n", prog, msg)
	os.Exit(2)
}
