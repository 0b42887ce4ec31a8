//go:build linux

package test

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// nobody is the unprivileged user the tests run a gateway as.
const nobody = 65534

// nobodyDir creates a directory uid nobody owns, reachable by it (not under
// the test's 0700 temporary directories), removed at the end of the test.
func nobodyDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "boris-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chown(dir, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	return dir
}

// nobodyBinaries copies boris-gateway and boris into a directory uid
// nobody may read and run (the test run's build directory is private),
// and returns the gateway's path; the gateway finds boris beside it.
func nobodyBinaries(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "boris-nobody-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for src, name := range map[string]string{gatewayBin(t): "boris-gateway", borisBin: "boris"} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "boris-gateway")
}

// TestGatewayUnprivilegedStaleCgroup: a gateway running as an unprivileged
// user whose cgroup root holds a root-owned sessions cgroup (left by a
// gateway that ran as root) does not take it over. With --cgroups auto it
// runs its sessions without cgroups (the subreaper), says so, and
// initialize succeeds; with --cgroups required it refuses to start, naming
// the directory and its owner.
func TestGatewayUnprivilegedStaleCgroup(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: creates a root-owned cgroup and runs the gateway as uid 65534")
	}
	parent, why := isoCgroupV2Dir()
	if why != "" {
		t.Skip(why)
	}
	root, err := os.MkdirTemp(parent, "boris-unprivileged-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { isoRemoveCgroupTree(t, root) })
	// The root is delegated to nobody, as systemd's Delegate=yes gives a
	// service's cgroup to its user: the directory and the files through
	// which it hands out processes and controllers.
	for _, p := range []string{root, filepath.Join(root, "cgroup.procs"), filepath.Join(root, "cgroup.subtree_control"), filepath.Join(root, "cgroup.threads")} {
		if err := os.Chown(p, nobody, nobody); err != nil {
			t.Fatal(err)
		}
	}
	stale := filepath.Join(root, "boris-sessions")
	if err := os.Mkdir(stale, 0o755); err != nil {
		t.Fatal(err)
	}
	gateway := nobodyBinaries(t)
	home, work := nobodyDir(t), nobodyDir(t)
	env := cleanEnv("HOME="+home, "XDG_STATE_HOME="+filepath.Join(home, "state"), "TMPDIR="+home)
	command := func(cgroups string) *exec.Cmd {
		cmd := exec.Command(gateway, "--listen", "127.0.0.1:0", "--auth", "none", "--cgroups", cgroups, "--cgroup-root", root, "--", "--workdir", work)
		cmd.Env = env
		cmd.Dir = home
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		return cmd
	}

	t.Run("required", func(t *testing.T) {
		cmd := command("required")
		stderr := &syncWriter{b: &strings.Builder{}}
		cmd.Stderr = stderr
		done := make(chan struct{})
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() {
			_ = cmd.Wait()
			close(done)
		}()
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			<-done
		})
		waitFor(t, "boris-gateway to exit", func() bool {
			if gatewayListeningRe.MatchString(stderr.String()) {
				t.Fatalf("--cgroups required: the gateway started, want a refusal at start-up; log:\n%s", stderr)
			}
			select {
			case <-done:
				return true
			default:
				return false
			}
		})
		if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(stderr.String(), stale) || !strings.Contains(stderr.String(), "uid 0") {
			t.Errorf("--cgroups required: got exit %d, stderr %q; want exit 2 naming %s and its owner, uid 0", code, stderr.String(), stale)
		}
	})

	t.Run("auto", func(t *testing.T) {
		g := runGatewayProc(t, command("auto"), work, false)
		warned := false
		for line := range strings.Lines(g.stderr.String()) {
			warned = warned || strings.Contains(line, "level=WARN") && strings.Contains(line, "subreaper") && strings.Contains(line, stale)
		}
		if log := g.stderr.String(); !warned {
			t.Errorf("log: want a warning that sessions run without cgroups (subreaper), naming %s; got:\n%s", stale, log)
		}
		resp, body := g.do(http.MethodPost, gwHeader(""), gwInitialize)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" || !strings.Contains(string(body), `"result"`) {
			t.Errorf("initialize: got %d %s, want 200, a session id and a result", resp.StatusCode, body)
		}
		hresp, err := http.Get(strings.TrimSuffix(g.url, "/mcp") + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		defer hresp.Body.Close()
		health, _ := io.ReadAll(hresp.Body)
		if !strings.Contains(string(health), `"cgroup":"off"`) || !strings.Contains(string(health), `"subreaper":true`) {
			t.Errorf("/healthz: got %s, want cgroup off and the subreaper", health)
		}
	})
}
