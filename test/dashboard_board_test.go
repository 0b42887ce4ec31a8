package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// startTeamGateway runs boris-gateway as the node node of a team: alice
// (a --dashboard-operator) and bob as static tokens, every core on the
// one board db.
func startTeamGateway(t *testing.T, node, db string) *gatewayProc {
	t.Helper()
	dir := realTempDir(t)
	args := []string{"--listen", "127.0.0.1:0", "--state-dir", realTempDir(t), "--node-id", node, "--tasks-db", db,
		"--token", "alice=" + browserAlice, "--token", "bob=" + browserBob, "--dashboard-operator", "alice",
		"--", "--workdir", dir, "--allow-dir", dir}
	cmd := exec.Command(gatewayBin(t), args...)
	cmd.Env = cleanEnv("HOME=" + realTempDir(t))
	return runGatewayProc(t, cmd, dir, false)
}

// boardCLI runs `boris tasks` on db.
func boardCLI(t *testing.T, db string, args ...string) {
	t.Helper()
	cmd := exec.Command(borisBin, append([]string{"tasks", "--tasks-db", db}, args...)...)
	cmd.Env = cleanEnv("HOME=" + realTempDir(t))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("boris tasks %v: %v\n%s", args, err, out)
	}
}

// columnsJS is the board's columns as the page shows them: each status's
// task ids, a blocked task's marked "!".
const columnsJS = `JSON.stringify(Object.fromEntries([...document.querySelectorAll('#boards .board:first-child .column')].map((c) =>
	[c.dataset.status, [...c.querySelectorAll('.card')].map((k) => k.dataset.task + (k.classList.contains('blocked') ? '!' : '')).sort()])))`

// TestDashboardBoardAndPlots: tasks made through the board's tools and its
// CLI show in headless Chromium as columns by status, a blocked task marked
// and its open blocker a link that brings its card into view (still
// highlighted once the board is drawn again); the host's plots show the
// calls the test made (their count, a p99 at least the slow calls'
// duration, both sessions open at once); at 1366 px the columns stand side
// by side, at 390 px one above the other with nothing wider than the
// screen; a second gateway sharing the board shows the team's tasks and
// plots of its own; a principal that is not an operator sees the board
// and plots of its own calls and sessions only, nothing of the others'.
// Screenshots at both widths go to bin/.
func TestDashboardBoardAndPlots(t *testing.T) {
	b := startBrowser(t)
	db := filepath.Join(realTempDir(t), "team.db")
	g := startTeamGateway(t, "host-a", db)
	base := strings.TrimSuffix(g.url, "/mcp")

	_, call := mcpAs(t, g, browserAlice)
	_, bobCall := mcpAs(t, g, browserBob)
	calls := 0
	do := func(c func(string, map[string]any) string, tool string, args map[string]any) {
		calls++
		if out := c(tool, args); strings.Contains(out, `"isError":true`) {
			t.Fatalf("%s %v: %s", tool, args, out)
		}
	}
	do(call, "create_task", map[string]any{"description": "Design the schema"})   // W-1
	do(call, "create_task", map[string]any{"description": "Write the migration"}) // W-2
	do(call, "create_task", map[string]any{"description": "Pick a driver"})       // W-3
	do(call, "update_task", map[string]any{"id": "W-1", "status": "in_progress"})
	do(call, "add_blocker", map[string]any{"task_id": "W-2", "blocked_by_id": "W-1"})
	do(call, "update_task", map[string]any{"id": "W-3", "status": "done"})
	boardCLI(t, db, "add", "Review the migration") // W-4
	boardCLI(t, db, "block", "W-4", "W-2")
	boardCLI(t, db, "add", "Try another database") // W-5
	boardCLI(t, db, "cancel", "W-5")
	do(bobCall, "create_task", map[string]any{"description": "Benchmark it"}) // W-6, waiting for a closed task only
	do(bobCall, "add_blocker", map[string]any{"task_id": "W-6", "blocked_by_id": "W-3"})
	// The last two calls are slow: whichever minute the last one ends in,
	// at least its p99 is that of a slow call.
	do(call, "bash", map[string]any{"command": "sleep 0.5"})
	do(call, "bash", map[string]any{"command": "sleep 0.5"})

	alice := login(b, base, browserAlice)
	alice.viewport(1366, 900, false)
	want := `{"pending":["W-2!","W-4!","W-6"],"in_progress":["W-1"],"done":["W-3"],"cancelled":["W-5"]}`
	alice.await("the board's columns", columnsJS+" === "+jsString(want))
	if got := alice.text(columnsJS); got != want {
		t.Fatalf("columns: got %s, want %s", got, want)
	}
	if got := alice.text(`[...document.querySelectorAll('#b0-W-6 .blocker')].map((a) => a.dataset.blocker + (a.classList.contains('open') ? ' open' : ' closed')).join()`); got != "W-3 closed" {
		t.Errorf("W-6's blocker: got %q, want W-3 shown closed (W-6 is not blocked)", got)
	}

	// The plots: the calls of this test, and nothing else.
	plotCalls := `document.querySelector('#plot-calls .now').textContent`
	alice.await("the plots to count the test's calls", plotCalls+" === "+jsString(strconv.Itoa(calls)+" calls in the hour"))
	var plot struct {
		CallsPerSecond, P50, P99, Sessions []float64
		Host                               string
		Lines                              int
	}
	alice.eval(`(() => {
		const vals = (fig, series) => [...document.querySelectorAll('#' + fig + ' .points[data-series="' + series + '"] circle')].map((c) => Number(c.dataset.value));
		return {CallsPerSecond: vals('plot-calls', 'calls/s'), P50: vals('plot-latency', 'p50'), P99: vals('plot-latency', 'p99'),
			Sessions: vals('plot-sessions', 'sessions'), Host: document.getElementById('host-name').textContent,
			Lines: document.querySelectorAll('#host svg .points').length};
	})()`, &plot)
	if plot.Host != "host-a" || plot.Lines != 5 {
		t.Errorf("plots: host %q with %d series, want host-a with 5 (sessions, principal cores, calls/s, p50, p99)", plot.Host, plot.Lines)
	}
	if len(plot.CallsPerSecond) == 0 || slices.Max(plot.CallsPerSecond) <= 0 {
		t.Errorf("calls per second: got %v, want a point above 0", plot.CallsPerSecond)
	}
	if len(plot.P99) == 0 || slices.Max(plot.P99) < 495 {
		t.Errorf("p99 latency: got %v ms, want a point at 500 ms or more (two calls slept 0.5 s; 1%% accuracy)", plot.P99)
	}
	for i, v := range plot.P99 {
		if v <= 0 {
			t.Errorf("latency point %d at %v ms: a minute without calls has no latency to draw", i, v)
		}
	}
	for i := range plot.P50 {
		if plot.P50[i] > plot.P99[i] {
			t.Errorf("minute %d: p50 %v ms above p99 %v ms", i, plot.P50[i], plot.P99[i])
		}
	}
	if len(plot.Sessions) == 0 || slices.Max(plot.Sessions) < 2 {
		t.Errorf("open sessions: got %v, want a point at 2 or more (alice's and bob's)", plot.Sessions)
	}

	// Side by side on a laptop.
	var tops, lefts []float64
	alice.eval(`[...document.querySelectorAll('#boards .board:first-child .column')].map((c) => c.getBoundingClientRect().top)`, &tops)
	alice.eval(`[...document.querySelectorAll('#boards .board:first-child .column')].map((c) => c.getBoundingClientRect().left)`, &lefts)
	if len(tops) != 4 || slices.Min(tops) != slices.Max(tops) || !slices.IsSorted(lefts) || lefts[0] == lefts[3] {
		t.Errorf("at 1366 px: columns at tops %v, lefts %v; want four side by side", tops, lefts)
	}
	var wide struct{ Page, Screen float64 }
	alice.eval(`({Page: document.documentElement.scrollWidth, Screen: innerWidth})`, &wide)
	if wide.Page > wide.Screen {
		t.Errorf("at 1366 px: the page is %v px wide on a %v px screen", wide.Page, wide.Screen)
	}
	screenshotTo(t, alice, "dashboard-1366.png")
	if path := os.Getenv("BORIS_DASHBOARD_SCREENSHOT"); path != "" {
		alice.screenshot(path)
	}

	// The blocker's link brings its card into view, highlighted.
	alice.eval(`window.scrollTo(0, document.body.scrollHeight); document.querySelector('#b0-W-2 a.blocker[data-blocker="W-1"]').click(); true`, nil)
	target := `document.getElementById('b0-W-1')`
	alice.await("W-1's card to be the target", `location.hash === '#b0-W-1' && `+target+`.matches(':target') && `+target+`.classList.contains('target')`)
	if got := alice.text(target + `.closest('.column').dataset.status`); got != "in_progress" {
		t.Errorf("the blocker's link led to a card in column %q, want in_progress", got)
	}
	var inView bool
	alice.eval(`(() => { const r = `+target+`.getBoundingClientRect(); return r.top >= 0 && r.top < innerHeight; })()`, &inView)
	if !inView {
		t.Errorf("W-1's card is not in view after following the link")
	}
	boardCLI(t, db, "add", "Write the release notes") // W-7: the board is drawn again
	alice.await("W-7's card", `document.getElementById('b0-W-7') && `+target+`.classList.contains('target')`)

	// One above the other on a phone, nothing wider than the screen.
	alice.viewport(390, 844, true)
	alice.await("one column at 390 px", `(() => { const l = [...document.querySelectorAll('#boards .column')].map((c) => c.getBoundingClientRect().left);
		return l.length === 4 && l.every((x) => x === l[0]); })()`)
	var widths struct{ Page, Screen, Plot float64 }
	alice.eval(`({Page: document.documentElement.scrollWidth, Screen: innerWidth, Plot: document.querySelector('#plot-calls').getBoundingClientRect().width})`, &widths)
	if widths.Page > widths.Screen || widths.Plot < 300 {
		t.Errorf("at 390 px: page %v px wide on a %v px screen, a plot %v px wide; want nothing wider than the screen and each plot across it", widths.Page, widths.Screen, widths.Plot)
	}
	screenshotTo(t, alice, "dashboard-390.png")
	if v := alice.text("JSON.stringify(window.__csp)"); v != "[]" {
		t.Errorf("CSP violations on the dashboard: %s, want none", v)
	}

	// A second host on the same board: the team's tasks, its own plots.
	g2 := startTeamGateway(t, "host-b", db)
	other := login(b, strings.TrimSuffix(g2.url, "/mcp"), browserAlice)
	other.await("host-b's dashboard with the team's board", columnsJS+`.includes('"W-2!"') && document.getElementById('b0-W-7') &&
		document.getElementById('host-name').textContent === 'host-b' && `+plotCalls+` === '0 calls in the hour'`)

	// bob is no operator: the board is the team's, the plots only his own.
	bob := login(b, base, browserBob)
	bob.await("bob's board and plots", "document.getElementById('b0-W-2') !== null && "+plotCalls+" === '2 calls in the hour'")
	var bobSees struct {
		Heading string
		Host    struct {
			Own     bool
			Samples []struct{ Calls, Sessions int }
		}
	}
	bob.eval(`fetch('/dashboard/state').then((r) => r.json()).then((s) => ({Heading: document.querySelector('#host h2').textContent, Host: s.host}))`, &bobSees)
	bobCalls, bobSessions := 0, 0
	for _, m := range bobSees.Host.Samples {
		bobCalls, bobSessions = bobCalls+m.Calls, max(bobSessions, m.Sessions)
	}
	if !strings.HasPrefix(bobSees.Heading, "Your sessions and calls on host-a") || !bobSees.Host.Own || bobCalls != 2 || bobSessions != 1 {
		t.Errorf("bob (no operator): heading %q, own %v, %d calls, %d sessions at most; want his own plots: 2 calls, 1 session",
			bobSees.Heading, bobSees.Host.Own, bobCalls, bobSessions)
	}
}

// screenshotTo saves a screenshot of p under bin/ (not committed) and in
// the test's artifacts.
func screenshotTo(t *testing.T, p *page, name string) {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p.screenshot(filepath.Join(dir, name))
	p.screenshot(filepath.Join(t.ArtifactDir(), name))
	t.Logf("screenshot: %s", filepath.Join(dir, name))
}
