//go:build linux

package reaper

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pidsWith returns the pids whose command line contains marker.
func pidsWith(marker string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		st, _, ok := stat(pid)
		if ok && st != 'Z' && strings.Contains(string(cmdline), marker) {
			out = append(out, pid)
		}
	}
	return out
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// marker is a sleep duration no other process on the host uses.
func marker(n int) string { return fmt.Sprintf("%d.%d", 9000+n, os.Getpid()%1000) }

// One test function: a process can become a subreaper but never stop being
// one, and the orphan policy differs between the two reapers.
func TestReaper(t *testing.T) {
	t.Run("KillAll reaches what escaped the process group", func(t *testing.T) {
		r, err := New(Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		m := marker(1)
		// setsid, a double fork and nohup: none stays in sh's group or
		// session, and all but the last lose their parent at once.
		script := fmt.Sprintf("setsid sleep %[1]s & (sleep %[1]s &) ; nohup sleep %[1]s >/dev/null 2>&1 & exec sleep %[1]s", m)
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.SysProcAttr = nil
		if err := r.Start(cmd); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "four sleeps", func() bool { return len(pidsWith(m)) == 4 })
		waited := make(chan error, 1)
		go func() { waited <- cmd.Wait(); r.Done(cmd.Process.Pid) }()
		if err := r.KillAll(5 * time.Second); err != nil {
			t.Fatal(err)
		}
		if left := pidsWith(m); len(left) > 0 {
			t.Errorf("after KillAll: got %v alive, want none", left)
		}
		select {
		case err := <-waited:
			if err == nil {
				t.Errorf("own child's Wait: got nil, want killed")
			}
		case <-time.After(5 * time.Second):
			t.Errorf("own child's Wait did not return: its status was stolen or it lives")
		}
	})
	t.Run("orphans are reaped, own children keep their status", func(t *testing.T) {
		r, err := New(Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		for i := range 20 {
			cmd := exec.Command("/bin/sh", "-c", "(true &); exit 3")
			if err := r.Start(cmd); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			r.Done(cmd.Process.Pid)
			if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 3 {
				t.Fatalf("run %d: got %v, want exit status 3 (a status stolen by the reaper?)", i, err)
			}
		}
		waitFor(t, "no zombie children", func() bool {
			for _, c := range children() {
				if c.zombie {
					return false
				}
			}
			return true
		})
	})
	t.Run("noChildren is the kernel's word, zombies included", func(t *testing.T) {
		// The test binary has no other children while it runs alone:
		// this subtest is not parallel, nor are the others.
		if !noChildren() {
			t.Skipf("this test process has children it did not start here: %v", childPids())
		}
		r, err := New(Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		cmd := exec.Command("sleep", marker(3))
		if err := r.Start(cmd); err != nil {
			t.Fatal(err)
		}
		if noChildren() {
			t.Fatal("noChildren with a running child")
		}
		_ = cmd.Process.Kill()
		waitFor(t, "the child a zombie", func() bool {
			c, ok := readChild(cmd.Process.Pid)
			return ok && c.zombie
		})
		if noChildren() {
			t.Fatal("noChildren with a dead child not yet waited for: KillAll would return before its scan")
		}
		if err := cmd.Wait(); err == nil {
			t.Error("Wait after noChildren: got nil, want killed (the status was kept for it)")
		}
		r.Done(cmd.Process.Pid)
		if !noChildren() {
			t.Errorf("noChildren false once the child was waited for: children %v", childPids())
		}
	})
	t.Run("KillOrphans kills what a dead parent left", func(t *testing.T) {
		r, err := New(Options{KillOrphans: true})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		m := marker(2)
		keep := exec.Command("sleep", m)
		if err := r.Start(keep); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = keep.Process.Kill(); _ = keep.Wait(); r.Done(keep.Process.Pid) }()
		orphaner := exec.Command("/bin/sh", "-c", fmt.Sprintf("setsid sleep %s.1 &", m))
		if err := r.Start(orphaner); err != nil {
			t.Fatal(err)
		}
		_ = orphaner.Wait()
		r.Done(orphaner.Process.Pid)
		waitFor(t, "the orphan killed", func() bool { return len(pidsWith(m+".1")) == 0 })
		if len(pidsWith(m)) == 0 {
			t.Errorf("own child killed too: got it gone, want it running")
		}
	})
}
