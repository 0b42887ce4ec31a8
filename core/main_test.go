package core

import (
	"context"
	"fmt"
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
	// Checkpoint shadows of the cores these tests run stay in a temporary
	// directory, not the user's ~/.local/state.
	state, err := os.MkdirTemp("", "boris-core-test-state-")
	if err == nil {
		err = os.Setenv("XDG_STATE_HOME", state)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(state)
	os.Exit(code)
}
