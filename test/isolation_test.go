package test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The isolation tests (issue 9, docs/reference/security.md) attack the documented multi-user
// set-up as a hostile tenant would: a token file and a JWT HMAC secret file
// outside the template root, --workdir-template, two principals. Principal
// A is the static token alice (every scope); principal B is a JWT with sub
// bob, with the scopes each case needs. Every case asserts what the
// attacker would notice: a refusal, and the victim unharmed.

// isoRefusedRe matches the kernel's refusals as commands print them:
// EACCES, EPERM, and EXDEV (Landlock's answer to a link or rename that
// would move a file between domains; both directories here lie on one file
// system, so nothing else returns it).
var isoRefusedRe = regexp.MustCompile(`Permission denied|Operation not permitted|Invalid cross-device link`)

var (
	isoExitRe = regexp.MustCompile(`(?m)^exit_code: (-?\d+)\s*$`)
	isoTaskRe = regexp.MustCompile(`task_id: (task_[0-9a-f]{8})`)
)

// isoFixture holds the gateway's secret files, in a directory of their own
// outside every template root.
type isoFixture struct {
	tokenFile, secretFile string
}

// newIsoFixture writes the token file (alice's static token) and the JWT
// HMAC secret file.
func newIsoFixture(t *testing.T) isoFixture {
	t.Helper()
	dir := filepath.Join(realTempDir(t), "secrets")
	f := isoFixture{tokenFile: filepath.Join(dir, "tokens"), secretFile: filepath.Join(dir, "jwt-secret")}
	writeFile(t, f.tokenFile, "# Boris tokens\nalice="+authAlice+"\n")
	writeFile(t, f.secretFile, authSecret)
	return f
}

// args are the gateway flags of the multi-user set-up with principals'
// directories under root, then extra.
func (f isoFixture) args(root string, extra ...string) []string {
	return append([]string{
		"--token-file", f.tokenFile, "--jwt-secret-file", f.secretFile, "--jwt-audience", authAudience,
		"--workdir-template", filepath.Join(root, "{sub}"),
	}, extra...)
}

// isoEnv is the gateway's environment beyond the test's own (cores inherit
// it): a Go toolchain on PATH that builds offline, when the test machine
// has one, and the operator's own caches (Go's, npm's, XDG_CACHE_HOME) in
// a directory of the test's, as in a developer's shell: the gateway must
// give each principal caches of its own instead (isoOperatorCaches).
func isoEnv(t *testing.T) []string {
	t.Helper()
	op := isoOperatorCaches(t)
	env := []string{"GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOPROXY=off", "GOENV=off",
		"XDG_CACHE_HOME=" + op, "GOCACHE=" + filepath.Join(op, "go-build"), "GOMODCACHE=" + filepath.Join(op, "go-mod"),
		"GOPATH=" + filepath.Join(op, "gopath"), "npm_config_cache=" + filepath.Join(op, "npm")}
	if root, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		env = append(env, "PATH="+filepath.Join(strings.TrimSpace(string(root)), "bin")+":"+os.Getenv("PATH"))
	}
	return env
}

// isoOperatorCaches is the operator's cache directory for test t's
// gateway: outside every principal's directory, created empty.
func isoOperatorCaches(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(realTempDir(t), "operator-cache")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// isoGateway is a gateway of the multi-user set-up.
type isoGateway struct {
	*authGateway
	root string // the template root
}

// startIsoGateway starts a gateway of the multi-user set-up with extra
// gateway flags, and a cgroup root of its own unless they say --cgroups
// off. Without Landlock it adds --allow-readable-secrets, so that what does
// not depend on the sandbox (cores' lifetimes) is still tested.
func startIsoGateway(t *testing.T, f isoFixture, extra ...string) *isoGateway {
	t.Helper()
	root := filepath.Join(realTempDir(t), "work")
	if !landlockAvailable() {
		extra = append(extra, "--allow-readable-secrets")
	}
	if i := slices.Index(extra, "--cgroups"); i < 0 || i+1 >= len(extra) || extra[i+1] != "off" {
		extra = append(extra, isoCgroupRoot(t)...)
	}
	g := &isoGateway{authGateway: startAuthGateway(t, isoEnv(t), f.args(root, extra...)...), root: root}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("boris-gateway log:\n%s", g.stderr)
		}
	})
	return g
}

// isoHealth is the isolation report of /healthz.
type isoHealth struct {
	Sandbox      string `json:"sandbox"`
	LandlockABI  int    `json:"landlock_abi"`
	Cgroup       string `json:"cgroup"`
	Subreaper    bool   `json:"subreaper"`
	PerPrincipal bool   `json:"per_principal"`
}

// isoHealthOf reads /healthz's isolation report; ok is false when /healthz does
// not answer 200.
func isoHealthOf(t *testing.T, g *authGateway) (h isoHealth, ok bool) {
	t.Helper()
	resp, err := gwClient.Get(strings.TrimSuffix(g.url, "/mcp") + "/healthz")
	if err != nil {
		return h, false
	}
	defer resp.Body.Close()
	var body struct {
		Isolation *isoHealth `json:"isolation"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusOK {
		return h, false
	}
	if body.Isolation == nil {
		t.Fatalf("/healthz: got no isolation report, want one")
	}
	return *body.Isolation, true
}

// isoAlive reports whether pid is a live process (not a zombie).
func isoAlive(pid int) bool {
	stat, err := readProcStat(pid)
	return err == nil && !isZombie(stat)
}

// isoSession is one principal's MCP session through the gateway.
type isoSession struct {
	*mcp.ClientSession
	token string
	dir   string // its working directory (from pwd), "" without bash
}

// isoConnect opens a session with token (none when empty). It is closed at
// the end of the test.
func isoConnect(t *testing.T, url, token string) *mcp.ClientSession {
	t.Helper()
	var rt http.RoundTripper = http.DefaultTransport
	if token != "" {
		rt = authBearerTransport{token}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "boris-e2e-isolation", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: url, HTTPClient: &http.Client{Transport: rt}, DisableStandaloneSSE: true, MaxRetries: -1,
	}, &mcp.ClientSessionOptions{ProtocolVersion: sessionRevision})
	if err != nil {
		t.Fatalf("connect through the gateway: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// open opens a session of the principal token; when it may run bash, its
// working directory is read with pwd.
func (g *isoGateway) open(t *testing.T, token string, bash bool) *isoSession {
	t.Helper()
	s := &isoSession{ClientSession: isoConnect(t, g.url, token), token: token}
	if bash {
		s.dir = isoFirstLine(isoBash(t, s, "pwd"))
		if !strings.HasPrefix(s.dir, g.root+"/") {
			t.Fatalf("pwd: got %q, want a directory under the template root %s", s.dir, g.root)
		}
	}
	return s
}

// isoCall runs a tool, failing the test on a protocol error.
func isoCall(t *testing.T, s *isoSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s %v: protocol error: %v", name, args, err)
	}
	return res
}

// isoOK runs a tool and fails the test unless it succeeds.
func isoOK(t *testing.T, s *isoSession, name string, args map[string]any) string {
	t.Helper()
	res := isoCall(t, s, name, args)
	if res.IsError {
		t.Fatalf("call %s %v: got error %q, want success", name, args, text(res))
	}
	return text(res)
}

// isoBash runs a foreground bash command and returns its result text
// ("stdout:\n...", exit_code last), whatever its exit code.
func isoBash(t *testing.T, s *isoSession, command string) string {
	t.Helper()
	return isoOK(t, s, "bash", map[string]any{"command": command})
}

// isoStartTask starts command as a background task and returns its id.
func isoStartTask(t *testing.T, s *isoSession, command string) string {
	t.Helper()
	out := isoOK(t, s, "bash", map[string]any{"command": command, "run_in_background": true})
	m := isoTaskRe.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("bash run_in_background: got %q, want a task_id", out)
	}
	return m[1]
}

// isoTask runs command as a background task and returns task_output's
// final result.
func isoTask(t *testing.T, s *isoSession, command string) string {
	t.Helper()
	id := isoStartTask(t, s, command)
	out := isoOK(t, s, "task_output", map[string]any{"task_id": id, "timeout": 60000})
	if !strings.Contains(out, "status: completed") {
		t.Fatalf("task_output %s: got %q, want status: completed", id, out)
	}
	return out
}

// isoFirstLine returns the first line of stdout in a bash result.
func isoFirstLine(out string) string {
	_, rest, _ := strings.Cut(out, "stdout:\n")
	line, _, _ := strings.Cut(rest, "\n")
	return line
}

// isoExitCode reads the exit_code line of a bash or task result, -1 without.
func isoExitCode(out string) int {
	m := isoExitRe.FindStringSubmatch(out)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// isoWantEcho fails the test unless session s still runs a bash command.
func isoWantEcho(t *testing.T, s *isoSession, who string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "echo still-here"}})
	if err != nil || res.IsError || !strings.Contains(text(res), "still-here") || isoExitCode(text(res)) != 0 {
		got := fmt.Sprint(err)
		if err == nil {
			got = text(res)
		}
		t.Errorf("%s's session: echo got %q, want it to keep working", who, got)
	}
}

// corePid returns the pid of the core serving s, found from the test's
// side: the live child of the gateway named boris whose command line names
// s's directory and which is an ancestor of a command s runs (a
// background sleep with a marker, found in the host's /proc: in a
// session's own PID namespace its pids are not the host's).
func (g *isoGateway) corePid(t *testing.T, s *isoSession) int {
	t.Helper()
	var cores []int
	for _, pid := range authChildren(g.cmd.Process.Pid) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		argv := strings.Split(string(b), "\x00")
		if err == nil && filepath.Base(argv[0]) == "boris" && slices.Contains(argv, s.dir) {
			cores = append(cores, pid)
		}
	}
	m := gwSleepMarker()
	id := isoStartTask(t, s, "exec sleep "+m)
	defer isoOK(t, s, "task_stop", map[string]any{"task_id": id})
	waitFor(t, "sleep "+m+" to run", func() bool { return isSleepingExactly(m) })
	cmd, _ := strconv.Atoi(processesWith("sleep " + m)[0])
	for pid := cmd; pid > 1; pid = parentOf(pid) {
		if slices.Contains(cores, pid) {
			return pid
		}
	}
	t.Fatalf("the core of the session in %s: its command %d descends from none of the gateway's cores there %v", s.dir, cmd, cores)
	return 0
}

// isSleepingExactly reports whether one live process runs sleep marker.
func isSleepingExactly(marker string) bool {
	for _, pid := range processesWith(marker) {
		if b, err := os.ReadFile("/proc/" + pid + "/cmdline"); err == nil && string(b) == "sleep\x00"+marker+"\x00" {
			return true
		}
	}
	return false
}

// isoStateOutsideTmp is treeState of a principal's directory without its
// .tmp, where that principal's own cores come and go.
func isoStateOutsideTmp(t *testing.T, dir string) map[string]string {
	t.Helper()
	state := treeState(t, dir)
	// B's own calls record checkpoints in B's state directory, under its home.
	for _, own := range []string{filepath.Join(dir, ".tmp"), filepath.Join(dir, ".local", "state", "boris")} {
		for path := range state {
			if path == own || strings.HasPrefix(path, own+"/") {
				delete(state, path)
			}
		}
	}
	return state
}

// TestIsolation attacks one gateway of the multi-user set-up with a
// read-scope principal and an exec-scope principal, and runs a developer's
// everyday work inside the sandbox.
func TestIsolation(t *testing.T) {
	t.Parallel()
	if !landlockAvailable() {
		t.Skip("this kernel offers no Landlock (landlock_create_ruleset fails): commands cannot be confined, and the gateway refuses this set-up")
	}
	f := newIsoFixture(t)
	// Landlock alone, as where namespaces cannot be made: the attacks name
	// the gateway's and B's core's pids, which a session's own PID
	// namespace would not even show (TestNetTenants attacks that layer).
	g := startIsoGateway(t, f, "--sandbox-net", "host")
	if h, ok := isoHealthOf(t, g.authGateway); !ok || h.Sandbox != "landlock" || !h.PerPrincipal || !h.Subreaper {
		t.Errorf("/healthz isolation: got %+v (answered: %v), want sandbox landlock, per_principal and subreaper", h, ok)
	}
	t.Run("read scope", func(t *testing.T) { t.Parallel(); testIsoReadScope(t, g, f) })
	t.Run("exec scope", func(t *testing.T) { t.Parallel(); testIsoExecScope(t, g) })
	t.Run("workflow", func(t *testing.T) { t.Parallel(); testIsoWorkflow(t, g) })
}

// testIsoReadScope: B with boris:read only asks the file tools for the
// gateway's secrets and A's files, and is refused with ACCESS_DENIED.
func testIsoReadScope(t *testing.T, g *isoGateway, f isoFixture) {
	alice := g.open(t, authAlice, true)
	diary := "alice's diary " + gwSleepMarker()
	isoOK(t, alice, "create_file", map[string]any{"path": "diary.txt", "content": diary + "\n"})
	bob := g.open(t, authHMACToken(t, "bob", "boris:read"), false)

	secrets := filepath.Dir(f.tokenFile)
	leaks := []string{authAlice, authSecret, diary}
	tests := []struct {
		name string
		tool string
		args map[string]any
	}{
		{"view the token file", "view", map[string]any{"path": f.tokenFile}},
		{"view the JWT secret", "view", map[string]any{"path": f.secretFile}},
		{"view the secrets' directory", "view", map[string]any{"path": secrets}},
		{"view A's directory", "view", map[string]any{"path": alice.dir}},
		{"view A's file", "view", map[string]any{"path": filepath.Join(alice.dir, "diary.txt")}},
		{"grep the token file", "grep", map[string]any{"pattern": "=", "path": f.tokenFile, "output_mode": "content"}},
		{"grep the JWT secret", "grep", map[string]any{"pattern": ".", "path": f.secretFile, "output_mode": "content"}},
		{"grep the secrets' directory", "grep", map[string]any{"pattern": ".", "path": secrets, "output_mode": "content"}},
		{"grep A's directory", "grep", map[string]any{"pattern": "diary", "path": alice.dir, "output_mode": "content"}},
		{"glob the secrets' directory", "glob", map[string]any{"pattern": "*", "path": secrets}},
		{"glob A's directory", "glob", map[string]any{"pattern": "**", "path": alice.dir}},
		{"glob the token file by absolute pattern", "glob", map[string]any{"pattern": f.tokenFile}},
		{"glob A's files by absolute pattern", "glob", map[string]any{"pattern": filepath.Join(alice.dir, "*")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := isoCall(t, bob, tt.tool, tt.args)
			got := text(res)
			if !res.IsError || !strings.HasPrefix(got, "[ACCESS_DENIED]") {
				t.Errorf("got isError=%v %q, want [ACCESS_DENIED]", res.IsError, got)
			}
			for _, leak := range leaks {
				if strings.Contains(got, leak) {
					t.Errorf("got %q, want no trace of %q", got, leak)
				}
			}
		})
	}
}

// isoAttack is a command principal A runs against B, the gateway or B's
// core. The command is a format with %[1]s = B's directory, %[2]d = the
// gateway's pid, %[3]d = B's core's pid.
type isoAttack struct {
	name    string
	command string
	abi     int // the Landlock ABI the refusal needs
}

var isoAttacks = []isoAttack{
	{"read B's file", "cat %[1]s/secret.txt", 1},
	{"list B's directory", "ls -la %[1]s", 1},
	{"write B's file", "echo pwned >> %[1]s/secret.txt", 1},
	{"truncate B's file", "truncate -s 0 %[1]s/secret.txt", 1},
	{"create a file in B's directory", "echo pwned > %[1]s/planted", 1},
	{"make a directory in B's directory", "mkdir %[1]s/planted-dir", 1},
	{"symlink into B's directory", "ln -s /etc/passwd %[1]s/planted-link", 1},
	{"rename into B's directory", "echo mine > mine-$$ && mv mine-$$ %[1]s/planted-moved", 1},
	{"hard-link into B's directory", "echo mine > mine-$$ && ln mine-$$ %[1]s/planted-hardlink", 1},
	{"rename B's file out", "mv %[1]s/secret.txt stolen-$$ && cat stolen-$$", 1},
	{"hard-link B's file out", "ln %[1]s/secret.txt stolen-$$ && cat stolen-$$", 1},
	{"read the gateway's environ", "cat /proc/%[2]d/environ", 1},
	{"read B's core's environ", "cat /proc/%[3]d/environ", 1},
	{"SIGTERM the gateway", "kill -TERM %[2]d", 6},
	{"SIGKILL B's core", "kill -KILL %[3]d", 6},
}

// testIsoExecScope: A, with every scope, attacks B's directory, the
// gateway and B's core from a foreground command and from a background
// task; the kernel refuses each attack and B notices nothing.
func testIsoExecScope(t *testing.T, g *isoGateway) {
	bob := g.open(t, authHMACToken(t, "bob", "boris:read boris:write boris:exec"), true)
	secret := "bob's secret " + gwSleepMarker()
	isoOK(t, bob, "create_file", map[string]any{"path": "secret.txt", "content": secret + "\n"})
	isoOK(t, bob, "create_file", map[string]any{"path": "Makefile", "content": "all:\n\techo bob\n"})
	alice := g.open(t, authAlice, true)
	if alice.dir == bob.dir {
		t.Fatalf("A and B share the directory %s, want one each", alice.dir)
	}
	gwPid, bobCore := g.cmd.Process.Pid, g.corePid(t, bob)
	before := isoStateOutsideTmp(t, bob.dir)
	leaks := []string{secret, "HOME=", "PATH="}

	runs := []struct {
		name string
		run  func(*testing.T, *isoSession, string) string
	}{
		{"foreground bash", isoBash},
		{"background task", isoTask},
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			for _, a := range isoAttacks {
				t.Run(a.name, func(t *testing.T) {
					if abi := landlockABI(); abi < a.abi {
						t.Skipf("this kernel's Landlock ABI is %d; refusing this needs ABI %d (scoped signals)", abi, a.abi)
					}
					out := r.run(t, alice, fmt.Sprintf(a.command, bob.dir, gwPid, bobCore))
					if isoExitCode(out) == 0 || !isoRefusedRe.MatchString(out) {
						t.Errorf("got %.600q, want a non-zero exit and the kernel's refusal (%s)", out, isoRefusedRe)
					}
					for _, leak := range leaks {
						if strings.Contains(out, leak) {
							t.Errorf("got output holding %q, want no trace of it", leak)
						}
					}
					if !isoAlive(gwPid) {
						t.Fatalf("the gateway (pid %d) is gone, want it running", gwPid)
					}
					if !isoAlive(bobCore) {
						t.Errorf("B's core (pid %d) is gone, want it running", bobCore)
					}
					isoWantEcho(t, bob, "B")
				})
			}
		})
	}
	assertSameState(t, before, isoStateOutsideTmp(t, bob.dir))
	if got := readFile(t, filepath.Join(bob.dir, "secret.txt")); got != secret+"\n" {
		t.Errorf("B's secret.txt: got %q, want it unchanged", got)
	}
	if _, ok := isoHealthOf(t, g.authGateway); !ok {
		t.Errorf("/healthz after the attacks: no answer, want the gateway serving")
	}
}

// testIsoWorkflow: ordinary development inside the sandbox, through the
// gateway, just works: git, go build, make, $TMPDIR.
func testIsoWorkflow(t *testing.T, g *isoGateway) {
	alice := g.open(t, authAlice, true)
	proj := filepath.Join(alice.dir, "proj")
	files := map[string]string{
		"proj/go.mod":   "module example.com/hello\n\ngo 1.21\n",
		"proj/main.go":  "package main\n\nfunc main() { println(\"hello from the sandbox\") }\n",
		"proj/Makefile": "greeting.txt:\n\techo made by make > $@\n",
	}
	for path, content := range files {
		isoOK(t, alice, "create_file", map[string]any{"path": path, "content": content})
	}
	steps := []struct {
		name    string
		command string
		want    string // in the output
		needs   string // a program on the test machine's PATH
	}{
		{"git init, add, commit", "cd " + proj + " && git init -q && git add -A && git -c user.name=Alice -c user.email=alice@example.com commit -q -m init && git log --oneline", "init", "git"},
		{"go build", "cd " + proj + " && go version && go build -o hello . && ./hello", "hello from the sandbox", "go"},
		{"make", "cd " + proj + " && make && cat greeting.txt", "made by make", "make"},
		{"$TMPDIR", `echo scratch > "$TMPDIR/scratch.txt" && cat "$TMPDIR/scratch.txt" && echo "tmp=$TMPDIR"`, "tmp=" + filepath.Join(alice.dir, ".tmp") + "/", ""},
		{"npm cache", `npm config get cache`, "/npm", "npm"},
	}
	defer testIsoCaches(t, g, alice)
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if st.needs != "" {
				if _, err := exec.LookPath(st.needs); err != nil {
					t.Skipf("%s is not installed on this machine: %v", st.needs, err)
				}
			}
			out := isoBash(t, alice, st.command)
			if isoExitCode(out) != 0 || !strings.Contains(out, st.want) {
				t.Errorf("got %q, want exit_code 0 and %q", out, st.want)
			}
		})
	}
}

// testIsoCaches: after alice's builds, the operator's caches (the
// gateway's XDG_CACHE_HOME, GOCACHE...) are untouched, alice's caches lie
// outside her working tree and the operator's, and alice's commands can
// neither read nor plant anything in another principal's caches.
func testIsoCaches(t *testing.T, g *isoGateway, alice *isoSession) {
	t.Run("own build caches", func(t *testing.T) {
		op := isoEnvValue(g.cmd.Env, "XDG_CACHE_HOME")
		if entries, err := os.ReadDir(op); err != nil || len(entries) != 0 {
			t.Errorf("the operator's cache %s: got %v (%v), want it empty", op, entries, err)
		}
		out := isoBash(t, alice, `printf '%s\n' "$XDG_CACHE_HOME" "$GOCACHE" "$GOMODCACHE" "$GOPATH" "$npm_config_cache"`)
		dirs := slices.DeleteFunc(strings.Fields(out), func(f string) bool { return !strings.HasPrefix(f, "/") })
		if len(dirs) < 4 {
			t.Fatalf("alice's caches: got %q, want XDG_CACHE_HOME, GOCACHE, GOMODCACHE and GOPATH set", out)
		}
		for _, dir := range dirs {
			if strings.HasPrefix(dir, op) || (strings.HasPrefix(dir, alice.dir+"/") && !strings.HasPrefix(dir, filepath.Join(alice.dir, "go"))) {
				t.Errorf("a cache of alice's commands: got %s, want it outside the operator's %s and (but GOPATH) outside %s", dir, op, alice.dir)
			}
		}
		bob := g.open(t, authHMACToken(t, "bob", "boris:read boris:write boris:exec"), true)
		isoWantEcho(t, bob, "B")
		attack := `ls "$XDG_CACHE_HOME/../jwt+bob"; touch "$XDG_CACHE_HOME/../jwt+bob/planted"`
		if out := isoBash(t, alice, attack); isoExitCode(out) == 0 || !isoRefusedRe.MatchString(out) {
			t.Errorf("alice reaching bob's caches: got %.600q, want the kernel's refusal (%s)", out, isoRefusedRe)
		}
	})
}

// isoEnvValue is name's last value in environ, or "".
func isoEnvValue(environ []string, name string) string {
	v := ""
	for _, kv := range environ {
		if rest, ok := strings.CutPrefix(kv, name+"="); ok {
			v = rest
		}
	}
	return v
}
