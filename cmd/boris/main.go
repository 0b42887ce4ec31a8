// Command boris is the Boris MCP server over stdio. See core.Main.
package main

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/mjkoo/boris/core"
	"github.com/mjkoo/boris/internal/flagenv"
)

// gcPercent is boris's GOGC unless the environment sets one. Its live
// heap is a few MB, so Go's default (100) collects every few MB
// allocated: several collections during one call that reads, diffs or
// lists megabytes, each taking CPU from the call. At 400 the heap peaks at
// five times a small live heap, and such a call runs far fewer.
const gcPercent = 400

func main() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	err := core.Main(context.Background(), os.Args[1:], os.Environ(), os.Stdin, os.Stdout, os.Stderr)
	if code := flagenv.ExitCode(err); code != 0 {
		fmt.Fprintf(os.Stderr, "boris: %v\n", err)
		os.Exit(code)
	}
}
