package shell

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

var markerSeq atomic.Int64

// sleepMarker returns a sleep duration unique to this test run, so its
// processes can be found in /proc by their argument.
func sleepMarker() string {
	return fmt.Sprintf("100.%d%03d", os.Getpid(), markerSeq.Add(1))
}

// procsWithArg returns the pids of live processes with arg in their argv.
// Zombies have an empty cmdline, so only processes still running count.
func procsWithArg(t *testing.T, arg string) []string {
	t.Helper()
	paths, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil || len(paths) == 0 {
		t.Skip("no /proc to inspect processes")
	}
	var pids []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // exited meanwhile
		}
		for _, a := range bytes.Split(b, []byte{0}) {
			if string(a) == arg {
				pids = append(pids, filepath.Base(filepath.Dir(p)))
			}
		}
	}
	return pids
}

func assertNoProcs(t *testing.T, marker string) {
	t.Helper()
	if pids := procsWithArg(t, marker); len(pids) > 0 {
		t.Errorf("processes %v with argument %s outlived Run, want none", pids, marker)
	}
}

// onLine returns a Progress callback that closes the returned channel the
// first time it sees line, to learn that a command is running without
// sleeping.
func onLine(line string) (func(time.Duration, string), <-chan struct{}) {
	seen := make(chan struct{})
	var once atomic.Bool
	return func(_ time.Duration, last string) {
		if last == line && once.CompareAndSwap(false, true) {
			close(seen)
		}
	}, seen
}

func TestTermination(t *testing.T) {
	tests := []struct {
		name       string
		command    string // %[1]s is the sleep marker
		opts       Options
		wantExit   int
		wantStdout string
	}{
		{
			name:       "timeout kills background and foreground",
			command:    "echo before; sleep %[1]s & sleep %[1]s; wait",
			opts:       Options{Timeout: time.Second},
			wantExit:   143,
			wantStdout: "before\n",
		},
		{
			name:       "SIGTERM ignored: SIGKILL after grace",
			command:    "trap '' TERM; echo before; sleep %[1]s",
			opts:       Options{Timeout: 500 * time.Millisecond, Grace: 200 * time.Millisecond},
			wantExit:   137,
			wantStdout: "before\n",
		},
	}
	s := newShell(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			marker := sleepMarker()
			res := mustRun(t, s, fmt.Sprintf(tt.command, marker), tt.opts)
			if !res.TimedOut || res.Canceled {
				t.Errorf("got TimedOut %v, Canceled %v; want true, false", res.TimedOut, res.Canceled)
			}
			if res.ExitCode != tt.wantExit {
				t.Errorf("exit code = %d, want %d", res.ExitCode, tt.wantExit)
			}
			if res.Stdout != tt.wantStdout {
				t.Errorf("stdout = %q, want %q (output so far)", res.Stdout, tt.wantStdout)
			}
			assertNoProcs(t, marker)
		})
	}
}

func TestBackgroundChildKilledAfterExit(t *testing.T) {
	s := newShell(t)
	marker := sleepMarker()
	res := mustRun(t, s, fmt.Sprintf("sleep %s & echo ok", marker), Options{})
	if res.Stdout != "ok\n" || res.ExitCode != 0 || res.TimedOut {
		t.Errorf("got stdout %q, exit %d, TimedOut %v; want \"ok\\n\", 0, false", res.Stdout, res.ExitCode, res.TimedOut)
	}
	assertNoProcs(t, marker)
}

// TestEscapedChildDoesNotHangRun covers a process that leaves the group
// (setsid) while holding stdout: Run cannot kill it, but must not wait for it.
func TestEscapedChildDoesNotHangRun(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid not installed")
	}
	s := newShell(t)
	marker := sleepMarker()
	t.Cleanup(func() { killProcsWithArg(t, marker) })
	// Wait until setsid has exec'd sleep, i.e. really left the group.
	cmd := "setsid sleep %s & p=$!; until [ \"$(cat /proc/$p/comm)\" = sleep ]; do :; done; echo ok"
	res := mustRun(t, s, fmt.Sprintf(cmd, marker), Options{})
	if res.Stdout != "ok\n" || res.ExitCode != 0 {
		t.Errorf("got stdout %q, exit %d; want \"ok\\n\", 0", res.Stdout, res.ExitCode)
	}
}

// killProcsWithArg cleans up after TestEscapedChildDoesNotHangRun.
func killProcsWithArg(t *testing.T, arg string) {
	for _, pid := range procsWithArg(t, arg) {
		if n, err := strconv.Atoi(pid); err == nil {
			_ = syscall.Kill(n, syscall.SIGKILL)
		}
	}
}

func TestCancel(t *testing.T) {
	s := newShell(t)
	marker := sleepMarker()
	progress, started := onLine("started")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-started
		cancel()
	}()
	opts := Options{Progress: progress, ProgressInterval: 10 * time.Millisecond}
	res, err := s.Run(ctx, fmt.Sprintf("echo started; sleep %s", marker), opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !res.Canceled || res.TimedOut {
		t.Errorf("got Canceled %v, TimedOut %v; want true, false", res.Canceled, res.TimedOut)
	}
	if res.Stdout != "started\n" {
		t.Errorf("stdout = %q, want %q", res.Stdout, "started\n")
	}
	assertNoProcs(t, marker)
}

func TestClose(t *testing.T) {
	s := newShell(t)
	marker := sleepMarker()
	progress, started := onLine("started")
	done := make(chan *Result)
	go func() {
		opts := Options{Progress: progress, ProgressInterval: 10 * time.Millisecond}
		res, err := s.Run(context.Background(), fmt.Sprintf("echo started; sleep %s & wait", marker), opts)
		if err != nil {
			t.Errorf("Run: %v", err)
		}
		done <- res
	}()
	<-started
	s.Close()
	if res := <-done; res != nil && res.ExitCode != 137 {
		t.Errorf("exit code = %d, want 137 (SIGKILL)", res.ExitCode)
	}
	assertNoProcs(t, marker)
	if _, err := s.Run(context.Background(), "true", Options{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Run after Close: error = %v, want ErrClosed", err)
	}
	s.Close() // idempotent
}
