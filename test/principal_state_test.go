//go:build linux

package test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// principalCall runs a tool in a gateway session and returns its text and
// whether it is an error, failing the test on a protocol error.
func principalCall(t *testing.T, s *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s %v: protocol error: %v", name, args, err)
	}
	return text(res), res.IsError
}

func principalOK(t *testing.T, s *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	out, isErr := principalCall(t, s, name, args)
	if isErr {
		t.Fatalf("call %s %v: got error %q, want success", name, args, out)
	}
	return out
}

var principalCheckpointRe = regexp.MustCompile(`cp_\d+`)

// TestPrincipalCheckpointsAndState runs the multi-user set-up
// (--workdir-template, two principals, a workspaces root in each
// principal's directory) with the gateway as root and, when the test runs
// as root, as an unprivileged user. For each principal: history, diff and
// undo work; its core's state (shadow repositories, board) lies in the
// gateway's state directory, not in its own tree; neither its file tools
// nor its commands reach that state; a workspace's nested .git is refused
// at any depth, a directory holding one cannot be moved in, and a filter
// planted in a workspace repository never runs.
func TestPrincipalCheckpointsAndState(t *testing.T) {
	t.Run("gateway as root or the test's user", func(t *testing.T) { principalStateCase(t, nil) })
	t.Run("gateway as an unprivileged user", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("needs root to start the gateway as uid 65534 (the case above runs as this user)")
		}
		principalStateCase(t, &syscall.Credential{Uid: nobody, Gid: nobody})
	})
}

func principalStateCase(t *testing.T, cred *syscall.Credential) {
	base, gateway := realTempDir(t), gatewayBin(t)
	if cred != nil {
		// Everything the unprivileged gateway uses is its own: binaries,
		// template root, state directory, HOME.
		base, gateway = nobodyDir(t), nobodyBinaries(t)
	}
	root, state, home := filepath.Join(base, "work"), filepath.Join(base, "state"), filepath.Join(base, "home")
	for _, d := range []string{root, state, home} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if cred != nil {
			if err := os.Chown(d, int(cred.Uid), int(cred.Gid)); err != nil {
				t.Fatal(err)
			}
		}
	}
	args := []string{"--token", "alice=" + authAlice, "--token", "bob=" + authBob,
		"--workdir-template", root + "/{sub}", "--state-dir", state, "--cgroups", "off"}
	if !landlockAvailable() {
		args = append(args, "--allow-readable-secrets")
	}
	g := startAuthGatewayWith(t, gateway, cred, []string{"HOME=" + home, "BORIS_WORKSPACES_ROOT=ws", "BORIS_TOOLSET=all"}, args...)
	alice, bob := g.connect(authAlice), g.connect(authBob)

	principalOK(t, alice, "create_file", map[string]any{"path": "notes.txt", "content": "one\n"})
	principalOK(t, alice, "str_replace", map[string]any{"path": "notes.txt", "old_str": "one", "new_str": "two"})
	hist := principalOK(t, alice, "history", map[string]any{})
	if ids := principalCheckpointRe.FindAllString(hist, -1); len(ids) < 2 || !strings.Contains(hist, "str_replace") {
		t.Fatalf("alice's history: got %q, want the create and the edit", hist)
	}
	if out := principalOK(t, alice, "diff", map[string]any{"checkpoint": principalCheckpointRe.FindString(hist)}); !strings.Contains(out, "+two") {
		t.Errorf("alice's diff: got %q, want the edit", out)
	}
	principalOK(t, alice, "undo", map[string]any{})
	if got := readFile(t, filepath.Join(root, "alice", "notes.txt")); got != "one\n" {
		t.Errorf("alice's notes.txt after undo: got %q, want %q", got, "one\n")
	}
	if out := principalOK(t, bob, "history", map[string]any{}); strings.Contains(out, "notes.txt") {
		t.Errorf("bob's history: got %q, want nothing of alice's", out)
	}
	principalOK(t, alice, "create_task", map[string]any{"description": "alice's plan"})

	// The state is the gateway's, outside alice's tree.
	shadows, _ := filepath.Glob(filepath.Join(state, "principals", "alice", "checkpoints", "*"))
	if len(shadows) != 1 {
		t.Fatalf("alice's shadow repositories under the gateway's state: got %v, want one", shadows)
	}
	if boards, _ := filepath.Glob(filepath.Join(state, "boards", "alice", "boris.db")); len(boards) != 1 {
		t.Errorf("alice's board under the gateway's state: got %v, want one", boards)
	}
	_ = filepath.WalkDir(filepath.Join(root, "alice"), func(p string, d os.DirEntry, err error) error {
		if err == nil && (d.Name() == "checkpoints" || d.Name() == "boris.db") {
			t.Errorf("alice's tree holds Boris's state: %s", p)
		}
		return nil
	})
	for _, p := range []string{filepath.Join(shadows[0], "config"), filepath.Join(state, "boards", "alice", "boris.db"), state} {
		if out, isErr := principalCall(t, alice, "view", map[string]any{"path": p}); !isErr {
			t.Errorf("alice's view %s: got %q, want a refusal", p, out)
		}
		if out, isErr := principalCall(t, alice, "write_file", map[string]any{"path": filepath.Join(p, "x"), "content": "x"}); !isErr {
			t.Errorf("alice's write_file under %s: got %q, want a refusal", p, out)
		}
	}
	if landlockAvailable() {
		out := principalOK(t, alice, "bash", map[string]any{"command": "cat " + filepath.Join(shadows[0], "config") + "; ls " + state + "; echo x > " + filepath.Join(shadows[0], "info", "attributes")})
		// Refused by Landlock, or, in a session's private root, not there.
		if !isoRefusedOrAbsentRe.MatchString(out) || strings.Contains(out, "repositoryformatversion") {
			t.Errorf("alice's commands on the gateway's state: got %q, want refusals", out)
		}
	}

	// Workspaces: nested .git refused at any depth, none moved in, no
	// planted filter run.
	principalOK(t, alice, "workspace_create", map[string]any{"name": "a"})
	ws := filepath.Join(root, "alice", "ws")
	for _, p := range []string{"ws/a/sub/.git/config", "ws/a/.git/config", "ws/a/x/y/.git/HEAD"} {
		if out, isErr := principalCall(t, alice, "write_file", map[string]any{"path": p, "content": "[filter \"x\"]\n\tclean = touch /tmp/boris-pwned\n"}); !isErr {
			t.Errorf("write_file %s: got %q, want a refusal", p, out)
		}
	}
	if out, isErr := principalCall(t, alice, "create_directory", map[string]any{"path": "ws/a/sub/.git"}); !isErr {
		t.Errorf("create_directory ws/a/sub/.git: got %q, want a refusal", out)
	}
	mark := filepath.Join(root, "alice", "pwned")
	principalOK(t, alice, "create_directory", map[string]any{"path": "evil/.git"})
	principalOK(t, alice, "write_file", map[string]any{"path": "evil/.git/HEAD", "content": "ref: refs/heads/main\n"})
	principalOK(t, alice, "write_file", map[string]any{"path": "evil/.git/config", "content": "[core]\n\trepositoryformatversion = 0\n[filter \"x\"]\n\tclean = sh -c 'touch " + mark + "; cat'\n"})
	principalOK(t, alice, "create_directory", map[string]any{"path": "evil/.git/objects"})
	principalOK(t, alice, "create_directory", map[string]any{"path": "evil/.git/refs"})
	principalOK(t, alice, "write_file", map[string]any{"path": "evil/.gitattributes", "content": "* filter=x\n"})
	for _, dst := range []string{"ws/evil", "ws/a/evil"} {
		if out, isErr := principalCall(t, alice, "move_file", map[string]any{"source": "evil", "destination": dst}); !isErr || !strings.Contains(out, "ACCESS_DENIED") {
			t.Errorf("move_file evil %s: got %q, want ACCESS_DENIED", dst, out)
		}
	}
	if _, err := os.Lstat(filepath.Join(ws, "evil")); err == nil {
		t.Errorf("ws/evil exists: a planted repository was moved in")
	}
	// A filter planted in the workspace's own repository (as a command
	// could) never runs when Boris commits.
	wsGit := filepath.Join(ws, "a", ".git")
	cfg, err := os.ReadFile(filepath.Join(wsGit, "config"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(wsGit, "config"), string(cfg)+"[filter \"x\"]\n\tclean = sh -c 'touch "+mark+"; cat'\n[core]\n\tfsmonitor = sh -c 'touch "+mark+"'\n")
	writeFile(t, filepath.Join(wsGit, "info", "attributes"), "* filter=x\n")
	writeFile(t, filepath.Join(ws, "a", ".gitattributes"), "* filter=x\n")
	if cred != nil {
		_ = filepath.WalkDir(filepath.Join(ws, "a"), func(p string, _ os.DirEntry, err error) error {
			if err == nil {
				_ = os.Lchown(p, int(cred.Uid), int(cred.Gid))
			}
			return nil
		})
	}
	if out := principalOK(t, alice, "write_file", map[string]any{"workspaceId": "a", "path": "f.txt", "content": "f\n"}); !strings.Contains(out, "Committed ") {
		t.Errorf("write_file in workspace a: got %q, want a commit", out)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Errorf("a filter planted in a workspace repository ran")
	}
}

// startAuthGatewayWith is startAuthGateway with the gateway binary at
// path, run with cred (nil: as the test's user).
func startAuthGatewayWith(t *testing.T, path string, cred *syscall.Credential, env []string, args ...string) *authGateway {
	t.Helper()
	cmd := exec.Command(path, append([]string{"--listen", "127.0.0.1:0"}, args...)...)
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	return runAuthGateway(t, cmd, env)
}
