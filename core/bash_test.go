package core

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit"
)

// TestBashExecError covers EXEC_ERROR, which a live core only reaches when
// its shell cannot run a command: here, a shell already closed by shutdown.
func TestBashExecError(t *testing.T) {
	cfg, err := ParseConfig([]string{"--workdir", t.TempDir()}, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	b, err := newBoris(cfg, nil, nil, log, log)
	if err != nil {
		t.Fatal(err)
	}
	b.close()
	_, err = b.bash(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "bash"}}, bashParams{Command: "true"})
	if got := toolkit.Classify(err).Error(); !strings.HasPrefix(got, "[EXEC_ERROR] ") {
		t.Errorf("bash after shutdown: got %q, want [EXEC_ERROR]", got)
	}
}
