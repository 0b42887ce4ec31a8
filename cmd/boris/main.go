// Command boris is the Boris MCP server over stdio. See core.Main.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/mjkoo/boris/core"
	"github.com/mjkoo/boris/internal/flagenv"
	"github.com/mjkoo/boris/internal/gcpace"
	"github.com/mjkoo/boris/internal/procs"
	"github.com/mjkoo/boris/internal/stdin"
)

func main() {
	// boris's live heap is a few MB: paced by Go's default, a call that
	// reads, diffs or lists megabytes would run several collections.
	if _, set := os.LookupEnv("GOGC"); !set {
		gcpace.Start()
	}
	// Once start-up is over, one P serves requests best (see package procs).
	if _, set := os.LookupEnv("GOMAXPROCS"); !set {
		procs.Manage()
	}
	// A pipe is read through the runtime's poller (see package stdin).
	err := core.Main(context.Background(), os.Args[1:], os.Environ(), stdin.Pollable(os.Stdin), os.Stdout, os.Stderr)
	if code := flagenv.ExitCode(err); code != 0 {
		fmt.Fprintf(os.Stderr, "boris: %v\n", err)
		os.Exit(code)
	}
}
