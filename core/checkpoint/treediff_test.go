package checkpoint

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestUndoReadsMatchGit is a differential test of history's and undo's
// reads in process against git: over random recordings (files made,
// changed, made executable, made links, removed, replaced by directories
// and back), which files each checkpoint changed (at or below several
// paths) must be what git diff-tree lists, in its order; the history
// (every path, length and starting checkpoint) and what each path held
// before must be what git log, ls-tree and cat-file give once the
// objects are packed (so git reads them); no git runs while they are
// loose.
func TestUndoReadsMatchGit(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 11))
	tree := t.TempDir()
	names := []string{"a", "a.txt", "a-b", "b/c", "b/d.txt", "b/e/f", "a/x", "b.txt/y", "z"}
	write := func(rel, data string) {
		p := filepath.Join(tree, filepath.FromSlash(rel))
		_ = os.RemoveAll(p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return // a file where a directory would go: left as it is
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b/c", "c0")
	write("z", "z0")
	s := openTestStore(t, tree)
	for i := range 24 {
		for range 1 + r.IntN(3) {
			rel := names[r.IntN(len(names))]
			p := filepath.Join(tree, filepath.FromSlash(rel))
			switch r.IntN(6) {
			case 0, 1:
				write(rel, fmt.Sprintf("v%d", i))
			case 2:
				_ = os.Chmod(p, 0o755)
			case 3:
				_ = os.RemoveAll(p)
			case 4:
				_ = os.RemoveAll(p)
				_ = os.MkdirAll(filepath.Dir(p), 0o755)
				_ = os.Symlink(fmt.Sprintf("target%d", i), p)
			case 5:
				if dir, _, ok := strings.Cut(rel, "/"); ok {
					_ = os.RemoveAll(filepath.Join(tree, dir))
				}
			}
		}
		if _, err := s.Record(ctx, "bash", fmt.Sprint("step ", i)); err != nil {
			t.Fatal(err)
		}
	}
	commits := strings.Fields(gitOut(t, s, "rev-list", "HEAD"))
	if len(commits) < 12 {
		t.Fatalf("%d checkpoints recorded, want most of the 24 steps", len(commits))
	}
	filters := []string{"", ".", "a", "b/e/f", "b.txt"}
	paths := append(names, "b", "b/e", "a.txt/q")
	type read struct {
		changed [][]string
		before  [][]Restore
		logs    [][]Checkpoint
	}
	var reads [2]read
	gitRuns := logGit(t, s)
	for n, packed := range []bool{false, true} {
		if packed {
			gitOut(t, s, "repack", "-a", "-d", "-q")
			gitOut(t, s, "prune-packed")
		}
		gitRuns()
		for _, f := range []string{"", "a", "b/e", "nothing"} {
			for _, limit := range []int{0, 3} {
				for _, from := range []string{"", commits[len(commits)/2]} {
					cps, err := s.hist.log(ctx, f, limit, from)
					if err != nil {
						t.Fatal(err)
					}
					reads[n].logs = append(reads[n].logs, cps)
					if ran := strings.Count(gitRuns(), "\n"); (ran > 0) != packed {
						t.Fatalf("log -- %q, packed %v: git ran %d times, want git only for packed objects", f, packed, ran)
					}
				}
			}
		}
		for i := 0; i+1 < len(commits); i++ {
			parent, commit := commits[i+1], commits[i]
			for _, f := range filters {
				gitRuns()
				got, err := s.hist.changed(ctx, parent, commit, f)
				if err != nil {
					t.Fatal(err)
				}
				reads[n].changed = append(reads[n].changed, got)
				if ran := strings.Count(gitRuns(), "\n"); (ran > 0) != packed {
					t.Fatalf("changed -- %q, packed %v: git ran %d times, want git only for packed objects", f, packed, ran)
				}
				if packed {
					continue
				}
				args := []string{"diff-tree", "-r", "-z", "--no-renames", "--name-only", parent, commit}
				if f != "" {
					args = append(args, "--", f)
				}
				out, err := s.run(ctx, nil, nil, args...)
				if err != nil {
					t.Fatal(err)
				}
				want := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
				if len(out) == 0 {
					want = nil
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("changed %s..%s -- %q: got %q, want git's %q", parent[:7], commit[:7], f, got, want)
				}
			}
			gitRuns()
			rs, err := s.hist.before(ctx, parent, paths)
			if err != nil {
				t.Fatal(err)
			}
			reads[n].before = append(reads[n].before, rs)
			if ran := strings.Count(gitRuns(), "\n"); (ran > 0) != packed {
				t.Fatalf("before, packed %v: git ran %d times, want git only for packed objects", packed, ran)
			}
		}
	}
	for i := range reads[0].logs {
		if !reflect.DeepEqual(reads[0].logs[i], reads[1].logs[i]) {
			t.Errorf("log %d: in process\n%+v\nby git\n%+v", i, reads[0].logs[i], reads[1].logs[i])
		}
	}
	if len(reads[0].logs[0]) != len(commits) {
		t.Errorf("the whole log read %d checkpoints, want %d", len(reads[0].logs[0]), len(commits))
	}
	for i := range reads[0].before {
		if !reflect.DeepEqual(reads[0].changed, reads[1].changed) {
			t.Errorf("changed files read in process and by git differ:\n%q\n%q", reads[0].changed, reads[1].changed)
			break
		}
		for j := range reads[0].before[i] {
			a, b := reads[0].before[i][j], reads[1].before[i][j]
			if len(a.Data) == 0 && len(b.Data) == 0 {
				a.Data, b.Data = nil, nil
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("checkpoint %d, %s before: in process %+v, by git %+v", i, a.Path, a, b)
			}
		}
	}
}

// TestRecordDirectoryBecomesLink: a recorded directory replaced by a link
// (to a directory holding a file of the same name, so the old path still
// opens through it) is recorded as the link, its files as removed, and
// undo puts the directory back. git add refuses a path beyond a link,
// which once failed the whole recording.
func TestRecordDirectoryBecomesLink(t *testing.T) {
	ctx := context.Background()
	tree := t.TempDir()
	for _, f := range []string{"a/x", "elsewhere/x", "keep.txt"} {
		mustWrite(t, filepath.Join(tree, f), "v1 "+f)
	}
	s := openTestStore(t, tree)
	if err := os.RemoveAll(filepath.Join(tree, "a")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("elsewhere", filepath.Join(tree, "a")); err != nil {
		t.Fatal(err)
	}
	cp, err := s.Record(ctx, "bash", "rm -rf a && ln -s elsewhere a")
	if err != nil || cp == nil {
		t.Fatalf("record: %v, %v; want a checkpoint", cp, err)
	}
	if got := gitOut(t, s, "ls-tree", "-r", "--name-only", "HEAD"); got != "a\nelsewhere/x\nkeep.txt" {
		t.Errorf("recorded tree: %q, want the link a and no a/x", got)
	}
	_, rs, err := s.Plan(ctx, cp.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []Restore{{Path: "a", Remove: true}, {Path: "a/x", Data: []byte("v1 a/x")}}
	if !reflect.DeepEqual(rs, want) {
		t.Errorf("undo plan: %+v, want %+v", rs, want)
	}
}
