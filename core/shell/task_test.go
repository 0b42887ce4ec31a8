package shell

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

func mustStart(t *testing.T, s *Shell, command string, opts Options) *Task {
	t.Helper()
	task, err := s.Start(command, opts)
	if err != nil {
		t.Fatalf("Start(%q): %v", command, err)
	}
	return task
}

// waitTask waits for task to finish and returns its final Result.
func waitTask(t *testing.T, task *Task) *Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if !task.Wait(ctx, nil) {
		t.Fatalf("task %s still running after 30 s", task.ID())
	}
	res, done := task.Snapshot()
	if !done {
		t.Fatalf("Snapshot after Wait: done = false, want true")
	}
	return res
}

// pollOutput polls task's Snapshot until its stdout is want, give or take
// the final newline (held back while the task runs, see Snapshot).
func pollOutput(t *testing.T, task *Task, want string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		res, done := task.Snapshot()
		if strings.TrimSuffix(res.Stdout, "\n") == want {
			return
		}
		if done || time.Now().After(deadline) {
			t.Fatalf("stdout = %q (finished %v), want %q while running", res.Stdout, done, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestTaskRunsInBackground(t *testing.T) {
	s := newShell(t)
	marker := sleepMarker()
	task := mustStart(t, s, fmt.Sprintf("echo started; sleep %s", marker), Options{})
	if !regexp.MustCompile(`^task_[0-9a-f]{8}$`).MatchString(task.ID()) {
		t.Errorf("ID() = %q, want task_ and 8 hex digits", task.ID())
	}
	pollOutput(t, task, "started")
	if res, _ := task.Snapshot(); res.ExitCode != -1 {
		t.Errorf("exit code while running = %d, want -1", res.ExitCode)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if task.Wait(ctx, nil) {
		t.Errorf("Wait with a short deadline on a sleeping task: got finished, want still running")
	}
	res := task.Stop()
	if !res.Canceled || res.TimedOut || res.ExitCode != 143 || res.Stdout != "started\n" {
		t.Errorf("after Stop: got Canceled %v, TimedOut %v, exit %d, stdout %q; want true, false, 143, \"started\\n\"",
			res.Canceled, res.TimedOut, res.ExitCode, res.Stdout)
	}
	assertNoProcs(t, marker)
}

func TestTaskResults(t *testing.T) {
	s := newShell(t)
	dir := s.Dir()
	marker := sleepMarker()
	tests := []struct {
		name, command      string
		opts               Options
		wantStdout         string
		wantExit           int
		wantTimedOut       bool
		wantStderrNonEmpty bool
	}{
		{name: "exit code and streams", command: "echo hi; echo err >&2; exit 3", wantStdout: "hi\n", wantExit: 3, wantStderrNonEmpty: true},
		{name: "cd stays in the task", command: "cd / && pwd", wantStdout: "/\n"},
		{name: "leftover child killed", command: fmt.Sprintf("sleep %s & echo ok", marker), wantStdout: "ok\n"},
		// The timeout leaves the shell time to print before it is killed,
		// on a loaded host too (100 ms did not, once, under make test).
		{name: "timeout", command: fmt.Sprintf("echo before; sleep %s", marker), opts: Options{Timeout: time.Second},
			wantStdout: "before\n", wantExit: 143, wantTimedOut: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := waitTask(t, mustStart(t, s, tt.command, tt.opts))
			if res.Stdout != tt.wantStdout || res.ExitCode != tt.wantExit || res.TimedOut != tt.wantTimedOut || res.Canceled {
				t.Errorf("got stdout %q, exit %d, TimedOut %v, Canceled %v; want %q, %d, %v, false",
					res.Stdout, res.ExitCode, res.TimedOut, res.Canceled, tt.wantStdout, tt.wantExit, tt.wantTimedOut)
			}
			if (res.Stderr != "") != tt.wantStderrNonEmpty {
				t.Errorf("stderr = %q", res.Stderr)
			}
			if s.Dir() != dir {
				t.Errorf("tracked directory = %q after a task, want %q (unchanged)", s.Dir(), dir)
			}
			assertNoProcs(t, marker)
		})
	}
}

func TestTaskStopAfterFinish(t *testing.T) {
	s := newShell(t)
	task := mustStart(t, s, "echo done", Options{})
	waitTask(t, task)
	if res := task.Stop(); res.Canceled || res.ExitCode != 0 || res.Stdout != "done\n" {
		t.Errorf("Stop of a finished task: got Canceled %v, exit %d, stdout %q; want its own result", res.Canceled, res.ExitCode, res.Stdout)
	}
}

func TestTaskLimit(t *testing.T) {
	s := newShell(t)
	marker := sleepMarker()
	opts := Options{MaxTasks: 2}
	first := mustStart(t, s, "sleep "+marker, opts)
	mustStart(t, s, "sleep "+marker, opts)
	if _, err := s.Start("true", opts); !errors.Is(err, ErrTaskLimit) {
		t.Fatalf("third Start with MaxTasks 2: error = %v, want ErrTaskLimit", err)
	}
	first.Stop()
	third := mustStart(t, s, "echo third", opts)
	if res := waitTask(t, third); res.Stdout != "third\n" {
		t.Errorf("task started after a Stop: stdout %q, want %q", res.Stdout, "third\n")
	}
	// Finished tasks do not count, collected or not.
	mustStart(t, s, "true", opts)
}

func TestTaskClose(t *testing.T) {
	s := newShell(t)
	marker := sleepMarker()
	task := mustStart(t, s, fmt.Sprintf("echo started; sleep %s & sleep %s", marker, marker), Options{})
	pollOutput(t, task, "started")
	s.Close()
	if res := waitTask(t, task); res.ExitCode != 137 {
		t.Errorf("exit code after Close = %d, want 137 (SIGKILL)", res.ExitCode)
	}
	assertNoProcs(t, marker)
	if _, err := s.Start("true", Options{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Start after Close: error = %v, want ErrClosed", err)
	}
}

func TestTaskLookupAndCollect(t *testing.T) {
	s := newShell(t)
	if _, err := s.Lookup("task_00000000"); !errors.Is(err, ErrTaskUnknown) {
		t.Errorf("Lookup of an unknown id: error = %v, want ErrTaskUnknown", err)
	}
	task := mustStart(t, s, "sleep "+sleepMarker(), Options{})
	s.Collect(task) // running: not collected
	if got, err := s.Lookup(task.ID()); got != task || err != nil {
		t.Fatalf("Lookup of a running task after Collect: got %v, %v; want the task", got, err)
	}
	task.Stop()
	if got := s.Tasks(); len(got) != 1 || got[0] != task {
		t.Errorf("Tasks() = %v, want the finished, uncollected task", got)
	}
	s.Collect(task)
	if _, err := s.Lookup(task.ID()); !errors.Is(err, ErrTaskCollected) {
		t.Errorf("Lookup after Collect: error = %v, want ErrTaskCollected", err)
	}
	if got := s.Tasks(); len(got) != 0 {
		t.Errorf("Tasks() after Collect = %v, want none", got)
	}
}

// TestTaskDiscardsOldestFinished checks that uncollected output cannot pile
// up without bound.
func TestTaskDiscardsOldestFinished(t *testing.T) {
	s := newShell(t)
	var tasks []*Task
	for range maxFinished + 1 {
		task := mustStart(t, s, "true", Options{})
		waitTask(t, task)
		tasks = append(tasks, task)
	}
	mustStart(t, s, "true", Options{}) // Start evicts; the first is now beyond the bound
	if _, err := s.Lookup(tasks[0].ID()); !errors.Is(err, ErrTaskDiscarded) {
		t.Errorf("Lookup of the oldest finished task: error = %v, want ErrTaskDiscarded", err)
	}
	if _, err := s.Lookup(tasks[len(tasks)-1].ID()); err != nil {
		t.Errorf("Lookup of a recent finished task: %v", err)
	}
}

func TestTaskWaitProgress(t *testing.T) {
	s := newShell(t)
	marker := sleepMarker()
	task := mustStart(t, s, fmt.Sprintf("echo tick; sleep %s", marker), Options{ProgressInterval: 10 * time.Millisecond})
	progress, seen := onLine("tick")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-seen
		cancel()
	}()
	if task.Wait(ctx, progress) {
		t.Errorf("Wait: got finished, want cancelled once progress showed the line")
	}
	task.Stop()
	assertNoProcs(t, marker)
}

// TestTaskConcurrent runs tasks from many goroutines at once; run with -race.
func TestTaskConcurrent(t *testing.T) {
	s := newShell(t)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			task, err := s.Start(fmt.Sprintf("echo %d", i), Options{})
			if err != nil {
				t.Errorf("Start: %v", err)
				return
			}
			_ = s.Tasks()
			res := waitTask(t, task)
			if want := fmt.Sprintf("%d\n", i); res.Stdout != want {
				t.Errorf("task %d: stdout %q, want %q", i, res.Stdout, want)
			}
			s.Collect(task)
		})
	}
	wg.Wait()
}
