package benchkit

import (
	"bytes"
	"context"
	"errors"
	"testing"
)

// TestRun checks the exit status and the "prog: error" line.
func TestRun(t *testing.T) {
	var stderr bytes.Buffer
	if got := Run("bench", &stderr, func(context.Context) error { return nil }); got != 0 || stderr.Len() != 0 {
		t.Errorf("Run succeeding: got status %d, stderr %q; want 0, nothing", got, stderr.String())
	}
	got := Run("bench", &stderr, func(context.Context) error { return errors.New("spawn boris: boom") })
	if want := "bench: spawn boris: boom\n"; got != 1 || stderr.String() != want {
		t.Errorf("Run failing: got status %d, stderr %q; want 1, %q", got, stderr.String(), want)
	}
}
