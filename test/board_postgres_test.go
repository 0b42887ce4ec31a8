package test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/board"
	"github.com/mjkoo/boris/internal/pgtest"
)

// pgTeamBoard starts a PostgreSQL server for t and provisions the team's
// role; it returns the board's URL and the role's password file.
func pgTeamBoard(t *testing.T) (url, passwordFile string) {
	t.Helper()
	srv := pgtest.ForTest(t)
	url, passwordFile, err := srv.Role(context.Background(), "team", realTempDir(t), board.ProvisionRole)
	if err != nil {
		t.Fatal(err)
	}
	return url, passwordFile
}

// TestBoardPostgresTwoGateways: two gateways, as two hosts, and the CLI
// share one board on a real PostgreSQL. Cores on both write at once
// (creates, blockers, updates of different fields of one task) and none
// of it is lost; opposite blockers added at once through the two
// gateways leave exactly one of each pair; each gateway's dashboard shows
// the whole team's board; no log holds the password.
func TestBoardPostgresTwoGateways(t *testing.T) {
	url, pwfile := pgTeamBoard(t)
	pw, _ := os.ReadFile(pwfile)
	cli := func(args ...string) ([]byte, error) {
		return exec.Command(borisBin, append([]string{"tasks", "--tasks-db", url, "--tasks-db-password-file", pwfile}, args...)...).CombinedOutput()
	}
	if out, err := cli("add", "milestone"); err != nil {
		t.Fatalf("boris tasks add: %v: %s", err, out)
	}
	gws := []*gatewayProc{
		startGateway(t, "--node-id", "host-a", "--tasks-db", url, "--tasks-db-password-file", pwfile),
		startGateway(t, "--node-id", "host-b", "--tasks-db", url, "--tasks-db-password-file", pwfile),
	}
	const perGateway, perCore, clis = 2, 10, 8
	var cores []*core
	for _, g := range gws {
		for range perGateway {
			cores = append(cores, &core{t: t, session: connectAs(t, g, sessionRevision, nil)})
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(cores)*perCore+clis)
	for i, c := range cores {
		for j := range perCore {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- concurrentWriter(c, fmt.Sprintf("core %d writer %d", i, j))
			}()
		}
	}
	for i := range clis {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, err := cli("add", fmt.Sprintf("from the CLI %d", i)); err != nil {
				errs <- fmt.Errorf("CLI %d: %v: %s", i, err, out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	writers := len(cores) * perCore
	out, err := cli("--json", "show", "W-1")
	if err != nil {
		t.Fatalf("boris tasks show: %v: %s", err, out)
	}
	var m struct {
		Task      boardTask
		BlockedBy []boardTask `json:"blocked_by"`
	}
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.BlockedBy) != writers || !m.Task.Ready {
		t.Errorf("the milestone waits for %d tasks (ready %v), want %d, all done: blockers were lost", len(m.BlockedBy), m.Task.Ready, writers)
	}
	for _, b := range m.BlockedBy {
		if b.Status != "done" || b.Result != "ok" {
			t.Errorf("%s: status %s result %q: an update was lost", b.ID, b.Status, b.Result)
		}
	}
	total := 1 + writers + clis
	pairs := oppositeBlockers(t, cores[0], cores[len(cores)-1])
	total += 2 * pairs
	for _, g := range gws {
		counts := dashboardCounts(t, g)
		if n := counts["pending"] + counts["done"]; n != total {
			t.Errorf("%s's dashboard shows %d tasks (%v), want the team's %d", g.url, n, counts, total)
		}
		if strings.Contains(g.stderr.String(), strings.TrimSpace(string(pw))) {
			t.Errorf("%s's log holds the board's password", g.url)
		}
	}
}

// oppositeBlockers creates pairs of tasks through a and, for each pair,
// adds X waits for Y through a and Y waits for X through b at the same
// moment: exactly one of the two is refused as a cycle. It returns how
// many pairs it made.
func oppositeBlockers(t *testing.T, a, b *core) int {
	t.Helper()
	const pairs = 10
	var wg sync.WaitGroup
	results := make(chan *mcp.CallToolResult, 2*pairs)
	for range pairs {
		x, y := a.createTask(map[string]any{"description": "x"}).ID, a.createTask(map[string]any{"description": "y"}).ID
		for _, e := range []struct {
			c        *core
			from, to string
		}{{a, x, y}, {b, y, x}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				res, err := e.c.session.CallTool(ctx, &mcp.CallToolParams{Name: "add_blocker", Arguments: map[string]any{"task_id": e.from, "blocked_by_id": e.to}})
				if err != nil {
					t.Errorf("add_blocker: %v", err)
					return
				}
				results <- res
			}()
		}
	}
	wg.Wait()
	close(results)
	refused, added := 0, 0
	for res := range results {
		switch {
		case res.IsError && strings.Contains(text(res), "BLOCKER_CYCLE"):
			refused++
		case res.IsError:
			t.Errorf("add_blocker: %s", text(res))
		default:
			added++
		}
	}
	if refused != pairs || added != pairs {
		t.Errorf("of %d pairs of opposite blockers added at once on two hosts, %d were added and %d refused; want one of each pair", pairs, added, refused)
	}
	return pairs
}

// dashboardCounts reads g's dashboard state and returns its one board's
// counts by status, which must be the shared board's.
func dashboardCounts(t *testing.T, g *gatewayProc) map[string]int {
	t.Helper()
	resp, err := http.Get(strings.TrimSuffix(g.url, "/mcp") + "/dashboard/state")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var st struct {
		Boards []struct {
			Shared bool           `json:"shared"`
			Path   string         `json:"path"`
			Counts map[string]int `json:"counts"`
			Error  string         `json:"error"`
		} `json:"boards"`
	}
	if err := json.Unmarshal(body, &st); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("dashboard state: %d %v: %s", resp.StatusCode, err, body)
	}
	if len(st.Boards) != 1 || !st.Boards[0].Shared || st.Boards[0].Error != "" {
		t.Fatalf("dashboard boards: %s, want the one shared board, read", body)
	}
	return st.Boards[0].Counts
}

// TestTasksDBRefusesUnknownSchemes: a --tasks-db that looks like a URL of
// a database Boris does not speak, or a PostgreSQL URL holding a
// password, is refused by the core, the CLI and the gateway with a clear
// error that shows no password, and no file or directory is made of it.
func TestTasksDBRefusesUnknownSchemes(t *testing.T) {
	for _, tc := range []struct{ value, want string }{
		{"mysql://root@db/boris", "unknown task database scheme \"mysql\""},
		{"http://example.com/boris.db", "unknown task database scheme \"http\""},
		{"postgres:boris.db", "unknown task database scheme \"postgres\""},
		{"postgres://team:hunter2@db.example/boris", "password in the task database URL"},
	} {
		t.Run(tc.value, func(t *testing.T) {
			dir := realTempDir(t)
			for _, run := range []struct {
				name string
				cmd  *exec.Cmd
			}{
				{"boris", exec.Command(borisBin, "--tasks-db", tc.value, "--check")},
				{"boris tasks", exec.Command(borisBin, "tasks", "--tasks-db", tc.value, "list")},
				{"boris-gateway", exec.Command(gatewayBin(t), "--listen", "127.0.0.1:0", "--auth", "none", "--tasks-db", tc.value)},
				{"BORIS_TASKS_DB", exec.Command(borisBin, "tasks", "list")},
			} {
				run.cmd.Dir = dir
				run.cmd.Env = cleanEnv("BORIS_TASKS_DB=" + tc.value)
				out, err := runWithTimeout(run.cmd, 20*time.Second)
				if err == nil || !strings.Contains(out, tc.want) || strings.Contains(out, "hunter2") {
					t.Errorf("%s: err %v, output %q; want a failure saying %q without the password", run.name, err, out, tc.want)
				}
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("the refused value made %v in the working directory", entries)
			}
		})
	}
}

// runWithTimeout runs cmd and returns its combined output; a process
// still running after d is killed.
func runWithTimeout(cmd *exec.Cmd, d time.Duration) (string, error) {
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.String(), err
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		return out.String(), fmt.Errorf("still running after %v", d)
	}
}

// TestBoardPasswordNotInCommands: PGPASSWORD, which the core may use to
// reach a PostgreSQL board, is not in the environment of the commands a
// principal runs, with the sandbox and without it; other variables are.
func TestBoardPasswordNotInCommands(t *testing.T) {
	for _, args := range [][]string{{"--sandbox", "off"}, {}} {
		c := startCoreWith(t, coreOptions{
			args: append([]string{"--workdir", realTempDir(t)}, args...),
			env:  []string{"PGPASSWORD=hunter2-board", "BORIS_TEST_MARKER=kept"},
		})
		out := c.ok("bash", map[string]any{"command": "echo \"pw=${PGPASSWORD:-unset} marker=${BORIS_TEST_MARKER:-unset}\"; cat /proc/self/environ | tr '\\0' '\\n' | grep -c PGPASSWORD || true"})
		if !strings.Contains(out, "pw=unset marker=kept") || strings.Contains(out, "hunter2") {
			t.Errorf("with %v: a command saw %q, want no PGPASSWORD and the other variable kept", args, out)
		}
	}
}
