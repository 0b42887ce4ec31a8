package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjkoo/boris/internal/gitenv"
)

// plantedSettings is a shadow config a hostile tenant would write: every
// setting that makes git run a program, each pointing at a script that
// leaves a mark.
func plantedSettings(script string) string {
	return `[core]
	repositoryformatversion = 0
	bare = false
	fsmonitor = ` + script + `
	hooksPath = ` + filepath.Dir(script) + `
	sshCommand = ` + script + `
	pager = ` + script + `
	editor = ` + script + `
	askPass = ` + script + `
[diff]
	external = ` + script + `
[diff "x"]
	textconv = ` + script + `
	command = ` + script + `
[filter "x"]
	clean = ` + script + `
	smudge = ` + script + `
	process = ` + script + `
	required = true
[credential]
	helper = !` + script + `
[gpg]
	program = ` + script + `
[commit]
	gpgSign = true
`
}

// TestHardenedGitRunsNothingPlanted runs every git command the store uses
// directly (no guard, no confinement: the hardening alone) on a shadow
// whose config a tenant rewrote, in a tree whose .gitattributes name the
// planted drivers. No planted program runs, and recording still works.
// (The shadow's info/attributes, which unsets every driver, is Boris's;
// TestGuardRestoresPlantedFiles plants that too.)
func TestHardenedGitRunsNothingPlanted(t *testing.T) {
	tree, state := t.TempDir(), t.TempDir()
	script, mark := evilScript(t)
	bin := filepath.Dir(script)
	for _, hook := range []string{"pre-commit", "post-commit", "post-index-change", "reference-transaction", "fsmonitor-watchman"} {
		if err := os.Symlink(script, filepath.Join(bin, hook)); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(tree, "a.txt"), "one\n")
	s, err := Open(context.Background(), Options{Tree: tree, StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Record(context.Background(), "start", "start"); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(s.dir, "config"), plantedSettings(script))
	write(t, filepath.Join(tree, ".gitattributes"), "* filter=x diff=x text eol=crlf\n")
	write(t, filepath.Join(tree, "a.txt"), "two\n")

	ctx := context.Background()
	out, err := s.run(ctx, nil, nil, "status", "--porcelain", "-z", "--untracked-files=all")
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	if _, err := s.add(ctx, nil, parseStatus(out, func(string, bool) bool { return true })); err != nil {
		t.Fatalf("add: %v", err)
	}
	if _, err := s.commit(ctx, "edit\n"); err != nil {
		t.Fatalf("commit: %v", err)
	}
	diff, err := s.run(ctx, nil, nil, append(append([]string{"show", "--format=", "--patch"}, gitenv.DiffArgs...), "HEAD")...)
	if err != nil {
		t.Fatalf("show: %v", err)
	}
	if !strings.Contains(string(diff), "-one\n+two") {
		t.Errorf("show: got %q, want the edit as recorded bytes", diff)
	}
	if _, err := s.worktreeDiff(ctx, "", nil); err != nil {
		t.Fatalf("worktree diff: %v", err)
	}
	if data, err := os.ReadFile(mark); err == nil {
		t.Fatalf("a planted program ran: %s", data)
	}
}

// evilScript writes a program that leaves a mark when run and returns
// its path and the mark's.
func evilScript(t *testing.T) (script, mark string) {
	t.Helper()
	bin := t.TempDir()
	mark = filepath.Join(bin, "ran")
	script = filepath.Join(bin, "evil")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho \"$0 $*\" >> "+mark+"\ncat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return script, mark
}

// TestGuardRestoresPlantedFiles: whatever is written over the shadow's
// config and attributes, or added to send git elsewhere, is undone before
// the next operation, so the filter they name never runs.
func TestGuardRestoresPlantedFiles(t *testing.T) {
	tree, state := t.TempDir(), t.TempDir()
	script, mark := evilScript(t)
	write(t, filepath.Join(tree, "a.txt"), "one\n")
	s, err := Open(context.Background(), Options{Tree: tree, StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	write(t, filepath.Join(s.dir, "config"), plantedSettings(script))
	write(t, filepath.Join(s.dir, "info", "attributes"), "* filter=x diff=x\n")
	write(t, filepath.Join(s.dir, "commondir"), "/elsewhere\n")
	if err := os.MkdirAll(filepath.Join(s.dir, "objects", "info"), 0o700); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(s.dir, "objects", "info", "alternates"), "/elsewhere/objects\n")
	if _, err := s.Record(context.Background(), "start", "start"); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(s.dir, "info", "attributes"), "* filter=x diff=x\n")
	write(t, filepath.Join(tree, "a.txt"), "two\n")
	if _, err := s.Diff(context.Background(), "", ""); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(mark); err == nil {
		t.Fatalf("a planted program ran: %s", data)
	}
	for name, want := range map[string]string{"config": shadowConfig, "info/attributes": gitenv.Attributes} {
		if got, _ := os.ReadFile(filepath.Join(s.dir, name)); string(got) != want {
			t.Errorf("%s: got %q, want %q", name, got, want)
		}
	}
	for _, name := range []string{"commondir", "objects/info/alternates"} {
		if _, err := os.Lstat(filepath.Join(s.dir, name)); err == nil {
			t.Errorf("%s: still there, want it removed", name)
		}
	}
}

func write(t testing.TB, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRecordVanishedFile: a path found changed that vanishes before git
// adds it (a file removed while being recorded) does not fail the
// recording; the paths still there are recorded.
func TestRecordVanishedFile(t *testing.T) {
	tree, state := t.TempDir(), t.TempDir()
	write(t, filepath.Join(tree, "a.txt"), "one\n")
	s, err := Open(context.Background(), Options{Tree: tree, StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if _, err := s.Record(ctx, "start", "start"); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(tree, "b.txt"), "two\n")
	if _, err := s.add(ctx, nil, []string{"b.txt", "vanished.txt"}); err != nil {
		t.Fatalf("add with a vanished path: %v", err)
	}
	if _, err := s.commit(ctx, "b\n"); err != nil {
		t.Fatal(err)
	}
	out, err := s.run(ctx, nil, nil, "ls-tree", "-r", "--name-only", "HEAD")
	if err != nil || !strings.Contains(string(out), "b.txt") {
		t.Errorf("the recorded tree: %q, %v; want b.txt in it", out, err)
	}
}
