package cgroup

import (
	"bytes"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

func TestOpenLayout(t *testing.T) {
	root := testRoot(t)
	m := open(t, Options{Root: root})
	want := Info{Path: filepath.Join(root, "boris-sessions"), Controllers: []string{}}
	if diff := cmp.Diff(want, m.Info()); diff != "" {
		t.Errorf("Info (-want +got):\n%s", diff)
	}
	g, err := m.New("s1")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "boris-sessions", "s1"); g.Path() != want {
		t.Errorf("Path = %q, want %q", g.Path(), want)
	}
	if _, err := os.Stat(filepath.Join(g.Path(), "cgroup.kill")); err != nil {
		t.Errorf("session group is not a cgroup: %v", err)
	}
	if g.FD() < 0 {
		t.Errorf("FD = %d, want a descriptor", g.FD())
	}
	if err := m.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := os.Stat(m.Info().Path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after Close, stat %s: %v; want it removed", m.Info().Path, err)
	}
}

// TestKillEscapees starts processes that leave their parent's session,
// process group or tree, and proves that Kill ends every one of them.
func TestKillEscapees(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script string
		want   []string // command lines that must be running before Kill
		setsid string   // the one among want that must be in a session of its own
		orphan string   // the one among want whose parent must have exited
	}{
		{
			name:   "setsid and double fork",
			script: "setsid sleep 300 & (sleep 301 &) ; sleep 302",
			want:   []string{"sleep 300", "sleep 301", "sleep 302"},
			setsid: "sleep 300", orphan: "sleep 301",
		},
		{
			name:   "double fork into a new session, ignoring SIGTERM and SIGHUP",
			script: `trap "" TERM HUP; (setsid sh -c 'trap "" TERM HUP; sleep 303 & exec sleep 304' &) ; sleep 305`,
			want:   []string{"sleep 303", "sleep 304", "sleep 305"},
			setsid: "sleep 303", orphan: "sleep 304",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := open(t, Options{Root: testRoot(t)})
			g, err := m.New("s")
			if err != nil {
				t.Fatal(err)
			}
			cmd := startIn(t, g.FD(), tc.script)
			var procs []int
			found := map[string]int{}
			await(t, "every process of the script runs in the group, the orphan re-parented", func() bool {
				if procs, err = g.Procs(); err != nil {
					t.Fatal(err)
				}
				for _, pid := range procs {
					found[cmdline(pid)] = pid
				}
				for _, c := range tc.want {
					if !slices.Contains(procs, found[c]) {
						return false
					}
				}
				// Re-parented out of the script's tree: to the nearest
				// subreaper or init.
				parent := ppid(found[tc.orphan])
				return parent > 0 && !slices.Contains(procs, parent)
			})
			if !slices.Contains(procs, cmd.Process.Pid) {
				t.Errorf("the started process %d is not in the group %v", cmd.Process.Pid, procs)
			}
			main, _ := unix.Getsid(cmd.Process.Pid)
			if sid, _ := unix.Getsid(found[tc.setsid]); sid == main {
				t.Fatalf("%q is in the session of the shell (%d); the test proves nothing", tc.setsid, sid)
			}
			pids := []int{cmd.Process.Pid}
			for _, c := range tc.want {
				if found[c] != cmd.Process.Pid {
					pids = append(pids, found[c])
				}
			}
			fds := pidfds(t, pids)

			if err := g.Kill(); err != nil {
				t.Fatalf("Kill: %v", err)
			}
			awaitExited(t, pids, fds)
			if _, err := os.Stat(g.Path()); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("after Kill, stat %s: %v; want it removed", g.Path(), err)
			}
			if g.FD() != -1 {
				t.Errorf("after Kill, FD = %d, want -1", g.FD())
			}
			if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "signal: killed") {
				t.Errorf("the shell ended with %v, want signal: killed", err)
			}
		})
	}
}

// TestKillWhileForking kills a group whose shell forks as fast as it can.
func TestKillWhileForking(t *testing.T) {
	m := open(t, Options{Root: testRoot(t)})
	g, err := m.New("s")
	if err != nil {
		t.Fatal(err)
	}
	cmd := startIn(t, g.FD(), "while :; do sleep 400 & done")
	await(t, "the shell has forked 50 processes", func() bool {
		pids, _ := g.Procs()
		return len(pids) >= 50
	})
	if err := g.Kill(); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	if _, err := os.Stat(g.Path()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after Kill, stat %s: %v; want it removed", g.Path(), err)
	}
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "signal: killed") {
		t.Errorf("the shell ended with %v, want signal: killed", err)
	}
}

func TestKillEmptyGroupTwice(t *testing.T) {
	m := open(t, Options{Root: testRoot(t)})
	g, err := m.New("s")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := g.Kill(); err != nil {
			t.Fatalf("Kill #%d: %v", i+1, err)
		}
		if _, err := os.Stat(g.Path()); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("after Kill #%d, stat %s: %v; want it removed", i+1, g.Path(), err)
		}
	}
	if _, err := g.Procs(); err == nil {
		t.Error("Procs after Kill succeeded, want an error")
	}
	// The name is free again.
	if _, err := m.New("s"); err != nil {
		t.Errorf("New with the name of a killed group: %v", err)
	}
}

func TestNew(t *testing.T) {
	m := open(t, Options{Root: testRoot(t)})
	if _, err := m.New("s"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"s", "", "..", "../escape", "a/b"} {
		if g, err := m.New(name); err == nil {
			t.Errorf("New(%q) created %s, want an error", name, g.Path())
		}
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := m.New("t"); err == nil {
		t.Error("New after Close succeeded, want an error")
	}
	if err := m.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestCloseKillsSessions(t *testing.T) {
	m := open(t, Options{Root: testRoot(t)})
	var cmds []*exec.Cmd
	for _, name := range []string{"a", "b"} {
		g, err := m.New(name)
		if err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, startIn(t, g.FD(), "sleep 300"))
	}
	if _, err := m.New("empty"); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "signal: killed") {
			t.Errorf("session process ended with %v, want signal: killed", err)
		}
	}
	if _, err := os.Stat(m.Info().Path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after Close, stat %s: %v; want it removed", m.Info().Path, err)
	}
}

// TestStaleGroupsKilled runs a gateway that is SIGKILLed with a session
// running: its command lives on in the session group until the next Open.
func TestStaleGroupsKilled(t *testing.T) {
	root := testRoot(t)
	gw := exec.Command(os.Args[0], "-test.run=^$")
	gw.Env = append(os.Environ(), crashingGatewayEnv+"="+root)
	var stderr bytes.Buffer
	gw.Stderr = &stderr
	line := readLine(t, gw)
	pid, err := strconv.Atoi(line)
	if err != nil {
		t.Fatalf("crashing gateway printed %q (stderr %q), want a pid", line, stderr.String())
	}
	if err := gw.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = gw.Wait()

	stale := filepath.Join(root, "boris-sessions", "left-behind")
	fds := pidfds(t, []int{pid})
	if procs, _ := readPids(filepath.Join(stale, "cgroup.procs")); !slices.Contains(procs, pid) {
		t.Fatalf("the session's command %d is not in %s (%v) after the gateway died", pid, stale, procs)
	}

	var logs bytes.Buffer
	open(t, Options{Root: root, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	awaitExited(t, []int{pid}, fds)
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after Open, stat %s: %v; want it removed", stale, err)
	}
	if !strings.Contains(logs.String(), "stale") || !strings.Contains(logs.String(), stale) {
		t.Errorf("Open logged %q, want a line about the stale group %s", logs.String(), stale)
	}
}

// TestOthersStaleGroupsQuiet: session groups that dead gateways left in
// sessions directories other than the one a gateway claims are removed
// without a warning each (a first start on a shared root once printed
// eleven); the claimed directory's own leftovers are still reported.
func TestOthersStaleGroupsQuiet(t *testing.T) {
	root := testRoot(t)
	own := filepath.Join(root, "boris-sessions", "own-left")
	var others []string
	for i := 2; i <= 4; i++ {
		others = append(others, filepath.Join(root, "boris-sessions-"+strconv.Itoa(i), "left"))
	}
	for _, dir := range append([]string{own}, others...) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var logs bytes.Buffer
	open(t, Options{Root: root, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	for _, dir := range append([]string{own}, others...) {
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("after Open, stat %s: %v; want it removed", dir, err)
		}
	}
	for _, dir := range others {
		if strings.Contains(logs.String(), dir) {
			t.Errorf("Open logged %q, want nothing about another gateway's empty stale group %s", logs.String(), dir)
		}
	}
	if !strings.Contains(logs.String(), own) {
		t.Errorf("Open logged %q, want a line about its own directory's stale group %s", logs.String(), own)
	}
}

// TestOpenTwice: two gateways on one root get sessions directories of
// their own, and neither's Open touches the other's live sessions.
func TestOpenTwice(t *testing.T) {
	root := testRoot(t)
	m1 := open(t, Options{Root: root})
	g1, err := m1.New("live")
	if err != nil {
		t.Fatal(err)
	}
	m2 := open(t, Options{Root: root})
	if m1.Info().Path == m2.Info().Path {
		t.Fatalf("both gateways got %s, want a directory each", m1.Info().Path)
	}
	if _, err := os.Stat(g1.Path()); err != nil {
		t.Errorf("the first gateway's live group after the second Open: %v, want it kept", err)
	}
	if err := m1.Close(); err != nil {
		t.Fatal(err)
	}
	if err := m2.Close(); err != nil {
		t.Fatal(err)
	}
	open(t, Options{Root: root})
}

func TestOpenUnavailable(t *testing.T) {
	for name, root := range map[string]string{
		"not a cgroup":   t.TempDir(),
		"does not exist": filepath.Join(t.TempDir(), "none"),
	} {
		t.Run(name, func(t *testing.T) {
			if m, err := Open(Options{Root: root}); !errors.Is(err, ErrUnavailable) {
				t.Errorf("Open(%s) = %v, %v; want an error wrapping ErrUnavailable", root, m, err)
			}
		})
	}
}

// TestLimits asks for each limit: where its controller is available, the
// session groups get it; where not, Open says which controller is missing.
func TestLimits(t *testing.T) {
	for _, tc := range []struct {
		controller string
		limits     Limits
		file, want string
	}{
		{"pids", Limits{PidsMax: 64}, "pids.max", "64"},
		{"memory", Limits{MemoryMax: 64 << 20}, "memory.max", "67108864"},
		{"cpu", Limits{CPUWeight: 50}, "cpu.weight", "50"},
	} {
		t.Run(tc.controller, func(t *testing.T) {
			root := testRoot(t)
			if !slices.Contains(controllers(t, root), tc.controller) {
				m, err := Open(Options{Root: root, Limits: tc.limits})
				t.Logf("Open: %v", err)
				if !errors.Is(err, ErrNoController) || !strings.Contains(err.Error(), "the "+tc.controller+" controller") {
					t.Fatalf("Open = %v, %v; want ErrNoController naming %s", m, err, tc.controller)
				}
				if _, err := os.Stat(filepath.Join(root, "boris-sessions")); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("failed Open left %s/boris-sessions behind (%v)", root, err)
				}
				return
			}
			m := open(t, Options{Root: root, Limits: tc.limits})
			if diff := cmp.Diff([]string{tc.controller}, m.Info().Controllers); diff != "" {
				t.Errorf("Info().Controllers (-want +got):\n%s", diff)
			}
			g, err := m.New("s")
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(g.Path(), tc.file))
			if err != nil || strings.TrimSpace(string(got)) != tc.want {
				t.Errorf("%s = %q, %v; want %q", tc.file, got, err, tc.want)
			}
			if tc.controller == "memory" {
				if got, err := os.ReadFile(filepath.Join(g.Path(), "memory.swap.max")); err == nil && strings.TrimSpace(string(got)) != "0" {
					t.Errorf("memory.swap.max = %q, want 0", got)
				}
			}
		})
	}
}

// TestOpenMovesGatewayOutOfRoot runs Open with a limit from a process in
// the root cgroup, as a systemd service with Delegate=yes is: Open moves it
// into the leaf boris-gateway, so that the root can enable controllers.
func TestOpenMovesGatewayOutOfRoot(t *testing.T) {
	root := testRoot(t)
	if have := controllers(t, root); !slices.Contains(have, "pids") {
		t.Skipf("needs the pids controller in cgroup v2 (%s offers only %q)", root, have)
	}
	moveSelf(t, root)
	m := open(t, Options{Root: root, Limits: Limits{PidsMax: 100}})
	if got, want := selfDir(t), filepath.Join(root, "boris-gateway"); got != want {
		t.Errorf("after Open, the test runs in %s, want %s", got, want)
	}
	if got, _ := readFields(filepath.Join(root, "cgroup.subtree_control")); !slices.Contains(got, "pids") {
		t.Errorf("%s/cgroup.subtree_control = %q, want pids enabled", root, got)
	}
	g, err := m.New("s")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(g.Path(), "pids.max")); strings.TrimSpace(string(got)) != "100" {
		t.Errorf("pids.max = %q, %v; want 100", got, err)
	}
}

// TestOpenRefusesBusyRoot runs Open with a limit on a root that holds a
// process other than the calling one: Open cannot move it, and says so.
func TestOpenRefusesBusyRoot(t *testing.T) {
	root := testRoot(t)
	if have := controllers(t, root); !slices.Contains(have, "pids") {
		t.Skipf("needs the pids controller in cgroup v2 (%s offers only %q)", root, have)
	}
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	other := startIn(t, fd, "sleep 300")
	before := selfDir(t)
	m, err := Open(Options{Root: root, Limits: Limits{PidsMax: 100}, Logger: testLogger(t)})
	if err == nil || !strings.Contains(err.Error(), strconv.Itoa(other.Process.Pid)) || !strings.Contains(err.Error(), "leaf") {
		t.Fatalf("Open = %v, %v; want an error naming process %d and what to do", m, err, other.Process.Pid)
	}
	if got := selfDir(t); got != before {
		t.Errorf("a failed Open moved the test from %s to %s", before, got)
	}
	if _, err := os.Stat(filepath.Join(root, "boris-sessions")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("failed Open left %s/boris-sessions behind (%v)", root, err)
	}
}
