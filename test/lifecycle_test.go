package test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
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

// privateTempDirs lists the private temporary directories boris made under
// root.
func privateTempDirs(t *testing.T, root string) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(root, "boris-tmp-*"))
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// commandsTempDir returns the TMPDIR c's commands get.
func commandsTempDir(t *testing.T, c *core) string {
	t.Helper()
	out := c.ok("bash", map[string]any{"command": "echo TMPDIR=$TMPDIR"})
	m := regexp.MustCompile(`TMPDIR=(/\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no TMPDIR in %q", out)
	}
	return m[1]
}

// TestSIGHUPEndsCleanly: a hang-up (the terminal boris was started from
// closing) ends boris as SIGTERM does: commands killed, exit status 0, its
// private temporary directory removed.
func TestSIGHUPEndsCleanly(t *testing.T) {
	tmp := realTempDir(t)
	c := startCoreWith(t, coreOptions{args: []string{"--workdir", realTempDir(t)}, env: []string{"TMPDIR=" + tmp}})
	marker := startSleeper(t, c)
	if got := privateTempDirs(t, tmp); len(got) != 1 {
		t.Fatalf("private temporary directories before the hang-up: got %v, want one", got)
	}
	if err := c.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitNoProcesses(t, "sleep "+marker)
	_ = c.session.Close()
	if ws := c.cmd.ProcessState.Sys().(syscall.WaitStatus); ws.Signaled() || ws.ExitStatus() != 0 {
		t.Errorf("boris after SIGHUP: got %v, want exit status 0", c.cmd.ProcessState)
	}
	if got := privateTempDirs(t, tmp); len(got) != 0 {
		t.Errorf("private temporary directories after SIGHUP: got %v, want none", got)
	}
}

// TestKilledCoresTempDirIsSwept: a boris killed with SIGKILL cannot remove
// its private temporary directory (nor can anything the client does); the
// next boris started under the same TMPDIR removes it, and never the
// directory of a boris still running.
func TestKilledCoresTempDirIsSwept(t *testing.T) {
	tmp := realTempDir(t)
	opts := coreOptions{args: []string{"--workdir", realTempDir(t)}, env: []string{"TMPDIR=" + tmp}}
	killed, alive := startCoreWith(t, opts), startCoreWith(t, opts)
	// A core makes its directory before its first command, the one whose
	// TMPDIR it is.
	killedDir := commandsTempDir(t, killed)
	aliveDir := commandsTempDir(t, alive)
	if dirs := privateTempDirs(t, tmp); len(dirs) != 2 {
		t.Fatalf("private temporary directories of two cores that ran a command: got %v, want two", dirs)
	}
	writeFile(t, filepath.Join(killedDir, "file"), "left behind")
	if err := killed.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = killed.session.Close()
	if _, err := os.Stat(filepath.Join(killedDir, "file")); err != nil {
		t.Fatalf("a SIGKILLed core's directory should still be there before the sweep: %v", err)
	}
	next := startCoreWith(t, opts)
	waitFor(t, "the next core to sweep the killed core's directory", func() bool {
		_, err := os.Stat(killedDir)
		return os.IsNotExist(err)
	})
	if _, err := os.Stat(aliveDir); err != nil {
		t.Errorf("a running core's directory was swept: %v", err)
	}
	if got := alive.ok("bash", map[string]any{"command": "echo swept-not > $TMPDIR/f && cat $TMPDIR/f"}); !strings.Contains(got, "swept-not") {
		t.Errorf("the running core's TMPDIR after the sweep: got %q", got)
	}
	_ = alive.session.Close()
	_ = next.session.Close()
	if got := privateTempDirs(t, tmp); len(got) != 0 {
		t.Errorf("private temporary directories after every core closed: got %v, want none", got)
	}
}

// TestClosedStdoutDoesNotKillBoris: a client that closes its end of boris's
// stdout while keeping stdin open (a crashing client, a broken pipe in a
// wrapper) must not end boris by SIGPIPE, which would skip its clean-up:
// the write fails, boris ends by itself, cleanly, and says why.
func TestClosedStdoutDoesNotKillBoris(t *testing.T) {
	tmp := realTempDir(t)
	cmd := exec.Command(borisBin, "--workdir", realTempDir(t))
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	logs := &syncWriter{b: &strings.Builder{}}
	cmd.Stderr = logs
	stdin, stdout := startPiped(t, cmd)
	defer stdin.Close()
	stdout.Close()
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
	} {
		if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
			break // it may be gone already
		}
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(15 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("boris still running 15 s after its answer met a closed stdout, stdin still open")
	}
	if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); ws.Signaled() || ws.ExitStatus() != 0 {
		t.Errorf("boris with a closed stdout: got %v, want it to end by itself with status 0", cmd.ProcessState)
	}
	if got := privateTempDirs(t, tmp); len(got) != 0 {
		t.Errorf("private temporary directories after exit: got %v, want none", got)
	}
	if !strings.Contains(logs.String(), "the client closed boris's stdout") {
		t.Errorf("log does not say why boris ended:\n%s", logs)
	}
}

// TestClosedStderrDoesNotKillBoris: a client that closes the read end of
// boris's stderr (one that never wanted the logs) must not kill it by
// SIGPIPE at its first log line: the log lines are lost, the session
// works.
func TestClosedStderrDoesNotKillBoris(t *testing.T) {
	logR, logW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	logR.Close()
	cmd := exec.Command(borisBin, "--workdir", realTempDir(t))
	cmd.Env = append(os.Environ(), "TMPDIR="+realTempDir(t))
	cmd.Stderr = logW
	stdin, stdout := startPiped(t, cmd)
	logW.Close()
	defer func() {
		stdin.Close()
		_ = cmd.Wait()
	}()
	r := bufio.NewReader(stdout)
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash","arguments":{"command":"echo still-here"}}}`,
	} {
		if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
			t.Fatalf("boris gone after its log reader closed: %v", err)
		}
	}
	for range 2 {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("boris gone after its log reader closed: %v", err)
		}
		if strings.Contains(line, `"id":2`) && !strings.Contains(line, "still-here") {
			t.Errorf("tool call: got %s", line)
		}
	}
}

// TestNohupKeepsIgnoringSIGHUP: started under nohup, boris keeps ignoring
// the hang-up, as nohup promises, instead of stopping on it.
func TestNohupKeepsIgnoringSIGHUP(t *testing.T) {
	nohup, err := exec.LookPath("nohup")
	if err != nil {
		t.Skip("needs nohup (coreutils) on PATH")
	}
	cmd := exec.Command(nohup, borisBin, "--workdir", realTempDir(t))
	cmd.Env = append(os.Environ(), "TMPDIR="+realTempDir(t))
	stdin, stdout := startPiped(t, cmd)
	defer func() {
		stdin.Close()
		_ = cmd.Wait()
	}()
	r := bufio.NewReader(stdout)
	ask := func(msg string) string {
		t.Helper()
		if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
			t.Fatalf("boris gone: %v", err)
		}
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("boris gone: %v", err)
		}
		return line
	}
	ask(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil { // nohup has exec'd boris: same pid
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if got := ask(`{"jsonrpc":"2.0","id":2,"method":"ping"}`); !strings.Contains(got, `"id":2`) {
		t.Errorf("ping after SIGHUP under nohup: got %s", got)
	}
}
