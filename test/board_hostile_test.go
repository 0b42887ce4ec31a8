//go:build linux

package test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// hostileBoard is a way a principal can make its board path, which it
// writes, into something the core and the gateway must not open as a board.
type hostileBoard struct {
	name string
	// make puts the hostile thing at the board path of the principal
	// whose directory is home; victim is another principal's board.
	make func(t *testing.T, home, victim string)
}

// hostileBoards are a FIFO, a device, a link to another principal's board
// and a link to its directory, at ~/.boris/boris.db.
var hostileBoards = []hostileBoard{
	{"FIFO", func(t *testing.T, home, _ string) {
		if err := syscall.Mkfifo(filepath.Join(home, ".boris", "boris.db"), 0o600); err != nil {
			t.Fatal(err)
		}
	}},
	{"device", func(t *testing.T, home, _ string) {
		if os.Geteuid() != 0 {
			t.Skip("needs root: makes a device node like /dev/null")
		}
		if err := syscall.Mknod(filepath.Join(home, ".boris", "boris.db"), syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
			t.Fatal(err)
		}
	}},
	{"link to another board", func(t *testing.T, home, victim string) {
		if err := os.Symlink(victim, filepath.Join(home, ".boris", "boris.db")); err != nil {
			t.Fatal(err)
		}
	}},
	{"link to another board's directory", func(t *testing.T, home, victim string) {
		if err := os.Remove(filepath.Join(home, ".boris")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Dir(victim), filepath.Join(home, ".boris")); err != nil {
			t.Fatal(err)
		}
	}},
}

// resetBoard empties home's ~/.boris for the next hostile board.
func resetBoard(t *testing.T, home string) {
	t.Helper()
	dir := filepath.Join(home, ".boris")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
}

// procThreads counts the threads of process pid.
func procThreads(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no Threads line in /proc/PID/status")
	return 0
}

// TestBoardToolsRefuseHostileBoards: the core's board tools refuse a board
// path that is a FIFO, a device or a link to another principal's board (or
// its directory) at once, with BOARD_UNAVAILABLE saying why, instead of
// hanging or reading the other board.
func TestBoardToolsRefuseHostileBoards(t *testing.T) {
	victim := filepath.Join(realTempDir(t), "bob", ".boris", "boris.db")
	owner := startCoreWith(t, coreOptions{args: []string{"--workdir", realTempDir(t), "--tasks-db", victim}})
	owner.ok("create_task", map[string]any{"description": "bob's secret plan"})
	for _, hb := range hostileBoards {
		t.Run(hb.name, func(t *testing.T) {
			home := realTempDir(t)
			resetBoard(t, home)
			hb.make(t, home, victim)
			c := startCoreWith(t, coreOptions{args: []string{"--workdir", home}, env: []string{"HOME=" + home}})
			res := c.callPromptly("list_tasks", map[string]any{})
			got := text(res)
			if !res.IsError || !strings.HasPrefix(got, "[BOARD_UNAVAILABLE] ") || strings.Contains(got, "secret plan") ||
				!(strings.Contains(got, "symbolic link") || strings.Contains(got, "regular file")) {
				t.Errorf("list_tasks: got isError=%v %q, want BOARD_UNAVAILABLE saying the board is a link or not a regular file", res.IsError, got)
			}
		})
	}
}

// TestDashboardHostileBoards: a principal whose board path (under
// --workdir-template and an operator's BORIS_TASKS_DB=~/.boris/boris.db,
// WORKDIR/.boris/boris.db) is a FIFO, a device or a
// link to another principal's board gets its dashboard state at once,
// that board shown unavailable and nothing of the other's shown; 50 such
// state requests at once leave the gateway with no more threads or file
// descriptors than before.
func TestDashboardHostileBoards(t *testing.T) {
	root := filepath.Join(realTempDir(t), "work")
	// Boards are Boris's state, kept in the gateway's state directory by
	// default; an operator's BORIS_TASKS_DB=~/... puts each in its
	// principal's own directory, where the principal can plant anything.
	g := startAuthGateway(t, []string{"HOME=" + realTempDir(t), "BORIS_TASKS_DB=~/.boris/boris.db"}, "--token", "alice="+browserAlice, "--token", "bob="+browserBob,
		"--workdir-template", filepath.Join(root, "{sub}"))
	gw := &gatewayProc{t: t, url: g.url, stderr: g.stderr}
	_, bobCall := mcpAs(t, gw, browserBob)
	if out := bobCall("create_task", map[string]any{"description": "bob's secret plan"}); strings.Contains(out, "isError\":true") {
		t.Fatalf("bob's create_task: %s", out)
	}
	victim := filepath.Join(root, "bob", ".boris", "boris.db")
	home := filepath.Join(root, "alice")
	base := strings.TrimSuffix(g.url, "/mcp")
	client := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	cookie := dashLogin(t, client, base, browserAlice)
	pid := g.cmd.Process.Pid
	for _, hb := range hostileBoards {
		t.Run(hb.name, func(t *testing.T) {
			resetBoard(t, home)
			hb.make(t, home, victim)
			// Whatever the first read costs, once.
			req, _ := http.NewRequest(http.MethodGet, base+"/dashboard/state", nil)
			req.AddCookie(cookie)
			if resp, err := client.Do(req); err != nil {
				t.Errorf("the first state request: %v", err)
			} else {
				resp.Body.Close()
			}
			client.CloseIdleConnections()
			threads, fds := procThreads(t, pid), openFDs(t, pid)
			var wg sync.WaitGroup
			errs := make(chan string, 50)
			for range 50 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					req, _ := http.NewRequest(http.MethodGet, base+"/dashboard/state", nil)
					req.AddCookie(cookie)
					resp, err := client.Do(req)
					if err != nil {
						errs <- err.Error()
						return
					}
					defer resp.Body.Close()
					b, _ := io.ReadAll(resp.Body)
					body := string(b)
					if resp.StatusCode != http.StatusOK || strings.Contains(body, "secret plan") || !strings.Contains(body, `"error":"the board`) {
						errs <- strconv.Itoa(resp.StatusCode) + " " + body
					}
				}()
			}
			wg.Wait()
			close(errs)
			for e := range errs {
				t.Errorf("state request: got %.400s; want 200 with alice's board shown unavailable and nothing of bob's", e)
				break
			}
			client.CloseIdleConnections()
			// Closed connections leave the gateway's descriptor table as
			// its server notices them: allow a moment, not a trend.
			var nowThreads, nowFDs int
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				nowThreads, nowFDs = procThreads(t, pid), openFDs(t, pid)
				if nowThreads <= threads+8 && nowFDs <= fds+8 || time.Now().After(deadline) {
					break
				}
			}
			if nowThreads > threads+8 || nowFDs > fds+8 {
				t.Errorf("after 50 state requests: %d threads (were %d), %d descriptors (were %d); want no growth beyond a margin of 8",
					nowThreads, threads, nowFDs, fds)
			}
		})
	}
}
