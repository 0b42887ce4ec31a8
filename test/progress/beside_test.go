package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBeside: a script run beside the tests runs niced, its end is said
// as it comes, and waiting for it reports a failure with its output's last
// lines and log file; a passing one is no failure.
func TestBeside(t *testing.T) {
	logs := t.TempDir()
	var out syncBuilder
	fail, err := startBeside("lint", `echo first; echo "nice $(cut -d' ' -f19 /proc/$$/stat)"; echo last; exit 3`, logs, &out)
	if err != nil {
		t.Fatal(err)
	}
	if !fail.wait(&out, time.Minute, 2) {
		t.Error("a script that exits 3: got no failure")
	}
	got := out.String()
	for _, want := range []string{"lint: beside the tests", "lint: FAILED (exit status 3) after", "FAIL: lint, FAILED (exit status 3); its output (" + filepath.Join(logs, "lint.log") + "):\n  nice 19\n  last\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("output: got\n%s\nwant it to hold %q", got, want)
		}
	}
	if strings.Contains(got, "  first") {
		t.Errorf("output: got\n%s\nwant only the last 2 lines of the script's output", got)
	}
	ok, err := startBeside("vet", "true", logs, &out)
	if err != nil {
		t.Fatal(err)
	}
	if ok.wait(&out, time.Minute, 2) || !strings.Contains(out.String(), "vet: passed after") {
		t.Errorf("a passing script: got a failure, or no line saying it passed:\n%s", out.String())
	}
}

// TestBesideStop: stop ends the script and what it started, at once.
func TestBesideStop(t *testing.T) {
	logs := t.TempDir()
	pidFile := filepath.Join(logs, "pid")
	b, err := startBeside("lint", "sleep 300 & echo $! > "+pidFile+"; wait", logs, &syncBuilder{})
	if err != nil {
		t.Fatal(err)
	}
	var child int
	for deadline := time.Now().Add(10 * time.Second); child == 0; time.Sleep(10 * time.Millisecond) {
		if data, err := os.ReadFile(pidFile); err == nil {
			child, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		}
		if time.Now().After(deadline) {
			t.Fatal("the script did not start its child within 10 s")
		}
	}
	b.stop()
	for deadline := time.Now().Add(10 * time.Second); syscall.Kill(child, 0) == nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(child, syscall.SIGKILL)
			t.Fatalf("the script's child %d still runs 10 s after stop", child)
		}
	}
}
