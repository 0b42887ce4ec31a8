package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mjkoo/boris/internal/netns"
)

// TestSpawnerGitDomain: a session spawner given a GitDomain starts the
// checkpoints' git in a domain that may write the shadow repository and
// only read the tree, while the commands it starts (and its extension
// tools, with an extension area) may write the tree (or the area) but
// neither read, list nor write the shadow, hold no descriptor of it, and
// cannot reach a running git (its environment, signals); nor can git
// reach them.
func TestSpawnerGitDomain(t *testing.T) {
	if abiVersion(nil) < 1 {
		t.Skip("needs Landlock (Linux 5.13+ with landlock enabled); this kernel has none")
	}
	for _, withExt := range []bool{false, true} {
		t.Run("extensions "+strconv.FormatBool(withExt), func(t *testing.T) {
			root := t.TempDir()
			tree, shadow := filepath.Join(root, "tree"), filepath.Join(root, "state", "shadow")
			for _, d := range []string{tree, shadow} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(shadow, "HEAD"), []byte("ref: refs/heads/main\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(tree, "f"), []byte("tree file\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			opts := Options{Allowed: []string{tree}}
			if withExt {
				opts.ExtensionRoot = filepath.Join(root, "state", "ext")
			}
			s, err := New(opts)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			area := s.ExtDir()
			sp := startGitSpawner(t, s, tree, shadow)
			if !sp.HasGit() {
				t.Fatal("HasGit: got false, want the spawner to start git")
			}
			out := filepath.Join(root, "out")
			start := func(domain, script string) (int, <-chan syscall.WaitStatus) {
				t.Helper()
				f, err := os.Create(out + domain)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				null, _ := os.Open(os.DevNull)
				defer null.Close()
				argv, env, files := []string{"/bin/sh", "-c", script}, []string{"PATH=/usr/bin:/bin", "SECRET=" + domain + "-secret"}, [3]*os.File{null, f, f}
				var pid int
				var wait <-chan syscall.WaitStatus
				switch domain {
				case "git":
					pid, wait, err = sp.StartGit(argv, tree, env, files)
				case "ext":
					pid, wait, err = sp.StartExtension(argv, tree, env, files)
				default:
					pid, wait, err = sp.Start(argv, tree, env, files)
				}
				if err != nil {
					t.Fatal(err)
				}
				return pid, wait
			}
			run := func(domain, script string) string {
				t.Helper()
				_, wait := start(domain, script)
				<-wait
				data, _ := os.ReadFile(out + domain)
				return string(data)
			}
			try := func(what, cmd string) string {
				return "(" + cmd + ") >/dev/null 2>&1 && echo '" + what + " allowed' || echo '" + what + " refused'; "
			}
			shadowProbe := try("read", "cat "+shadow+"/HEAD") + try("list", "ls "+shadow) + try("write", "echo x > "+shadow+"/planted")
			if got, want := run("git", try("read tree", "cat "+tree+"/f")+try("write tree", "echo x > "+tree+"/by-git")+shadowProbe),
				"read tree allowed\nwrite tree refused\nread allowed\nlist allowed\nwrite allowed\n"; got != want {
				t.Errorf("git's domain: got\n%swant\n%s", got, want)
			}
			if got, want := run("cmd", try("write tree", "echo x > "+tree+"/by-command")+shadowProbe),
				"write tree allowed\nread refused\nlist refused\nwrite refused\n"; got != want {
				t.Errorf("a command: got\n%swant\n%s", got, want)
			}
			// No descriptor of the shadow is inherited: the spawner closed
			// the one it was given.
			if got := run("cmd", "for f in /proc/self/fd/*; do readlink $f; done"); strings.Contains(got, shadow) {
				t.Errorf("a command's descriptors: got\n%s\nwant none on the shadow (%s)", got, shadow)
			}
			if withExt {
				if got, want := run("ext", try("write area", "echo x > "+area+"/f")+shadowProbe),
					"write area allowed\nread refused\nlist refused\nwrite refused\n"; got != want {
					t.Errorf("an extension tool: got\n%swant\n%s", got, want)
				}
				if got, want := run("git", try("write area", "echo x > "+area+"/by-git")), "write area refused\n"; got != want {
					t.Errorf("git writing the extension area: got %q, want %q", got, want)
				}
			}
			// A running git and a running command cannot reach each other.
			for _, pair := range [][2]string{{"git", "cmd"}, {"cmd", "git"}} {
				pid, wait := start(pair[0], "sleep 30")
				p := strconv.Itoa(pid)
				got := run(pair[1], "{ tr '\\0' '\\n' < /proc/"+p+"/environ; } 2>/dev/null | grep -c SECRET=; kill -0 "+p+" 2>/dev/null && echo signalled || echo unsignalled")
				_ = syscall.Kill(pid, syscall.SIGKILL)
				<-wait
				if !strings.HasPrefix(got, "0\n") || (abiVersion(nil) >= 6 && !strings.Contains(got, "unsignalled")) {
					t.Errorf("%s reaching a running %s (pid %s): got %q, want its environment unreadable and, with signal scoping (ABI 6), no signal", pair[1], pair[0], p, got)
				}
			}
		})
	}
}

// TestSpawnerGitDomainNotInNamespaces: a spawner born in namespaces of its
// own takes no GitDomain (its shadow would have to be in the commands'
// private root): HasGit says so, and StartGit refuses.
func TestSpawnerGitDomainNotInNamespaces(t *testing.T) {
	if abiVersion(nil) < 1 {
		t.Skip("needs Landlock (Linux 5.13+ with landlock enabled); this kernel has none")
	}
	tree := t.TempDir()
	s, err := New(Options{Allowed: []string{tree}, Net: netns.None})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if !s.Namespaces() {
		t.Skip("needs user and network namespaces, which this machine refuses: " + s.nsWhy)
	}
	sp := startGitSpawner(t, s, tree, t.TempDir())
	null, _ := os.Open(os.DevNull)
	defer null.Close()
	if sp.HasGit() {
		t.Error("HasGit in namespaces: got true, want false")
	}
	if _, _, err := sp.StartGit([]string{"/bin/true"}, tree, nil, [3]*os.File{null, null, null}); err == nil {
		t.Error("StartGit in namespaces: got no error, want a refusal")
	}
}

// startGitSpawner starts s's session spawner with a GitDomain reading tree
// and writing shadow, closed at the test's end.
func startGitSpawner(t *testing.T, s *Sandbox, tree, shadow string) *Spawner {
	t.Helper()
	dir, err := os.Open(shadow)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := s.StartSpawner(nil, &GitDomain{Read: []string{tree}, Shadow: dir})
	dir.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sp.Close(); _ = sp.Wait() })
	return sp
}
