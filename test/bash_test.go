package test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/internal/testbin"
)

func TestBashResultLayout(t *testing.T) {
	dir := realTempDir(t)
	c := startCore(t, "--workdir", dir)
	tests := []struct {
		command, want string
	}{
		{"echo hello", "stdout:\nhello\nexit_code: 0"},
		{"echo out; echo err >&2; exit 3", "stdout:\nout\nstderr:\nerr\nexit_code: 3"},
		{"printf 'no newline'", "stdout:\nno newline\nexit_code: 0"},
		{"true", "exit_code: 0"},
		{"kill -9 $$", "exit_code: 137"},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			if got := c.ok("bash", map[string]any{"command": tt.command}); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("empty command", func(t *testing.T) {
		c.fails("INVALID_INPUT", "bash", map[string]any{"command": "  "})
	})
	t.Run("negative timeout", func(t *testing.T) {
		c.fails("INVALID_INPUT", "bash", map[string]any{"command": "true", "timeout": -5})
	})
}

func TestBashWorkingDirectory(t *testing.T) {
	dir := realTempDir(t)
	if err := os.MkdirAll(filepath.Join(dir, "sub", "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "sub", "note.txt"), "in sub\n")
	c := startCore(t, "--workdir", dir)
	steps := []struct{ command, want string }{
		{"pwd", dir},
		{"cd sub", ""},
		{"pwd", filepath.Join(dir, "sub")},
		{"cd deeper && false", ""},
		{"pwd", filepath.Join(dir, "sub", "deeper")},
		{"cd /nonexistent-dir-for-boris", ""},
		{"pwd", filepath.Join(dir, "sub", "deeper")},
		{"cd .. ; exit 4", ""},
		{"pwd", filepath.Join(dir, "sub", "deeper")},
	}
	for i, s := range steps {
		got := c.ok("bash", map[string]any{"command": s.command})
		if s.want != "" && !strings.HasPrefix(got, "stdout:\n"+s.want+"\n") {
			t.Fatalf("step %d %q: got %q, want stdout %q", i, s.command, got, s.want)
		}
		if strings.Contains(got, "BORIS") {
			t.Fatalf("step %d: sentinel leaked into output: %q", i, got)
		}
	}
	// File tools resolve relative paths against the shell's directory.
	c.ok("bash", map[string]any{"command": "cd " + filepath.Join(dir, "sub")})
	if got := c.ok("view", map[string]any{"path": "note.txt"}); got != "     1\tin sub\n" {
		t.Errorf("view after cd: got %q, want the file in sub", got)
	}
}

func TestBashTimeoutLeavesNoProcess(t *testing.T) {
	c := startCore(t, "--workdir", realTempDir(t))
	marker := fmt.Sprintf("100.%d", time.Now().UnixNano()%1000000)
	got := c.ok("bash", map[string]any{
		"command": fmt.Sprintf("echo started; sleep %s & sleep %s; wait", marker, marker),
		"timeout": 1000,
	})
	assertInOrder(t, got, []string{"stdout:\nstarted\n", "timed_out: after 1000 ms", "exit_code: "})
	waitNoProcesses(t, "sleep "+marker)
}

func TestBashTimeoutClamped(t *testing.T) {
	c := startCore(t, "--workdir", realTempDir(t))
	// A timeout over the ceiling is clamped, not refused.
	if got := c.ok("bash", map[string]any{"command": "echo ok", "timeout": 9999999}); got != "stdout:\nok\nexit_code: 0" {
		t.Errorf("got %q, want the command to run", got)
	}
}

func TestBashCancellationKills(t *testing.T) {
	c := startCore(t, "--workdir", realTempDir(t))
	marker := fmt.Sprintf("200.%d", time.Now().UnixNano()%1000000)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "sleep " + marker}})
		done <- err
	}()
	waitFor(t, "the command to start", func() bool { return len(processesWith("sleep "+marker)) > 0 })
	cancel()
	if err := <-done; err == nil {
		t.Errorf("cancelled call: got nil error, want a cancellation error")
	}
	waitNoProcesses(t, "sleep "+marker)
	// The core keeps serving after a cancellation.
	if got := c.ok("bash", map[string]any{"command": "echo alive"}); got != "stdout:\nalive\nexit_code: 0" {
		t.Errorf("after cancel: got %q", got)
	}
}

// TestBashHugeOutputBoundedMemory prints 1 GB and checks the result keeps
// head and tail while the core's peak RSS stays small.
func TestBashHugeOutputBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("prints 1 GB; skipped with -short")
	}
	c := startCore(t, "--workdir", realTempDir(t))
	got := c.ok("bash", map[string]any{"command": "echo FIRST; yes | head -c 1000000000; echo; echo LAST", "timeout": 600000})
	assertInOrder(t, got, []string{"stdout:\nFIRST\ny\ny\n", "characters cut", "y\ny\n\nLAST\n", "exit_code: 0"})
	if n := len(got); n > 31000 {
		t.Errorf("result is %d characters, want about 30000", n)
	}
	hwm := peakRSS(t, c.cmd.Process.Pid)
	t.Logf("boris peak RSS after 1 GB of output: %d MB", hwm>>20)
	if hwm > 100<<20 {
		t.Errorf("boris peak RSS %d MB, want < 100 MB", hwm>>20)
	}
}

// peakRSS reads VmHWM (peak resident set size) of pid, in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmHWM:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}

func TestBashProgress(t *testing.T) {
	c, log := startCoreWithProgress(t, "--workdir", realTempDir(t))
	params := &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "for i in $(seq 1 30); do echo tick $i; sleep 0.1; done"}}
	params.SetProgressToken("tok-1")
	res, err := c.session.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("call: %v %v", err, res)
	}
	got := log.all()
	if len(got) < 2 {
		t.Fatalf("got %d progress notifications for a 3 s command, want at least 2", len(got))
	}
	for i, p := range got {
		if p.ProgressToken != "tok-1" {
			t.Errorf("notification %d: token %v, want tok-1", i, p.ProgressToken)
		}
		if i > 0 && p.Progress <= got[i-1].Progress {
			t.Errorf("notification %d: progress %v not above %v", i, p.Progress, got[i-1].Progress)
		}
		if strings.Contains(p.Message, "BORIS") {
			t.Errorf("notification %d leaks the sentinel: %q", i, p.Message)
		}
	}
	if !strings.HasPrefix(got[len(got)-1].Message, "tick ") {
		t.Errorf("last message %q, want the latest output line", got[len(got)-1].Message)
	}
}

func TestBashNoProgressWithoutToken(t *testing.T) {
	c, log := startCoreWithProgress(t, "--workdir", realTempDir(t))
	c.ok("bash", map[string]any{"command": "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do echo $i; sleep 0.1; done"})
	if n := len(log.all()); n != 0 {
		t.Errorf("got %d progress notifications without a progress token, want 0", n)
	}
}

// TestConcurrentCalls runs 100 tool calls at once on one core.
func TestConcurrentCalls(t *testing.T) {
	dir := realTempDir(t)
	c := startCore(t, "--workdir", dir)
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- concurrentCall(c, dir, i)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// concurrentCall does one of four kinds of call and checks its own result.
func concurrentCall(c *core, dir string, i int) error {
	// Minutes: alone the hundred take 9-15 s, beside make test's other
	// shards over a minute.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	name := fmt.Sprintf("f%03d.txt", i)
	call := func(tool string, args map[string]any) (string, error) {
		res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil || res.IsError {
			return "", fmt.Errorf("call %d %s: %v %v", i, tool, err, res)
		}
		return text(res), nil
	}
	if _, err := call("create_file", map[string]any{"path": name, "content": fmt.Sprintf("value %d\n", i)}); err != nil {
		return err
	}
	if _, err := call("str_replace", map[string]any{"path": name, "old_str": "value", "new_str": "edited"}); err != nil {
		return err
	}
	checks := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"view", map[string]any{"path": name}, fmt.Sprintf("     1\tedited %d\n", i)},
		{"bash", map[string]any{"command": fmt.Sprintf("echo %d", i)}, fmt.Sprintf("stdout:\n%d\nexit_code: 0", i)},
	}
	for _, ch := range checks {
		got, err := call(ch.tool, ch.args)
		if err != nil {
			return err
		}
		got, notes, _ := strings.Cut(got, "\n[checkpoint] ")
		if got != ch.want {
			return fmt.Errorf("call %d %s: got %q, want %q", i, ch.tool, got, ch.want)
		}
		if err := startNotes(notes); err != nil {
			return fmt.Errorf("call %d %s: %v", i, ch.tool, err)
		}
	}
	return nil
}

// startNotes checks the checkpoint notes a result of TestConcurrentCalls
// may carry: the first calls run while the tree's starting checkpoint is
// taken (on a loaded host for longer than a command waits for it), and
// a gap then names the files changed meanwhile, whose state before a
// command may have changed them the start may not hold. Any other note,
// or one naming a file tool's temporary file (a write's own, gone once
// it is done), is an error.
func startNotes(notes string) error {
	if notes == "" {
		return nil
	}
	for note := range strings.SplitSeq(notes, "\n[checkpoint] ") {
		if !strings.Contains(note, "changed while the tree's starting checkpoint was being taken") {
			return fmt.Errorf("a checkpoint note other than the start's gap: %q", note)
		}
		if strings.Contains(note, ".boris-") {
			return fmt.Errorf("the start's gap names a write's temporary file: %q", note)
		}
	}
	return nil
}

// waitFor polls cond until it holds or a generous deadline passes
// (testbin.WaitFor).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testbin.WaitFor(t, what, cond)
}
