package core

import (
	"context"
	"os"
	"testing"

	"github.com/mjkoo/boris/core/sandbox"
)

// TestMain lets the test binary be the sandbox's spawner and helper, as
// the boris binary is: a boris built in a test re-executes itself
// (/proc/self/exe) for them.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && (os.Args[1] == sandbox.HelperArg || os.Args[1] == sandbox.SpawnerArg) {
		_ = Main(context.Background(), os.Args[1:], os.Environ(), os.Stdin, os.Stdout, os.Stderr)
		os.Exit(126) // Main exits itself in these modes
	}
	os.Exit(m.Run())
}
