package gateway

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"

	"github.com/mjkoo/boris/core/board"
)

// boardTasks lists the descriptions on the board at path, read-only.
func boardTasks(t *testing.T, path string) []string {
	t.Helper()
	s, err := board.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatalf("open board %s: %v", path, err)
	}
	defer s.Close()
	tasks, _, err := s.List(context.Background(), board.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, task := range tasks {
		out = append(out, task.Description)
	}
	return out
}

// TestBoardIsolation: each principal's tasks land on its own board, and
// another principal's core cannot reach that board's file, by path or
// through a symbolic link, with its file tools or its commands; with
// --tasks-db every principal shares one board.
func TestBoardIsolation(t *testing.T) {
	const secret = "alice-only plan 7f3a"
	cases := []struct {
		name  string
		args  func(dir string) []string
		board func(g *dashGateway, dir string) string // alice's board
	}{
		{"state directory", func(string) []string { return nil },
			func(g *dashGateway, _ string) string {
				return filepath.Join(g.state, boardsDirName, "alice", "boris.db")
			}},
		{"workdir template", func(dir string) []string { return []string{"--workdir-template", dir + "/{sub}"} },
			func(g *dashGateway, _ string) string {
				return filepath.Join(g.state, boardsDirName, "alice", "boris.db")
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			g := newDashGateway(t, tc.args(dir)...)
			alice, bob := g.initializeAs(dashAlice), g.initializeAs(dashBob)
			g.callAs(dashAlice, alice, "create_task", map[string]any{"description": secret})
			g.callAs(dashBob, bob, "create_task", map[string]any{"description": "bob's own"})
			path := tc.board(g, dir)
			if got := boardTasks(t, path); len(got) != 1 || got[0] != secret {
				t.Fatalf("alice's board %s: got %q, want only her task", path, got)
			}
			if out, _ := g.callAs(dashBob, bob, "list_tasks", map[string]any{}); strings.Contains(out, secret) {
				t.Errorf("bob's list_tasks: got %q, want none of alice's tasks", out)
			}
			for _, target := range []string{path, filepath.Dir(path)} {
				if out, isErr := g.callAs(dashBob, bob, "view", map[string]any{"path": target}); !isErr || strings.Contains(out, "SQLite") {
					t.Errorf("bob's view %s: got %q (error %v), want a refusal", target, out, isErr)
				}
			}
			// A link in bob's own directory to alice's board.
			g.callAs(dashBob, bob, "bash", map[string]any{"command": "ln -sf " + path + " stolen.db"})
			if out, isErr := g.callAs(dashBob, bob, "view", map[string]any{"path": "stolen.db"}); !isErr || strings.Contains(out, "SQLite") {
				t.Errorf("bob's view of a link to alice's board: got %q (error %v), want a refusal", out, isErr)
			}
			if abi, err := llsys.LandlockGetABIVersion(); err != nil || abi < 1 {
				t.Skipf("commands are not confined on this kernel (no Landlock): bob's bash could read alice's board; file tools checked only")
			}
			for _, cmd := range []string{"cat " + path, "cat stolen.db", "ls " + filepath.Dir(path), "cp " + path + " copy.db && cat copy.db"} {
				out, _ := g.callAs(dashBob, bob, "bash", map[string]any{"command": cmd + "; echo done"})
				if strings.Contains(out, "SQLite format") || strings.Contains(out, secret) || !strings.Contains(out, "done") {
					t.Errorf("bob's bash %q: got %q, want it refused", cmd, out)
				}
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("alice's board after bob's attempts: %v", err)
			}
		})
	}
}

// TestBoardShared: with --tasks-db every principal works on one board.
func TestBoardShared(t *testing.T) {
	shared := filepath.Join(t.TempDir(), "team", "boris.db")
	g := newDashGateway(t, "--tasks-db", shared)
	alice, bob := g.initializeAs(dashAlice), g.initializeAs(dashBob)
	g.callAs(dashAlice, alice, "create_task", map[string]any{"description": "team task"})
	if out, isErr := g.callAs(dashBob, bob, "list_tasks", map[string]any{}); isErr || !strings.Contains(out, "team task") {
		t.Errorf("bob's list_tasks on the shared board: got %q (error %v), want alice's task", out, isErr)
	}
	if got := boardTasks(t, shared); len(got) != 1 {
		t.Errorf("shared board: got %q, want one task", got)
	}
	entries, _ := os.ReadDir(filepath.Join(g.state, boardsDirName))
	if len(entries) != 0 {
		t.Errorf("per-principal boards with --tasks-db: got %v, want none", entries)
	}
}
