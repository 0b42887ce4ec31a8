package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitIn runs git in dir with no user configuration, failing the test on error.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
	}
}

// TestCheckpointTreeShapes records, diffs and undoes in trees of every
// shape a user's working tree takes: nested repositories with and without
// commits, a .git file, a state directory inside the tree, a tree that
// holds the state directory's parent. Each works as in a plain tree: the
// start checkpoint, an outside change, an agent's edit and its undo; and
// nothing is logged as a failed or warned recording.
func TestCheckpointTreeShapes(t *testing.T) {
	shapes := []struct {
		name  string
		setup func(t *testing.T, tree string) []string // extra core env
	}{
		{"plain", func(*testing.T, string) []string { return nil }},
		{"nested repository without commits", func(t *testing.T, tree string) []string {
			gitIn(t, tree, "init", "-q", "empty")
			return nil
		}},
		{"nested repository with commits, edited inside", func(t *testing.T, tree string) []string {
			writeFile(t, filepath.Join(tree, "sub", "s.txt"), "s\n")
			gitIn(t, filepath.Join(tree, "sub"), "init", "-q")
			gitIn(t, filepath.Join(tree, "sub"), "add", "s.txt")
			gitIn(t, filepath.Join(tree, "sub"), "commit", "-qm", "s")
			return nil
		}},
		{".git file", func(t *testing.T, tree string) []string {
			writeFile(t, filepath.Join(tree, "wt", ".git"), "gitdir: /nonexistent/worktrees/wt\n")
			writeFile(t, filepath.Join(tree, "wt", "w.txt"), "w\n")
			return nil
		}},
		{"tree is a repository", func(t *testing.T, tree string) []string {
			gitIn(t, tree, "init", "-q")
			return nil
		}},
		{"tree with a submodule", func(t *testing.T, tree string) []string {
			src := realTempDir(t)
			writeFile(t, filepath.Join(src, "m.txt"), "m\n")
			gitIn(t, src, "init", "-q")
			gitIn(t, src, "add", "m.txt")
			gitIn(t, src, "commit", "-qm", "m")
			gitIn(t, tree, "init", "-q")
			gitIn(t, tree, "-c", "protocol.file.allow=always", "submodule", "add", "-q", src, "mod")
			return nil
		}},
		{"tree is a worktree of another repository", func(t *testing.T, tree string) []string {
			main := realTempDir(t)
			writeFile(t, filepath.Join(main, "r.txt"), "r\n")
			gitIn(t, main, "init", "-q")
			gitIn(t, main, "add", "r.txt")
			gitIn(t, main, "commit", "-qm", "r")
			gitIn(t, main, "worktree", "add", "-q", filepath.Join(tree, "wt"))
			return nil
		}},
		{"state directory inside the tree", func(t *testing.T, tree string) []string {
			return []string{"XDG_STATE_HOME=" + filepath.Join(tree, ".state")}
		}},
		{"tree is the state directory's parent", func(t *testing.T, tree string) []string {
			return []string{"BORIS_STATE_DIR=" + filepath.Join(tree, "boris")}
		}},
	}
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			tree := realTempDir(t)
			writeFile(t, filepath.Join(tree, "a.txt"), "one\n")
			env := append([]string{"XDG_STATE_HOME=" + realTempDir(t), "BORIS_STATE_DIR="}, sh.setup(t, tree)...)
			c := startCoreWith(t, coreOptions{args: []string{"--workdir", tree}, env: env})
			c.ok("str_replace", map[string]any{"path": "a.txt", "old_str": "one", "new_str": "two"})
			awaitStart(c) // b.txt is made after the tree as the session found it is recorded
			writeFile(t, filepath.Join(tree, "b.txt"), "outside\n")
			if _, err := os.Stat(filepath.Join(tree, "sub")); err == nil {
				writeFile(t, filepath.Join(tree, "sub", "outside.txt"), "outside\n")
			}
			if _, err := os.Stat(filepath.Join(tree, "sub")); err == nil {
				c.ok("create_file", map[string]any{"path": "sub/s.txt", "content": "agent\n"})
			}
			c.ok("str_replace", map[string]any{"path": "a.txt", "old_str": "two", "new_str": "three"})
			hist := c.ok("history", map[string]any{})
			for _, want := range []string{"start:", "outside:", "A b.txt", "str_replace"} {
				if !strings.Contains(hist, want) {
					t.Errorf("history: got %q, want %q in it", hist, want)
				}
			}
			if strings.Contains(hist, ".state") || strings.Contains(hist, "boris/checkpoints") {
				t.Errorf("history: got %q, want nothing of the state directory", hist)
			}
			c.ok("undo", map[string]any{})
			if got := readFile(t, filepath.Join(tree, "a.txt")); got != "two\n" {
				t.Errorf("a.txt after undo: got %q, want %q", got, "two\n")
			}
			if got := readFile(t, filepath.Join(tree, "b.txt")); got != "outside\n" {
				t.Errorf("b.txt after undo: got %q, want the outside change kept", got)
			}
			for _, bad := range []string{"recording a checkpoint failed", "level=WARN"} {
				if log := c.stderr.String(); strings.Contains(log, bad) {
					t.Errorf("log: got %q, want no %q", log, bad)
				}
			}
		})
	}
}

// TestFilesystemToolsetKeepsNoCheckpoints: --toolset filesystem has no
// history, diff or undo, so it records nothing and leaves no shadow
// repository behind.
func TestFilesystemToolsetKeepsNoCheckpoints(t *testing.T) {
	tree, state := realTempDir(t), realTempDir(t)
	writeFile(t, filepath.Join(tree, "a.txt"), "a\n")
	c := startCoreWith(t, coreOptions{args: []string{"--workdir", tree, "--toolset", "filesystem"}, env: []string{"XDG_STATE_HOME=" + state, "BORIS_STATE_DIR="}})
	c.ok("write_file", map[string]any{"path": filepath.Join(tree, "b.txt"), "content": "b\n"})
	_ = c.session.Close()
	if entries, _ := os.ReadDir(filepath.Join(state, "boris")); len(entries) != 0 {
		t.Errorf("state directory after a filesystem-toolset session: %v, want nothing", entries)
	}
}

// TestCheckpointPathOfALink: history, diff and undo with the path of a
// link name the link itself (what the checkpoints record), not the file
// it points to: undo {path: link} puts the link back and leaves its
// target alone.
func TestCheckpointPathOfALink(t *testing.T) {
	tree := realTempDir(t)
	writeFile(t, filepath.Join(tree, "a.txt"), "a\n")
	writeFile(t, filepath.Join(tree, "b.txt"), "b\n")
	if err := os.Symlink("a.txt", filepath.Join(tree, "link")); err != nil {
		t.Fatal(err)
	}
	c := startCoreWith(t, coreOptions{args: []string{"--workdir", tree}, env: []string{"XDG_STATE_HOME=" + realTempDir(t), "BORIS_STATE_DIR="}})
	awaitStart(c) // a command run beside the start is named in a gap, not recorded
	c.ok("bash", map[string]any{"command": "ln -sfn b.txt link && echo a2 > a.txt"})
	if hist := c.ok("history", map[string]any{"path": "link"}); !strings.Contains(hist, "M link") || strings.Contains(hist, "M a.txt") {
		t.Errorf("history of link: got %q, want the link's change and not a.txt's", hist)
	}
	c.ok("undo", map[string]any{"path": "link"})
	if got, err := os.Readlink(filepath.Join(tree, "link")); err != nil || got != "a.txt" {
		t.Errorf("link after undo: %q, %v; want it pointing at a.txt again", got, err)
	}
	if got := readFile(t, filepath.Join(tree, "a.txt")); got != "a2\n" {
		t.Errorf("a.txt after undo of the link: %q, want a2 (untouched)", got)
	}
}
