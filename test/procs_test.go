package test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// processesWith returns the pids of live processes whose command line
// contains marker: how the tests prove nothing was left behind.
func processesWith(marker string) []string {
	var pids []string
	entries, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, e := range entries {
		b, err := os.ReadFile(e)
		if err != nil || !strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), marker) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(filepath.Dir(e), "stat"))
		if err == nil && isZombie(string(stat)) {
			continue // exited, waiting for its parent to reap it
		}
		pids = append(pids, filepath.Base(filepath.Dir(e)))
	}
	return pids
}

// isZombie reads the state field of /proc/PID/stat.
func isZombie(stat string) bool {
	i := strings.LastIndexByte(stat, ')')
	return i >= 0 && len(stat) > i+2 && stat[i+2] == 'Z'
}

// waitNoProcesses polls until no process carries marker, failing the test
// if some remain after a generous deadline.
func waitNoProcesses(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		pids := processesWith(marker)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes with %q still running: pids %v", marker, pids)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
