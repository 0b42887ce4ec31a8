package test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestFirstRunStdinEOF: a client that sends one bad line and closes stdin
// gets its parse error, and boris ends as at any stdin EOF: exit 0, and
// no ERROR in its log (issue 27: "server run cancelled" was logged).
func TestFirstRunStdinEOF(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, borisBin, "--workdir", realTempDir(t))
	cmd.Env = cleanEnv()
	cmd.Stdin = strings.NewReader("not json\n")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatal("boris still running 20 s after stdin closed")
	}
	if err != nil {
		t.Errorf("exit: got %v, want status 0", err)
	}
	if !strings.Contains(stdout.String(), `"code":-32700`) {
		t.Errorf("stdout: got %q, want a parse error (-32700)", stdout.String())
	}
	if strings.Contains(stderr.String(), "level=ERROR") || strings.Contains(stderr.String(), "cancelled") {
		t.Errorf("stderr at an ordinary EOF: got\n%s\nwant no ERROR", stderr.String())
	}
	if strings.Contains(stderr.String(), "expects an MCP client") {
		t.Errorf("stderr with a pipe on stdin: got\n%s\nwant no note for a person", stderr.String())
	}
}

// TestFirstRunTerminal: boris started in a terminal says, in one line on
// stderr, that it expects an MCP client on stdin and how to connect one;
// Ctrl-D (EOF) ends it with status 0.
func TestFirstRunTerminal(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("opens a pseudo-terminal through /dev/ptmx, which this test does on Linux only")
	}
	master, tty := openPTY(t)
	cmd := exec.Command(borisBin, "--workdir", realTempDir(t))
	cmd.Env = cleanEnv()
	cmd.Stdin = tty
	stderr := &syncWriter{b: &strings.Builder{}}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // boris holds its own copy
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	waitFor(t, "the note for a person at a terminal", func() bool {
		return strings.Contains(stderr.String(), "expects an MCP client on stdin")
	})
	if _, err := master.Write([]byte{4}); err != nil { // Ctrl-D: end of input
		t.Fatal(err)
	}
	select {
	case err := <-done:
		done <- err
		if err != nil {
			t.Errorf("after Ctrl-D: got %v, want exit status 0", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("boris still running 20 s after Ctrl-D")
	}
	var notes []string
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, "MCP client") {
			notes = append(notes, line)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "claude mcp add boris -- ") || strings.Contains(stderr.String(), "level=ERROR") {
		t.Errorf("stderr: got\n%s\nwant one line saying an MCP client is expected and how to add one, and no ERROR", stderr)
	}
}

// openPTY opens a pseudo-terminal pair: the master side and the terminal
// a process reads as its stdin. Both are closed at the end of the test.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pseudo-terminal number: %v", err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open the terminal: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	return master, tty
}
