package shell

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestExecRunsAProgramDirectly(t *testing.T) {
	s := newShell(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "tool.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho \"$GREETING from $(pwd)\"\necho oops >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	before := s.Dir()
	res, err := s.Exec(context.Background(), Program{Argv: []string{script}, Dir: dir, Env: []string{"GREETING=hello", "PATH=/usr/bin:/bin"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stdout != "hello from "+dir+"\n" || res.Stderr != "oops\n" || res.ExitCode != 3 {
		t.Errorf("got stdout %q stderr %q exit %d", res.Stdout, res.Stderr, res.ExitCode)
	}
	if s.Dir() != before {
		t.Errorf("Exec moved the tracked directory to %s", s.Dir())
	}
	if _, err := s.Exec(context.Background(), Program{Argv: []string{script}, Dir: "relative"}, Options{}); err == nil {
		t.Error("Exec with a relative directory: want an error")
	}
}

func TestExecTimeoutCallsOnStopThenKillsTheGroup(t *testing.T) {
	s := newShell(t)
	dir := t.TempDir()
	stopFile := filepath.Join(dir, "cancelled")
	// Ignores SIGTERM, leaves a child behind: both must die.
	script := filepath.Join(dir, "stubborn.sh")
	body := "#!/bin/bash\ntrap '' TERM\nsleep 300 &\necho $! > " + filepath.Join(dir, "child") + "\nwhile :; do sleep 0.05; done\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := s.Exec(context.Background(), Program{Argv: []string{script}, Dir: dir}, Options{
		Timeout: 300 * time.Millisecond, Grace: 200 * time.Millisecond,
		OnStop: func() { _ = os.WriteFile(stopFile, nil, 0o644) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.ExitCode != 128+9 {
		t.Errorf("got timed out %v exit %d, want a timeout ended by SIGKILL", res.TimedOut, res.ExitCode)
	}
	if _, err := os.Stat(stopFile); err != nil {
		t.Errorf("OnStop was not called: %v", err)
	}
	pid, _ := os.ReadFile(filepath.Join(dir, "child"))
	if p := strings.TrimSpace(string(pid)); p != "" {
		// SIGKILL is sent when Exec returns; the child dies as soon as the
		// kernel runs it, which on a loaded machine can take a moment.
		alive := func() bool {
			stat, err := os.ReadFile("/proc/" + p + "/stat")
			return err == nil && !strings.Contains(string(stat), ") Z ")
		}
		for deadline := time.Now().Add(5 * time.Second); alive(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Errorf("the tool's child %s outlived it by 5 s", p)
				break
			}
		}
	}
}
