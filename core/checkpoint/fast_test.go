package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func openTestStore(t testing.TB, tree string) *Store {
	t.Helper()
	// A warning (such as a failed index update, which the store repairs)
	// is a bug here.
	log := slog.New(slog.NewTextHandler(failWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	s, err := Open(context.Background(), Options{Tree: tree, StateDir: t.TempDir(), Log: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Record(context.Background(), "start", "start"); err != nil {
		t.Fatal(err)
	}
	return s
}

// failWriter fails the test with whatever is written to it.
type failWriter struct{ t testing.TB }

func (w failWriter) Write(p []byte) (int, error) {
	w.t.Errorf("logged: %s", p)
	return len(p), nil
}

func gitOut(t *testing.T, s *Store, args ...string) string {
	t.Helper()
	out, err := s.run(context.Background(), nil, nil, args...)
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

// TestRecordFilesMatchesGit is a differential test of recording in
// process against git itself: one tree, two shadows; every change is
// recorded in process in one and through git add in the other, and the
// trees recorded must be the same objects, the in-process shadow must
// pass git fsck, and its index, once flushed, must match the tree.
func TestRecordFilesMatchesGit(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 26))
			tree := t.TempDir()
			var files []string
			for i := range 40 {
				dir := []string{"", "a", "a/b", "a/b/c", "d", "d/é", "z z"}[r.IntN(7)]
				rel := filepath.Join(dir, fmt.Sprintf("f%d%s", i, []string{".go", "", ".txt", "-x"}[r.IntN(4)]))
				if err := os.MkdirAll(filepath.Join(tree, dir), 0o755); err != nil {
					t.Fatal(err)
				}
				write(t, filepath.Join(tree, rel), fmt.Sprintf("file %d\n", i))
				files = append(files, rel)
			}
			fast, slow := openTestStore(t, tree), openTestStore(t, tree)
			ctx := context.Background()
			for step := range 40 {
				var changed []string
				for range 1 + r.IntN(3) {
					rel := files[r.IntN(len(files))]
					abs := filepath.Join(tree, rel)
					switch r.IntN(5) {
					case 0:
						if err := os.Chmod(abs, []os.FileMode{0o644, 0o755}[r.IntN(2)]); err != nil && !errors.Is(err, os.ErrNotExist) {
							t.Fatal(err)
						}
					case 1:
						os.Remove(abs)
						if err := os.Symlink(fmt.Sprintf("target-%d", r.IntN(3)), abs); err != nil {
							t.Fatal(err)
						}
					case 2: // the same bytes again: nothing to record
					default:
						os.Remove(abs)
						write(t, abs, strings.Repeat(fmt.Sprintf("step %d line\n", step), r.IntN(50)))
					}
					changed = append(changed, abs)
				}
				cp, err := fast.RecordFiles("str_replace", "edit", changed...)
				if err != nil {
					t.Fatalf("step %d: RecordFiles: %v", step, err)
				}
				cp2, err := slow.Record(ctx, "str_replace", "edit", changed...)
				if err != nil {
					t.Fatal(err)
				}
				if (cp == nil) != (cp2 == nil) {
					t.Fatalf("step %d: in process recorded %v, git recorded %v", step, cp, cp2)
				}
				if got, want := gitOut(t, fast, "rev-parse", "HEAD^{tree}"), gitOut(t, slow, "rev-parse", "HEAD^{tree}"); got != want {
					t.Fatalf("step %d: tree recorded in process %s, by git %s", step, got, want)
				}
			}
			gitOut(t, fast, "fsck", "--strict", "--no-dangling")
			h, err := fast.History(ctx, "", 0)
			if err != nil || len(h) < 2 || h[0].Tool != "str_replace" || len(h[0].Files) == 0 {
				t.Fatalf("history after recordings in process: %+v, %v", h, err)
			}
			// A recording through git brings the index up to the latest
			// checkpoint first, so it finds nothing left to record.
			if cp, err := fast.Record(ctx, "bash", "scan"); cp != nil || err != nil {
				t.Fatalf("a scan after recordings in process recorded %+v, %v; want nothing", cp, err)
			}
			if got := gitOut(t, fast, "diff-index", "--cached", "--name-only", "HEAD"); got != "" {
				t.Errorf("index against HEAD after flush: %q, want nothing", got)
			}
			if got := gitOut(t, fast, "status", "--porcelain"); got != "" {
				t.Errorf("status after flush: %q, want clean", got)
			}
		})
	}
}

// TestRecordFilesLeavesToGit: what the in-process recording cannot decide
// (a new file, which .gitignore may leave out; a nested repository; a
// removed file) is left to git with ErrSlow, and git then records it.
func TestRecordFilesLeavesToGit(t *testing.T) {
	tree := t.TempDir()
	write(t, filepath.Join(tree, ".gitignore"), "*.log\n")
	write(t, filepath.Join(tree, "kept.txt"), "kept\n")
	s := openTestStore(t, tree)
	for _, c := range []struct {
		name string
		make func(abs string)
	}{
		{"new.txt", func(abs string) { write(t, abs, "new\n") }},
		{"ignored.log", func(abs string) { write(t, abs, "log\n") }},
		{"kept.txt", func(abs string) { os.Remove(abs) }},
	} {
		abs := filepath.Join(tree, c.name)
		c.make(abs)
		if _, err := s.RecordFiles("write_file", c.name, abs); !errors.Is(err, ErrSlow) {
			t.Errorf("%s: RecordFiles: %v, want ErrSlow", c.name, err)
		}
		if _, err := s.Record(context.Background(), "write_file", c.name, abs); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := gitOut(t, s, "ls-tree", "-r", "--name-only", "HEAD"), ".gitignore\nnew.txt"; got != want {
		t.Errorf("recorded files %q, want %q", got, want)
	}
}

// TestRecordFilesBetweenGitRecordings: recordings in process and through
// git, interleaved on one file and with a mode change, agree: a recording
// through git of another file records only that file.
func TestRecordFilesBetweenGitRecordings(t *testing.T) {
	tree := t.TempDir()
	a, b, e := filepath.Join(tree, "a.txt"), filepath.Join(tree, "b.txt"), filepath.Join(tree, "d/e.txt")
	write(t, a, "v1\n")
	if err := os.MkdirAll(filepath.Join(tree, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, e, "e1\n")
	s := openTestStore(t, tree)
	ctx := context.Background()
	record := func(tool string, paths ...string) {
		t.Helper()
		if _, err := s.Record(ctx, tool, tool, paths...); err != nil {
			t.Fatal(err)
		}
	}
	chmod := func(p string) {
		t.Helper()
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	chmod(a)
	record("outside")
	write(t, a, "v2\n")
	chmod(a)
	if _, err := s.RecordFiles("str_replace", "a", a); err != nil {
		t.Fatal(err)
	}
	record("outside", a)
	write(t, a, "v1\n")
	record("undo", a)
	write(t, a, "v2\n")
	record("undo", a)
	write(t, a, "v3\n")
	if _, err := s.RecordFiles("create_file", "a", a); err != nil {
		t.Fatal(err)
	}
	write(t, e, "e2\n")
	if _, err := s.RecordFiles("create_file", "e", e); err != nil {
		t.Fatal(err)
	}
	write(t, b, "b\n")
	if cp, err := s.Record(ctx, "outside", "o", b); err != nil || cp == nil {
		t.Fatal(cp, err)
	}
	if got := gitOut(t, s, "diff-tree", "--name-only", "-r", "HEAD^", "HEAD"); got != "b.txt" {
		t.Errorf("the last recording changed %q, want only b.txt", got)
	}
}

// TestDropUnchangedDirectories: a directory the watcher names that holds
// no file, where the latest checkpoint has nothing, is dropped in process
// (git records no empty directory: another session's private temporary
// directory made in a shared tree costs no git status); one holding a
// file or a link anywhere below, or one the checkpoint records, is left
// to git.
func TestDropUnchangedDirectories(t *testing.T) {
	tree := t.TempDir()
	mkdir(t, filepath.Join(tree, "rec"))
	write(t, filepath.Join(tree, "rec", "a.txt"), "a\n")
	s := openTestStore(t, tree)
	if err := os.Remove(filepath.Join(tree, "rec", "a.txt")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		make    func(abs string)
		dropped bool
	}{
		{"empty", func(abs string) { mkdir(t, abs) }, true},
		{"nested/empty/dirs", func(abs string) { mkdir(t, abs) }, true},
		{"file", func(abs string) { mkdir(t, abs); write(t, filepath.Join(abs, "f.txt"), "f\n") }, false},
		{"deep", func(abs string) {
			mkdir(t, filepath.Join(abs, "x", "y"))
			write(t, filepath.Join(abs, "x", "y", "f.txt"), "f\n")
		}, false},
		{"link", func(abs string) {
			mkdir(t, abs)
			if err := os.Symlink("nowhere", filepath.Join(abs, "l")); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"rec", func(string) {}, false}, // recorded with a file, now empty
		{"many", func(abs string) {
			for i := range maxEmptyWalk + 1 {
				mkdir(t, filepath.Join(abs, fmt.Sprint(i)))
			}
		}, false},
	} {
		c.make(filepath.Join(tree, filepath.FromSlash(c.name)))
		top := strings.Split(c.name, "/")[0]
		if got := len(s.staging().dropUnchanged([]string{top})) == 0; got != c.dropped {
			t.Errorf("%s: dropped %v, want %v", c.name, got, c.dropped)
		}
	}
}

func mkdir(t *testing.T, abs string) {
	t.Helper()
	if err := os.MkdirAll(abs, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestHeadReadInProcessOrByGit: the latest checkpoint is read from the
// loose ref without git, and still found, by git, once git has packed
// the ref (and the loose file is gone): recordings chain on it and
// Latest names it either way.
func TestHeadReadInProcessOrByGit(t *testing.T) {
	ctx := context.Background()
	tree := t.TempDir()
	s := openTestStore(t, tree)
	var commits []string
	for i, packed := range []bool{false, true} {
		if packed {
			gitOut(t, s, "pack-refs", "--all")
			if _, _, err := s.readHead(); !errors.Is(err, ErrSlow) {
				t.Fatalf("readHead after pack-refs: %v, want ErrSlow (the loose ref gone)", err)
			}
		}
		if err := os.WriteFile(filepath.Join(tree, "f.txt"), []byte(fmt.Sprint(i)), 0o644); err != nil {
			t.Fatal(err)
		}
		cp, err := s.Record(ctx, "bash", "write f.txt", "f.txt")
		if err != nil || cp == nil {
			t.Fatalf("record (packed ref %v): %v, %v", packed, cp, err)
		}
		latest, err := s.Latest(ctx)
		if err != nil || latest != cp.ID {
			t.Errorf("Latest (packed ref %v) = %q, %v; want %s", packed, latest, err, cp.ID)
		}
		if head, err := s.head(ctx); err != nil || head != gitOut(t, s, "rev-parse", "HEAD") {
			t.Errorf("head (packed ref %v) = %q, %v; want git's HEAD", packed, head, err)
		}
		commits = append(commits, gitOut(t, s, "rev-list", "--count", "HEAD"))
	}
	if n, _ := strconv.Atoi(commits[0]); commits[1] != strconv.Itoa(n+1) {
		t.Errorf("commits in HEAD after each recording: %v, want the second chained on the first", commits)
	}
}

// TestCommitInProcessMatchesGit: a recording through git's index (a
// command's) commits in process while HEAD is loose; each commit must be
// the very object git commit-tree makes of the same tree, parent, message
// and time, and the shadow must pass git fsck. With HEAD packed, git
// commits, and the next recording is in process again.
func TestCommitInProcessMatchesGit(t *testing.T) {
	ctx := context.Background()
	tree := t.TempDir()
	if err := os.WriteFile(filepath.Join(tree, "start.txt"), []byte("start\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := openTestStore(t, tree)
	// The recordings with HEAD loose must run no commit-tree or update-ref.
	gitRuns := logGit(t, s)
	for i, packed := range []bool{false, false, true, false} {
		if packed {
			gitOut(t, s, "pack-refs", "--all")
		}
		parent := gitOut(t, s, "rev-parse", "HEAD")
		gitRuns()
		name := fmt.Sprintf("d%d/f.txt", i)
		if err := os.MkdirAll(filepath.Join(tree, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tree, name), []byte(fmt.Sprint(i)), 0o644); err != nil {
			t.Fatal(err)
		}
		cp, err := s.Record(ctx, "bash", fmt.Sprintf("echo %d > %s", i, name), name)
		if err != nil || cp == nil {
			t.Fatalf("record %d: %v, %v", i, cp, err)
		}
		log := gitRuns()
		byGitToo := strings.Contains(log, " commit-tree ") || strings.Contains(log, " update-ref ")
		if byGitToo != packed {
			t.Errorf("recording %d (HEAD packed: %v): git ran\n%s\nwant commit-tree and update-ref only with HEAD packed", i, packed, log)
		}
		head := gitOut(t, s, "rev-parse", "HEAD")
		raw, err := s.run(ctx, nil, nil, "cat-file", "commit", head)
		if err != nil {
			t.Fatal(err)
		}
		headers, msg, _ := strings.Cut(string(raw), "\n\n")
		var treeID, parentID, when string
		for line := range strings.SplitSeq(headers, "\n") {
			k, v, _ := strings.Cut(line, " ")
			switch k {
			case "tree":
				treeID = v
			case "parent":
				parentID = v
			case "committer":
				f := strings.Fields(v)
				when = strings.Join(f[len(f)-2:], " ")
			}
		}
		if parentID != parent {
			t.Errorf("recording %d: parent %s, want the HEAD before it, %s", i, parentID, parent)
		}
		if want := gitOut(t, s, "write-tree"); treeID != want {
			t.Errorf("recording %d: tree %s, want the index's %s", i, treeID, want)
		}
		dates := []string{"GIT_AUTHOR_DATE=" + when, "GIT_COMMITTER_DATE=" + when}
		byGit, err := s.run(ctx, []byte(msg), dates, "commit-tree", treeID, "-p", parentID)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(byGit)); got != head {
			t.Errorf("recording %d (HEAD packed: %v): commit %s\n%s\nwant git commit-tree's %s", i, packed, head, raw, got)
		}
	}
	gitOut(t, s, "fsck", "--strict", "--no-dangling")
}

// logGit makes s run git through a script that logs each run's
// arguments; the returned function returns the runs logged since it was
// last called.
func logGit(t *testing.T, s *Store) func() string {
	t.Helper()
	runs := filepath.Join(t.TempDir(), "runs")
	wrapper := filepath.Join(t.TempDir(), "git")
	script := "#!/bin/sh\necho \"$*\" >> " + runs + "\nexec " + s.git + " \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	s.git = wrapper
	return func() string {
		log, _ := os.ReadFile(runs)
		_ = os.Remove(runs)
		return string(log)
	}
}

// TestFindInProcessOrByGit: a checkpoint is found by its id in process
// while the commits are loose (no git runs), by git once they are
// packed, and both find what git log --grep finds, for every id and for
// one never recorded.
func TestFindInProcessOrByGit(t *testing.T) {
	ctx := context.Background()
	tree := t.TempDir()
	if err := os.WriteFile(filepath.Join(tree, "f.txt"), []byte("start\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := openTestStore(t, tree)
	var ids []string
	for i := range 5 {
		if err := os.WriteFile(filepath.Join(tree, "f.txt"), []byte(fmt.Sprint(i)), 0o644); err != nil {
			t.Fatal(err)
		}
		cp, err := s.Record(ctx, "bash", fmt.Sprint("edit ", i), "f.txt")
		if err != nil || cp == nil {
			t.Fatalf("record %d: %v, %v", i, cp, err)
		}
		ids = append(ids, cp.ID)
	}
	ids = append(ids, "cp_1", idPrefix+"999")
	gitRuns := logGit(t, s)
	for _, packed := range []bool{false, true} {
		if packed {
			gitOut(t, s, "repack", "-a", "-d", "-q")
			gitOut(t, s, "pack-refs", "--all")
			gitOut(t, s, "prune-packed")
		}
		for _, id := range ids {
			n := strings.TrimPrefix(id, idPrefix)
			want := gitOut(t, s, "log", "-1", "--format=%H", "--grep=^"+seqTrailer+n+"$", "HEAD")
			gitRuns()
			got, err := s.hist.find(ctx, id)
			if want == "" {
				if !errors.Is(err, ErrNotFound) {
					t.Errorf("find %s (packed: %v) = %q, %v; want ErrNotFound", id, packed, got, err)
				}
			} else if err != nil || got != want {
				t.Errorf("find %s (packed: %v) = %q, %v; want git's %s", id, packed, got, err, want)
			}
			if ran := strings.Contains(gitRuns(), " log "); ran != packed {
				t.Errorf("find %s (packed: %v): git log ran: %v, want it only when packed", id, packed, ran)
			}
			if want == "" {
				continue
			}
			wantParent, gitErr := s.run(ctx, nil, nil, "rev-parse", "-q", "--verify", want+"^")
			gitRuns()
			gotParent, err := s.parent(ctx, want)
			if (err != nil) != (gitErr != nil) || strings.TrimSpace(string(wantParent)) != gotParent {
				t.Errorf("parent of %s (packed: %v) = %q, %v; want git's %q, %v", id, packed, gotParent, err, wantParent, gitErr)
			}
			if ran := strings.Contains(gitRuns(), " rev-parse "); ran != packed {
				t.Errorf("parent of %s (packed: %v): git rev-parse ran: %v, want it only when packed", id, packed, ran)
			}
		}
	}
}

// TestFirstCommitInProcessMatchesGit: a fresh shadow's first checkpoint
// (no HEAD yet) is committed in process, with no git run for the commit,
// the ref or reading HEAD, and is the very object git commit-tree makes
// of the same tree, message and date, with no parent. A shadow that has
// packed refs leaves it to git.
func TestFirstCommitInProcessMatchesGit(t *testing.T) {
	ctx := context.Background()
	for _, packed := range []bool{false, true} {
		t.Run(fmt.Sprintf("packed refs %v", packed), func(t *testing.T) {
			tree := t.TempDir()
			if err := os.WriteFile(filepath.Join(tree, "start.txt"), []byte("start\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := Open(ctx, Options{Tree: tree, StateDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			if packed {
				if err := s.root.WriteFile("packed-refs", []byte("# pack-refs with: peeled fully-peeled sorted \n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			gitRuns := logGit(t, s)
			if s.HasCheckpoints(ctx) {
				t.Fatal("a fresh shadow has checkpoints")
			}
			// A file tool's recording before any checkpoint is git's.
			if cp, err := s.RecordFiles("create_file", "start.txt", filepath.Join(tree, "start.txt")); !errors.Is(err, ErrSlow) {
				t.Fatalf("recording in process with no checkpoint yet: %v, %v; want ErrSlow", cp, err)
			}
			if cp, err := s.Record(ctx, "start", "start"); err != nil || cp == nil {
				t.Fatalf("record: %v, %v", cp, err)
			}
			log := gitRuns()
			byGit := strings.Contains(log, " commit-tree ") || strings.Contains(log, " update-ref ")
			if byGit != packed || (!packed && strings.Contains(log, "rev-parse")) {
				t.Errorf("git ran\n%s\nwant rev-parse, commit-tree and update-ref only with packed refs", log)
			}
			head := gitOut(t, s, "rev-parse", "HEAD")
			raw := gitOut(t, s, "cat-file", "commit", head)
			if strings.Contains(raw, "\nparent ") || strings.HasPrefix(raw, "parent ") {
				t.Errorf("first checkpoint has a parent:\n%s", raw)
			}
			var when string
			headers, _, _ := strings.Cut(raw, "\n\n")
			for line := range strings.SplitSeq(headers, "\n") {
				if v, ok := strings.CutPrefix(line, "committer "); ok {
					f := strings.Fields(v)
					when = strings.Join(f[len(f)-2:], " ")
				}
			}
			dates := []string{"GIT_AUTHOR_DATE=" + when, "GIT_COMMITTER_DATE=" + when}
			// gitOut trims the message's final newline: read it whole.
			full, err := s.run(ctx, nil, nil, "cat-file", "commit", head)
			if err != nil {
				t.Fatal(err)
			}
			_, msg, _ := strings.Cut(string(full), "\n\n")
			byGitID, err := s.run(ctx, []byte(msg), dates, "commit-tree", gitOut(t, s, "rev-parse", "HEAD^{tree}"))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(string(byGitID)); got != head {
				t.Errorf("commit %s\n%s\nwant git commit-tree's %s", head, full, got)
			}
			if !s.HasCheckpoints(ctx) {
				t.Error("no checkpoints after the first recording")
			}
			gitOut(t, s, "fsck", "--strict", "--no-dangling")
		})
	}
}
