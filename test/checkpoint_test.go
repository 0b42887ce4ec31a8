package test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// startCheckpointCore starts boris on tree with its state (the shadow
// repositories) in a directory of its own, which it returns.
func startCheckpointCore(t *testing.T, tree string, args ...string) (*core, string) {
	t.Helper()
	state := realTempDir(t)
	c := startCoreWith(t, coreOptions{args: append([]string{"--workdir", tree}, args...), env: []string{"XDG_STATE_HOME=" + state}})
	// The tree as the session found it is recorded in the background from
	// initialize; these tests start from it (TestNoCallWaitsForTheStart
	// tests what happens while it is taken). Without checkpoints there is
	// neither a start nor a history to wait on.
	if i := slices.Index(args, "--checkpoints"); !(i >= 0 && i+1 < len(args) && args[i+1] == "off") && !slices.Contains(args, "--checkpoints=off") {
		awaitStart(c)
	}
	return c, state
}

// shadowGit runs git on the shadow repository under state and returns its output.
func shadowGit(t *testing.T, state string, args ...string) string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(state, "boris", "checkpoints", "*"))
	if len(dirs) != 1 {
		t.Fatalf("got shadow repositories %v, want one", dirs)
	}
	cmd := exec.Command("git", append([]string{"--git-dir", dirs[0]}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return string(out)
}

// snapshot maps every path under dir to its mode and contents (a
// symlink's target), for byte-exact comparisons.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.IsDir():
			m[rel] = "dir"
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			m[rel] = "link " + target
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			m[rel] = fmt.Sprintf("%v %q", fi.Mode().Perm(), data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// sameTree fails the test unless dir matches want.
func sameTree(t *testing.T, what, dir string, want map[string]string) {
	t.Helper()
	if diff := cmp.Diff(want, snapshot(t, dir)); diff != "" {
		t.Fatalf("%s: tree differs (-want +got):\n%s", what, diff)
	}
}

// latestID is the newest checkpoint's id in history's text.
func latestID(t *testing.T, c *core) string {
	t.Helper()
	h := c.ok("history", map[string]any{"limit": 1})
	for line := range strings.Lines(h) { // after any gaps
		if id, _, _ := strings.Cut(line, " "); strings.HasPrefix(id, "cp_") {
			return id
		}
	}
	t.Fatalf("history: got %q, want a line starting with a cp_ id", h)
	return ""
}

// checkpointFixture writes a tree with the cases byte-exact restoration
// must handle: CRLF with a BOM, an executable, a binary file, a directory.
func checkpointFixture(t *testing.T) string {
	t.Helper()
	tree := realTempDir(t)
	writeFile(t, filepath.Join(tree, "crlf.txt"), "\ufeffline one\r\nline two\r\n")
	writeFile(t, filepath.Join(tree, "run.sh"), "#!/bin/sh\necho hi\n")
	if err := os.Chmod(filepath.Join(tree, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(tree, "blob.bin"), "\x00\x01\x02\xff\xfe binary \x00")
	writeFile(t, filepath.Join(tree, "src", "a.go"), "package a\n")
	writeFile(t, filepath.Join(tree, "src", "deep", "b.go"), "package deep\n")
	if err := os.Symlink("a.go", filepath.Join(tree, "src", "link")); err != nil {
		t.Fatal(err)
	}
	return tree
}

func TestCheckpointUndoEachTool(t *testing.T) {
	tree := checkpointFixture(t)
	c, _ := startCheckpointCore(t, tree)
	before := snapshot(t, tree)
	steps := []struct {
		name string
		tool string
		args map[string]any
	}{
		{"str_replace on CRLF with BOM", "str_replace", map[string]any{"path": "crlf.txt", "old_str": "line two", "new_str": "line 2"}},
		{"create_file over an executable", "create_file", map[string]any{"path": "run.sh", "content": "#!/bin/sh\necho bye\n"}},
		{"create_file of a new file in new directories", "create_file", map[string]any{"path": "new/dir/n.txt", "content": "new\n"}},
		{"bash: binary append, chmod, delete, rename a directory", "bash", map[string]any{"command": "printf '\\001\\000' >> blob.bin && chmod -x run.sh && rm crlf.txt && mv src lib"}},
		{"bash: rm -rf src", "bash", map[string]any{"command": "rm -rf src"}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			c.ok(s.tool, s.args)
			changed := snapshot(t, tree)
			if cmp.Equal(before, changed) {
				t.Fatalf("%s changed nothing", s.tool)
			}
			id := latestID(t, c)
			if h := c.ok("history", map[string]any{"limit": 1}); !strings.Contains(h, s.tool+":") {
				t.Errorf("history: got %q, want the latest checkpoint made by %s", h, s.tool)
			}
			if d := c.ok("diff", map[string]any{"checkpoint": id}); !strings.Contains(d, "diff --git") {
				t.Errorf("diff %s: got %q, want a unified diff", id, d)
			}
			out := c.ok("undo", map[string]any{"checkpoint": id})
			sameTree(t, "after undo of "+id, tree, before)
			redo := regexp.MustCompile(`checkpoint (cp_\d+); undo it`).FindStringSubmatch(out)
			if redo == nil {
				t.Fatalf("undo: got %q, want the id of the undo's own checkpoint", out)
			}
			c.ok("undo", map[string]any{"checkpoint": redo[1]})
			sameTree(t, "after undo of the undo", tree, changed)
			c.ok("undo", map[string]any{})
			sameTree(t, "after undoing the redo", tree, before)
		})
	}
}

func TestCheckpointUndoPathAndWorktreeDiff(t *testing.T) {
	tree := checkpointFixture(t)
	c, _ := startCheckpointCore(t, tree)
	c.ok("bash", map[string]any{"command": "echo x >> src/a.go && echo y >> src/deep/b.go"})
	c.ok("undo", map[string]any{"path": "src/deep"})
	if got := readFile(t, filepath.Join(tree, "src/deep/b.go")); got != "package deep\n" {
		t.Errorf("b.go after undo of its path: got %q, want it restored", got)
	}
	if got := readFile(t, filepath.Join(tree, "src/a.go")); got != "package a\nx\n" {
		t.Errorf("a.go after undo of another path: got %q, want it untouched", got)
	}
	writeFile(t, filepath.Join(tree, "outside.txt"), "made outside\n")
	if d := c.ok("diff", map[string]any{}); !strings.Contains(d, "+made outside") {
		t.Errorf("diff of the working tree: got %q, want the new file", d)
	}
	c.fails("CHECKPOINT_NOT_FOUND", "undo", map[string]any{"checkpoint": "cp_9999"})
	c.fails("CHECKPOINT_NOT_FOUND", "diff", map[string]any{"checkpoint": "task_12345678"})
}

func TestCheckpointDenyAndUserRepository(t *testing.T) {
	tree := checkpointFixture(t)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = tree
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@x", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-qm", "user commit")
	writeFile(t, filepath.Join(tree, "src/a.go"), "package a // stashed\n")
	git("stash", "-q")
	writeFile(t, filepath.Join(tree, ".git/hooks/pre-commit"), "#!/bin/sh\nexit 1\n")
	writeFile(t, filepath.Join(tree, "config/.env"), "SECRET=before\n")
	userRepo := hashDir(t, filepath.Join(tree, ".git"))

	c, state := startCheckpointCore(t, tree, "--deny-dir", "**/.env")
	c.ok("bash", map[string]any{"command": "echo SECRET=1 > .env && echo SECRET=2 > config/.env && echo more >> src/a.go"})
	c.ok("str_replace", map[string]any{"path": "crlf.txt", "old_str": "one", "new_str": "1"})
	c.ok("undo", map[string]any{})
	c.ok("undo", map[string]any{})
	c.ok("create_file", map[string]any{"path": "x/y.txt", "content": "y"})
	c.ok("history", map[string]any{}) // recordings finish after their call answers: history waits for them

	if objs := shadowGit(t, state, "log", "--all", "--name-only", "--format="); strings.Contains(objs, ".env") {
		t.Errorf("the shadow repository holds a .env: %s", objs)
	}
	if got := readFile(t, filepath.Join(tree, ".env")); got != "SECRET=1\n" {
		t.Errorf(".env: got %q, want it left as bash wrote it (never recorded, never undone)", got)
	}
	if diff := cmp.Diff(userRepo, hashDir(t, filepath.Join(tree, ".git"))); diff != "" {
		t.Errorf("the user's .git changed (-before +after):\n%s", diff)
	}
}

// hashDir maps every file under dir to the SHA-256 of its contents and mode.
func hashDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, _ := d.Info()
		m[p] = fmt.Sprintf("%v %x", fi.Mode(), sha256.Sum256(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCheckpointConcurrentCalls makes 50 writing calls at once, spread
// over two cores on one tree (two sessions of one principal share its
// shadow repository), and checks that every change is recorded and the
// shadow is sound.
func TestCheckpointConcurrentCalls(t *testing.T) {
	tree := realTempDir(t)
	c, state := startCheckpointCore(t, tree)
	c2 := startCoreWith(t, coreOptions{args: []string{"--workdir", tree}, env: []string{"XDG_STATE_HOME=" + state}})
	const n = 50
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			c := c
			if i%3 == 0 {
				c = c2
			}
			if i%2 == 0 {
				c.ok("create_file", map[string]any{"path": fmt.Sprintf("f%02d.txt", i), "content": fmt.Sprint(i)})
			} else {
				c.ok("bash", map[string]any{"command": fmt.Sprintf("echo %d > f%02d.txt", i, i)})
			}
		})
	}
	wg.Wait()
	// Recordings finish after their call answers: history waits for them.
	c.ok("history", map[string]any{})
	c2.ok("history", map[string]any{})
	files := shadowGit(t, state, "log", "--name-only", "--format=")
	for i := range n {
		if !strings.Contains(files, fmt.Sprintf("f%02d.txt", i)) {
			t.Errorf("no checkpoint holds f%02d.txt; recorded: %s", i, files)
		}
	}
	shadowGit(t, state, "fsck", "--strict")
	if h := c.ok("history", map[string]any{"limit": 100}); strings.Count(h, "\ncp_")+1 < 2 {
		t.Errorf("history: got %q, want checkpoints", h)
	}
}

func TestCheckpointPrune(t *testing.T) {
	tree := realTempDir(t)
	c, state := startCheckpointCore(t, tree, "--checkpoint-keep", "4")
	for i := range 12 {
		c.ok("create_file", map[string]any{"path": "f.txt", "content": fmt.Sprint(i)})
	}
	c.ok("history", map[string]any{}) // recordings finish after their call answers: history waits for them
	if n := strings.Count(shadowGit(t, state, "rev-list", "HEAD"), "\n"); n > 5 {
		t.Errorf("got %d checkpoints kept, want at most 5 (keep 4, pruned past a quarter more)", n)
	}
	shadowGit(t, state, "fsck", "--strict")
	id := latestID(t, c)
	c.ok("undo", map[string]any{"checkpoint": id})
	if got := readFile(t, filepath.Join(tree, "f.txt")); got != "10" {
		t.Errorf("f.txt after undo: got %q, want 10", got)
	}
}

func TestCheckpointLargeTree(t *testing.T) {
	tree := realTempDir(t)
	for d := range 100 {
		for f := range 100 {
			writeFile(t, filepath.Join(tree, fmt.Sprintf("d%02d/f%02d.txt", d, f)), fmt.Sprintf("file %d %d\n", d, f))
		}
	}
	c, _ := startCheckpointCore(t, tree)
	c.ok("str_replace", map[string]any{"path": "d42/f42.txt", "old_str": "42 42", "new_str": "changed"})
	c.ok("bash", map[string]any{"command": "rm -rf d07"})
	if h := c.ok("history", map[string]any{"limit": 2}); !strings.Contains(h, "bash: rm -rf d07") || !strings.Contains(h, "D d07/f00.txt") {
		t.Errorf("history: got %q, want the rm and its deleted files", h)
	}
	c.ok("undo", map[string]any{})
	if got := readFile(t, filepath.Join(tree, "d07/f99.txt")); got != "file 7 99\n" {
		t.Errorf("d07/f99.txt after undo: got %q", got)
	}
}

func TestCheckpointsOffAndWithoutGit(t *testing.T) {
	for _, tc := range []struct {
		name, logLine, check string
		opts                 coreOptions
	}{
		{"--checkpoints off", "", "off", coreOptions{args: []string{"--checkpoints", "off"}}},
		{"git not on PATH", "git is not on PATH", "unavailable: checkpoints need the git binary, which is not on PATH",
			coreOptions{env: []string{"PATH=" + t.TempDir()}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.args = append(tc.opts.args, "--workdir", realTempDir(t))
			tc.opts.env = append(tc.opts.env, "XDG_STATE_HOME="+t.TempDir())

			// boris --check says the same as tools/list will.
			check := exec.Command(borisBin, append([]string{"--check"}, tc.opts.args...)...)
			check.Env = append(os.Environ(), tc.opts.env...)
			out, err := check.Output()
			if err != nil {
				t.Fatalf("boris --check: %v", err)
			}
			var report struct {
				Tools       []string `json:"tools"`
				Checkpoints string   `json:"checkpoints"`
			}
			if err := json.Unmarshal(out, &report); err != nil {
				t.Fatalf("boris --check printed %q: %v", out, err)
			}
			if report.Checkpoints != tc.check || slices.Contains(report.Tools, "history") || !slices.Contains(report.Tools, "bash") {
				t.Errorf("boris --check: checkpoints %q, tools %q; want %q and no history", report.Checkpoints, report.Tools, tc.check)
			}

			c := startCoreWith(t, tc.opts)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			tools, err := c.session.ListTools(ctx, &mcp.ListToolsParams{})
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range tools.Tools {
				if tool.Name == "history" || tool.Name == "diff" || tool.Name == "undo" {
					t.Errorf("tools/list has %s, want no checkpoint tools", tool.Name)
				}
			}
			c.ok("create_file", map[string]any{"path": "a.txt", "content": "a"})
			if got := strings.Count(c.stderr.String(), "checkpoints are off"); tc.logLine != "" && (got != 1 || !strings.Contains(c.stderr.String(), tc.logLine)) {
				t.Errorf("stderr: got %q, want one line saying checkpoints are off because %s", c.stderr.String(), tc.logLine)
			}
		})
	}
}

// TestCheckpointBashChangesFound checks that every kind of change a
// command makes is recorded with exactly its paths, whichever way the
// core finds them (it tracks changed paths, with a whole-tree scan as
// the fallback): new nested directories, files inside them, renames,
// modes, deletions, and a command that changes nothing records nothing.
func TestCheckpointBashChangesFound(t *testing.T) {
	tree := realTempDir(t)
	writeFile(t, filepath.Join(tree, "src", "a.go"), "package a\n")
	writeFile(t, filepath.Join(tree, ".gitignore"), "*.log\n")
	c, _ := startCheckpointCore(t, tree)
	files := func() string {
		t.Helper()
		h := c.ok("history", map[string]any{"limit": 1})
		var out []string
		for _, line := range strings.Split(h, "\n")[1:] {
			if line = strings.TrimSpace(line); line != "" {
				out = append(out, line)
			}
		}
		return strings.Join(out, ", ")
	}
	for _, step := range []struct{ command, want string }{
		{"mkdir -p gen/x/y && echo 1 > gen/x/y/z.txt && echo 2 > gen/top.txt", "A gen/top.txt, A gen/x/y/z.txt"},
		{"echo more >> gen/x/y/z.txt", "M gen/x/y/z.txt"},
		{"mv gen out", "D gen/top.txt, D gen/x/y/z.txt, A out/top.txt, A out/x/y/z.txt"},
		{"echo 3 >> out/x/y/z.txt", "M out/x/y/z.txt"},
		{"chmod +x src/a.go", "M src/a.go"},
		{"echo noise > build.log", "M src/a.go"}, // ignored: nothing new recorded
		{"rm -r out", "D out/top.txt, D out/x/y/z.txt"},
	} {
		c.ok("bash", map[string]any{"command": step.command})
		if got := files(); got != step.want {
			t.Errorf("after %q: latest checkpoint changed %q, want %q", step.command, got, step.want)
		}
	}
}
