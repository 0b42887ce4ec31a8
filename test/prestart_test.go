package test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// spawnerMarker is on the command line of a core's sandbox spawner
// (sandbox.SpawnerArg).
const spawnerMarker = "__boris-sandbox-spawner"

// childrenWith returns the pids of pid's live children whose command line
// holds marker.
func childrenWith(pid int, marker string) []int {
	var out []int
	lists, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "children"))
	for _, list := range lists {
		b, err := os.ReadFile(list)
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			child, err := strconv.Atoi(f)
			if err != nil {
				continue
			}
			cmdline, err := os.ReadFile(filepath.Join("/proc", f, "cmdline"))
			if err == nil && strings.Contains(string(cmdline), marker) {
				out = append(out, child)
			}
		}
	}
	return out
}

// TestSpawnerStartsBeforeFirstCommand: the session's spawner, most of
// what a first command would otherwise cost (a process start, Landlock,
// namespaces, the private root), is started once the client has
// initialized, before any tool call; the first command is forked by that
// spawner rather than starting one.
func TestSpawnerStartsBeforeFirstCommand(t *testing.T) {
	t.Parallel()
	if !landlockAvailable() {
		t.Skip("needs Landlock (commands start from a spawner only when they are confined); this kernel has none")
	}
	dir := realTempDir(t)
	// Checkpoints off: their git has a spawner of its own.
	c := startCore(t, "--workdir", dir, "--checkpoints", "off", "--sandbox", "required")
	pid := c.cmd.Process.Pid
	var spawners []int
	for deadline := time.Now().Add(20 * time.Second); len(spawners) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no spawner among the children of boris (pid %d) 20 s after initialize, before any call; want one started at initialize; log:\n%s", pid, c.stderr.String())
		}
		spawners = childrenWith(pid, spawnerMarker)
	}
	if len(spawners) != 1 {
		t.Fatalf("spawners before any call: %v, want exactly one", spawners)
	}
	got := strings.TrimSpace(c.ok("bash", map[string]any{"command": "echo $PPID"}))
	if want := "stdout:\n" + strconv.Itoa(spawners[0]); !strings.HasPrefix(got, want) {
		t.Errorf("first command's parent: got %q, want the spawner started at initialize (%q)", got, want)
	}
	if now := childrenWith(pid, spawnerMarker); len(now) != 1 || now[0] != spawners[0] {
		t.Errorf("spawners after the first command: %v, want still only %v", now, spawners)
	}
}

// TestOneSpawnerWithCheckpoints: with checkpoints on, the session's one
// spawner also starts the checkpoints' git (in a domain of its own, see
// core/sandbox): recording a fresh tree and a command's change starts no
// second spawner, and the change is recorded.
func TestOneSpawnerWithCheckpoints(t *testing.T) {
	t.Parallel()
	if !landlockAvailable() {
		t.Skip("needs Landlock (commands start from a spawner only when they are confined); this kernel has none")
	}
	dir := realTempDir(t)
	writeFile(t, filepath.Join(dir, "a.txt"), "one\n")
	c, _ := startCheckpointCore(t, dir, "--sandbox", "required")
	pid := c.cmd.Process.Pid
	c.ok("bash", map[string]any{"command": "echo two > b.txt"})
	if h := c.ok("history", map[string]any{"limit": 1}); !strings.Contains(h, "A b.txt") {
		t.Errorf("history after the command: got %q, want b.txt added", h)
	}
	// The git spawner of a session whose spawner cannot start git idles
	// 10 s before it exits: it would still be there.
	if spawners := childrenWith(pid, spawnerMarker); len(spawners) != 1 {
		t.Errorf("spawners after the start and a recorded command: %v, want the session's one", spawners)
	}
}
