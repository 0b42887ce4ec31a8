package benchkit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// AwaitGone waits up to wait for every process whose command line names s
// (every core of a benchmark names its fixture directory: --workdir DIR)
// to exit, polling /proc every poll, and returns those still running, as
// "PID command line": the processes a run left behind.
func AwaitGone(ctx context.Context, s string, wait, poll time.Duration) ([]string, error) {
	deadline := time.Now().Add(wait)
	for {
		left, err := ProcessesNaming(s)
		if err != nil || len(left) == 0 || time.Now().After(deadline) {
			return left, err
		}
		select {
		case <-ctx.Done():
			return left, ctx.Err()
		case <-time.After(poll):
		}
	}
}

// ProcessesNaming lists the processes, other than this one, with s in
// their command line, read from /proc, as "PID command line".
func ProcessesNaming(s string) ([]string, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	var found []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(data) == 0 {
			continue // exited, or a zombie
		}
		if line := strings.Join(strings.Split(strings.TrimRight(string(data), "\x00"), "\x00"), " "); strings.Contains(line, s) {
			found = append(found, fmt.Sprintf("%d %s", pid, line))
		}
	}
	return found, nil
}
