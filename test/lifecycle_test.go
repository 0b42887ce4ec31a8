package test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// startSleeper starts a long bash call on c and waits until its command runs.
func startSleeper(t *testing.T, c *core) string {
	t.Helper()
	marker := fmt.Sprintf("300.%d", time.Now().UnixNano()%1000000)
	go func() {
		_, _ = c.session.CallTool(context.Background(), &mcp.CallToolParams{
			Name: "bash", Arguments: map[string]any{"command": "sleep " + marker + " & sleep " + marker + "; wait"},
		})
	}()
	waitFor(t, "the command to start", func() bool { return len(processesWith("sleep "+marker)) >= 2 })
	return marker
}

// TestStdinEOFKillsChildren: a closed stdin kills every command at once
// (SIGKILL, not a TERM the command could stall on), including one that
// left its session, and boris exits 0.
func TestStdinEOFKillsChildren(t *testing.T) {
	// A raw pipe rather than the SDK's transport, whose Close would send
	// SIGTERM after a delay and hide a core that ignores EOF.
	dir := realTempDir(t)
	cmd := exec.Command(borisBin, "--workdir", dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	marker := fmt.Sprintf("400.%d", time.Now().UnixNano()%1000000)
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash","arguments":{"command":"trap 'echo > got-term' TERM; setsid sleep ` + marker + ` & sleep ` + marker + ` & wait; wait"}}}`,
	} {
		if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the command to start", func() bool { return len(processesWith("sleep "+marker)) >= 2 })
	stdin.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("boris after stdin EOF: got %v, want exit status 0", err)
		}
	case <-time.After(15 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("boris still running 15 s after stdin EOF")
	}
	waitNoProcesses(t, "sleep "+marker)
	if _, err := os.Stat(filepath.Join(dir, "got-term")); err == nil {
		t.Errorf("the command got SIGTERM and ran its trap: want it killed at once on stdin EOF")
	}
}

func TestSIGTERMKillsChildren(t *testing.T) {
	c := startCore(t, "--workdir", realTempDir(t))
	marker := startSleeper(t, c)
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitNoProcesses(t, "sleep "+marker)
	_ = c.session.Close()
	if c.cmd.ProcessState == nil {
		t.Fatal("boris still running after SIGTERM")
	}
	ws := c.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() || ws.ExitStatus() != 0 {
		t.Errorf("boris after SIGTERM: got %v, want exit status 0", c.cmd.ProcessState)
	}
}
