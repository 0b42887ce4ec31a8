package test

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var taskIDRe = regexp.MustCompile(`^task_id: (task_[0-9a-f]{8})\nstatus: running\n`)

// taskMarker returns a sleep argument unique to this test run, to find a
// task's processes in /proc.
func taskMarker() string {
	return fmt.Sprintf("500.%d", time.Now().UnixNano()%100000000)
}

// startTask runs command with run_in_background and returns its task id.
func startTask(t *testing.T, c *core, command string) string {
	t.Helper()
	got := c.ok("bash", map[string]any{"command": command, "run_in_background": true})
	m := taskIDRe.FindStringSubmatch(got)
	if m == nil || !strings.HasSuffix(got, "Use task_output with this task_id to read its output, task_stop to end it.") {
		t.Fatalf("bash with run_in_background: got %q, want task_id, status: running and how to go on", got)
	}
	return m[1]
}

// peek returns task_output without waiting.
func peek(c *core, id string) string {
	c.t.Helper()
	return c.ok("task_output", map[string]any{"task_id": id, "block": false})
}

// pollTask polls task_output without blocking until cond holds.
func pollTask(t *testing.T, c *core, id string, cond func(string) bool) string {
	t.Helper()
	var got string
	waitFor(t, "task output", func() bool {
		got = peek(c, id)
		return cond(got)
	})
	return got
}

func TestTaskLifecycle(t *testing.T) {
	c := startCore(t, "--workdir", realTempDir(t))
	marker := taskMarker()
	id := startTask(t, c, fmt.Sprintf("echo started; sleep %s & sleep %s; wait", marker, marker))
	want := "task_id: " + id + "\nstatus: running\nstdout:\nstarted"
	if got := pollTask(t, c, id, func(s string) bool { return s != "task_id: "+id+"\nstatus: running" }); got != want {
		t.Errorf("task_output while running: got %q, want %q", got, want)
	}
	got := c.ok("task_output", map[string]any{"task_id": id, "timeout": 100})
	if got != want {
		t.Errorf("task_output blocking 100 ms on a sleeping task: got %q, want %q", got, want)
	}
	want = "task_id: " + id + "\nstatus: killed\nstdout:\nstarted\nexit_code: 143"
	if got := c.ok("task_stop", map[string]any{"task_id": id}); got != want {
		t.Errorf("task_stop: got %q, want %q", got, want)
	}
	waitNoProcesses(t, "sleep "+marker)
	msg := c.fails("TASK_NOT_FOUND", "task_output", map[string]any{"task_id": id})
	if !strings.Contains(msg, "its final output was already returned") {
		t.Errorf("task_output after task_stop: got %q, want it to say the output was already returned", msg)
	}
	c.fails("TASK_NOT_FOUND", "task_stop", map[string]any{"task_id": id})
}

func TestTaskCompletes(t *testing.T) {
	dir := realTempDir(t)
	c := startCore(t, "--workdir", dir)
	tests := []struct{ command, want string }{
		{"echo out; echo err >&2; exit 3", "status: completed\nstdout:\nout\nstderr:\nerr\nexit_code: 3"},
		{"true", "status: completed\nexit_code: 0"},
		{"cd / && pwd", "status: completed\nstdout:\n/\nexit_code: 0"},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			id := startTask(t, c, tt.command)
			if got, want := c.ok("task_output", map[string]any{"task_id": id}), "task_id: "+id+"\n"+tt.want; got != want {
				t.Errorf("task_output (blocking by default): got %q, want %q", got, want)
			}
			msg := c.fails("TASK_NOT_FOUND", "task_output", map[string]any{"task_id": id})
			if !strings.Contains(msg, "already returned") {
				t.Errorf("second task_output: got %q, want it to say the output was already returned", msg)
			}
		})
	}
	// A task's cd stays in the task.
	if got := c.ok("bash", map[string]any{"command": "pwd"}); got != "stdout:\n"+dir+"\nexit_code: 0" {
		t.Errorf("pwd after a task's cd: got %q, want the unchanged %s", got, dir)
	}
}

func TestTaskNotFound(t *testing.T) {
	c := startCore(t, "--workdir", realTempDir(t))
	msg := c.fails("TASK_NOT_FOUND", "task_output", map[string]any{"task_id": "task_00000000"})
	if !strings.Contains(msg, "no tasks are running") {
		t.Errorf("unknown id, no tasks: got %q, want it to say no tasks are running", msg)
	}
	id := startTask(t, c, "sleep "+taskMarker())
	msg = c.fails("TASK_NOT_FOUND", "task_stop", map[string]any{"task_id": "task_00000000"})
	if !strings.Contains(msg, id+" (running: sleep ") {
		t.Errorf("unknown id, one task: got %q, want it to list %s as running", msg, id)
	}
	c.fails("INVALID_INPUT", "task_output", map[string]any{"task_id": ""})
	c.fails("INVALID_INPUT", "task_output", map[string]any{"task_id": id, "timeout": -1})
	c.ok("task_stop", map[string]any{"task_id": id})
}

func TestTaskLimit(t *testing.T) {
	c := startCore(t, "--workdir", realTempDir(t), "--background-task-limit", "2")
	marker := taskMarker()
	first := startTask(t, c, "sleep "+marker)
	second := startTask(t, c, "sleep "+marker)
	msg := c.fails("TASK_LIMIT", "bash", map[string]any{"command": "true", "run_in_background": true})
	for _, want := range []string{"2 background tasks", "--background-task-limit is 2", "task_stop", first, second} {
		if !strings.Contains(msg, want) {
			t.Errorf("third task: got %q, want it to name %q", msg, want)
		}
	}
	c.ok("task_stop", map[string]any{"task_id": first})
	third := startTask(t, c, "echo third")
	if got := c.ok("task_output", map[string]any{"task_id": third}); !strings.Contains(got, "stdout:\nthird\n") {
		t.Errorf("task started after a stop: got %q, want its output", got)
	}
	c.ok("task_stop", map[string]any{"task_id": second})
	waitNoProcesses(t, "sleep "+marker)
}

func TestTaskSafetyTimeout(t *testing.T) {
	c := startCore(t, "--workdir", realTempDir(t), "--background-task-timeout", "1")
	marker := taskMarker()
	got := c.ok("bash", map[string]any{"command": "echo before; sleep " + marker, "run_in_background": true})
	if !strings.Contains(got, "killed if still running after 1 s") {
		t.Errorf("start: got %q, want it to mention the 1 s lifetime", got)
	}
	id := taskIDRe.FindStringSubmatch(got)[1]
	want := "task_id: " + id + "\nstatus: timed_out\nstdout:\nbefore\nexit_code: 143"
	if got := c.ok("task_output", map[string]any{"task_id": id}); got != want {
		t.Errorf("task_output: got %q, want %q", got, want)
	}
	waitNoProcesses(t, "sleep "+marker)
}

// TestTaskKilledOnStdinEOF closes boris's stdin itself (not through the
// SDK's transport, which sends SIGTERM if boris lingers), while a
// task_output call is blocked on the task.
func TestTaskKilledOnStdinEOF(t *testing.T) {
	cmd := exec.Command(borisBin, "--workdir", realTempDir(t))
	stdin, stdout := startPiped(t, cmd)
	blocked := make(chan struct{})
	var once sync.Once
	client := mcp.NewClient(&mcp.Implementation{Name: "boris-e2e", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { once.Do(func() { close(blocked) }) },
	})
	session, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: stdout, Writer: stdin}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &core{t: t, cmd: cmd, session: session}
	marker := taskMarker()
	id := startTask(t, c, fmt.Sprintf("sleep %s & sleep %s; wait", marker, marker))
	params := &mcp.CallToolParams{Name: "task_output", Arguments: map[string]any{"task_id": id}}
	params.SetProgressToken("blocked")
	go func() { _, _ = session.CallTool(context.Background(), params) }()
	waitFor(t, "the task to start", func() bool { return len(processesWith("sleep "+marker)) >= 2 })
	<-blocked // task_output is waiting on the task
	stdin.Close()
	waitNoProcesses(t, "sleep "+marker)
	guard := time.AfterFunc(15*time.Second, func() { _ = cmd.Process.Kill() })
	defer guard.Stop()
	if err := cmd.Wait(); err != nil {
		t.Errorf("boris after stdin EOF: got %v, want exit status 0 within 15 s", err)
	}
}

func TestTaskKilledOnSIGTERM(t *testing.T) {
	c := startCore(t, "--workdir", realTempDir(t))
	marker := taskMarker()
	startTask(t, c, fmt.Sprintf("sleep %s & sleep %s; wait", marker, marker))
	waitFor(t, "the task to start", func() bool { return len(processesWith("sleep "+marker)) >= 2 })
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitNoProcesses(t, "sleep "+marker)
	if err := c.session.Close(); err != nil {
		t.Errorf("boris after SIGTERM: got %v, want exit status 0", err)
	}
}

// TestTaskFloodBounded reads a task printing without end: the result stays
// near the cap and the core's memory stays small.
func TestTaskFloodBounded(t *testing.T) {
	c := startCore(t, "--workdir", realTempDir(t))
	id := startTask(t, c, "echo FIRST; exec yes")
	cutRe := regexp.MustCompile(`\[(\d+) characters cut\]`)
	got := pollTask(t, c, id, func(s string) bool {
		m := cutRe.FindStringSubmatch(s)
		if m == nil {
			return false
		}
		n, _ := strconv.Atoi(m[1])
		return n > 200_000_000
	})
	assertInOrder(t, got, []string{"status: running\nstdout:\nFIRST\ny\n", "characters cut", "y\ny\n"})
	if n := len(got); n > 31000 {
		t.Errorf("task_output is %d characters, want about 30000", n)
	}
	got = c.ok("task_stop", map[string]any{"task_id": id})
	assertInOrder(t, got, []string{"status: killed\nstdout:\nFIRST\n", "characters cut", "exit_code: 143"})
	if n := len(got); n > 31000 {
		t.Errorf("task_stop result is %d characters, want about 30000", n)
	}
	if hwm := peakRSS(t, c.cmd.Process.Pid); hwm > 100<<20 {
		t.Errorf("boris peak RSS %d MB after 200 MB of task output, want < 100 MB", hwm>>20)
	}
}

func TestTaskOutputProgress(t *testing.T) {
	c, log := startCoreWithProgress(t, "--workdir", realTempDir(t))
	id := startTask(t, c, "for i in $(seq 1 15); do echo tick $i; sleep 0.1; done")
	params := &mcp.CallToolParams{Name: "task_output", Arguments: map[string]any{"task_id": id}}
	params.SetProgressToken("tok-task")
	res, err := c.session.CallTool(context.Background(), params)
	if err != nil || res.IsError || !strings.Contains(text(res), "status: completed") {
		t.Fatalf("task_output: %v %v", err, res)
	}
	got := log.all()
	if len(got) == 0 {
		t.Fatal("got no progress notifications while blocking 1.5 s, want at least one")
	}
	if p := got[0]; p.ProgressToken != "tok-task" || !strings.HasPrefix(p.Message, "tick ") {
		t.Errorf("progress: got token %v, message %q; want tok-task and the latest line", p.ProgressToken, p.Message)
	}
}

// TestTaskConcurrent starts and reads many tasks at once on one core.
func TestTaskConcurrent(t *testing.T) {
	c := startCore(t, "--workdir", realTempDir(t), "--background-task-limit", "50")
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			if err := startAndRead(c, i); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

// startAndRead starts a task printing i and checks task_output's result.
func startAndRead(c *core, i int) error {
	res, err := callTool(c.session, "bash", map[string]any{"command": fmt.Sprintf("echo %d", i), "run_in_background": true})
	if err != nil {
		return fmt.Errorf("start %d: %v", i, err)
	}
	m := taskIDRe.FindStringSubmatch(text(res))
	if m == nil {
		return fmt.Errorf("start %d: got %q, want a task_id", i, text(res))
	}
	if res, err = callTool(c.session, "task_output", map[string]any{"task_id": m[1]}); err != nil {
		return fmt.Errorf("task_output %d: %v", i, err)
	}
	if want := fmt.Sprintf("task_id: %s\nstatus: completed\nstdout:\n%d\nexit_code: 0", m[1], i); text(res) != want {
		return fmt.Errorf("task %d: got %q, want %q", i, text(res), want)
	}
	return nil
}

func TestTaskToolsFollowBash(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{nil, true},
		{[]string{"--disable-tools", "bash"}, false},
	} {
		names := toolNames(t, startCore(t, append([]string{"--workdir", realTempDir(t)}, tt.args...)...))
		for _, name := range []string{"bash", "task_output", "task_stop"} {
			if slices.Contains(names, name) != tt.want {
				t.Errorf("args %q: got tools %q, want %s listed: %v", tt.args, names, name, tt.want)
			}
		}
	}
}
