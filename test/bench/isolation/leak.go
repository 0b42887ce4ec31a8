package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// leakWait is how long, after every gateway and stdio core was stopped,
// processes naming the fixture get to exit before they count as leftovers.
const leakWait = 10 * time.Second

// awaitGone waits up to wait for every process whose command line names
// dir (every gateway and core does: --workdir dir) to exit, and returns
// those still running, as "PID command line".
func awaitGone(ctx context.Context, dir string, wait time.Duration) ([]string, error) {
	deadline := time.Now().Add(wait)
	for {
		left, err := processesNaming(dir)
		if err != nil || len(left) == 0 || time.Now().After(deadline) {
			return left, err
		}
		select {
		case <-ctx.Done():
			return left, ctx.Err()
		case <-time.After(pollEvery):
		}
	}
}

// processesNaming lists the processes, other than this one, with s in
// their command line, read from /proc.
func processesNaming(s string) ([]string, error) {
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
		if err != nil {
			continue // exited
		}
		if line := strings.TrimSpace(strings.ReplaceAll(string(data), "\x00", " ")); strings.Contains(line, s) {
			found = append(found, fmt.Sprintf("%d %s", pid, line))
		}
	}
	return found, nil
}
