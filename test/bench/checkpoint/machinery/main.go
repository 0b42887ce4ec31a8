// Command machinery measures the two git machineries considered for
// checkpoints (docs/reference/core.md#checkpoints) side by side, in one run, on a generated tree of
// 10,000 files and a small one of 20: the git binary as Boris drives it
// (core/checkpoint's Store, with its changed-path watcher) and go-git
// (github.com/go-git/go-git/v5) doing the same recordings in process.
//
// For each tree and machinery it times three recordings:
//
//   - scan, nothing changed: after a command that changed nothing;
//   - named file: after a file tool changed one file it names;
//   - scan, one file changed: after a command that changed one file.
//
// It is a module of its own so that go-git, measured here only, is never
// a dependency of Boris. Run it with `make bench-checkpoint`, or from this
// directory with `go run .`.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/mjkoo/boris/core/checkpoint"
)

func main() {
	calls := flag.Int("calls", 20, "timed recordings of each kind")
	files := flag.Int("files", 10000, "files in the large tree")
	flag.Parse()
	if err := run(*calls, *files); err != nil {
		fmt.Fprintln(os.Stderr, "bench-checkpoint machinery:", err)
		os.Exit(1)
	}
}

// recorder is one machinery: record with paths named (file tools) or by
// scanning (none).
type recorder interface {
	record(paths ...string) error
	close()
}

func run(calls, files int) error {
	root, err := os.MkdirTemp("", "bench-checkpoint-machinery-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	fmt.Printf("%-10s %-8s %-24s %12s %12s\n", "tree", "git", "recording", "p50", "p99")
	for _, tree := range []struct {
		name  string
		files int
	}{{"10k files", files}, {"small", 20}} {
		for _, m := range []string{"binary", "go-git"} {
			dir := filepath.Join(root, tree.name+"-"+m)
			if err := generate(dir, tree.files); err != nil {
				return err
			}
			start := time.Now()
			r, err := open(m, dir, filepath.Join(root, "state-"+m+"-"+tree.name))
			if err != nil {
				return fmt.Errorf("%s: %w", m, err)
			}
			fmt.Printf("%-10s %-8s %-24s %12s\n", tree.name, m, "first (whole tree)", ms(time.Since(start)))
			if err := measure(r, tree.name, m, dir, calls); err != nil {
				r.close()
				return fmt.Errorf("%s on %s: %w", m, tree.name, err)
			}
			r.close()
		}
	}
	return nil
}

// measure times each kind of recording calls times.
func measure(r recorder, tree, m, dir string, calls int) error {
	edit := filepath.Join(dir, "edit.txt")
	n := 0
	change := func() error {
		n++
		return os.WriteFile(edit, fmt.Appendf(nil, "change %d\n", n), 0o644)
	}
	kinds := []struct {
		name   string
		before func() error
		paths  []string
	}{
		{"scan, nothing changed", func() error { return nil }, nil},
		{"named file", change, []string{"edit.txt"}},
		{"scan, one file changed", change, nil},
	}
	for _, k := range kinds {
		var ds []time.Duration
		for range calls {
			if err := k.before(); err != nil {
				return err
			}
			start := time.Now()
			if err := r.record(k.paths...); err != nil {
				return err
			}
			ds = append(ds, time.Since(start))
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		p99 := ds[min(len(ds)-1, len(ds)*99/100)]
		fmt.Printf("%-10s %-8s %-24s %12s %12s\n", tree, m, k.name, ms(ds[len(ds)/2]), ms(p99))
	}
	return nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d)/float64(time.Millisecond)) }

// generate writes n small files in directories of 100 under dir.
func generate(dir string, n int) error {
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("d%03d", i/100), fmt.Sprintf("f%03d.go", i%100))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, fmt.Appendf(nil, "package p\n\n// file %d\nvar x = %d\n", i, i), 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "edit.txt"), []byte("alpha\n"), 0o644)
}

// open makes machinery m's shadow of tree under state and records the
// whole tree once.
func open(m, tree, state string) (recorder, error) {
	if m == "binary" {
		st, err := checkpoint.Open(context.Background(), checkpoint.Options{Tree: tree, StateDir: state})
		if err != nil {
			return nil, err
		}
		if err := st.Watch(); err != nil {
			fmt.Fprintln(os.Stderr, "no changed-path watcher:", err)
		}
		b := &binary{st}
		return b, b.record()
	}
	st := filesystem.NewStorage(osfs.New(state), cache.NewObjectLRUDefault())
	repo, err := git.Init(st, osfs.New(tree))
	if err != nil {
		return nil, err
	}
	wt, err := repo.Worktree()
	if err != nil {
		return nil, err
	}
	g := &gogit{wt: wt}
	return g, g.record()
}

// binary is Boris's machinery.
type binary struct{ st *checkpoint.Store }

func (b *binary) record(paths ...string) error {
	_, err := b.st.Record(context.Background(), "bench", "a recording", paths...)
	return err
}

func (b *binary) close() { b.st.Close() }

// gogit records as a checkpoint store built on go-git would: status to
// find changes (unless named), add them, commit.
type gogit struct{ wt *git.Worktree }

func (g *gogit) record(paths ...string) error {
	if len(paths) == 0 {
		status, err := g.wt.Status()
		if err != nil {
			return err
		}
		if status.IsClean() {
			return nil
		}
		if err := g.wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
			return err
		}
	}
	for _, p := range paths {
		if _, err := g.wt.Add(p); err != nil {
			return err
		}
	}
	sig := &object.Signature{Name: "boris", Email: "boris@localhost", When: time.Now()}
	_, err := g.wt.Commit("bench: a recording", &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true})
	return err
}

func (g *gogit) close() {}
