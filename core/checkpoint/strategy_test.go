package checkpoint

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStrategies records the same changes (a.txt and b.txt edited,
// new.txt made, same.txt rewritten with its own bytes) by each strategy
// and checks what the checkpoint holds: each looks only where it says.
func TestStrategies(t *testing.T) {
	for _, tc := range []struct {
		name    string
		how     strategy
		paths   []string
		capture *Capture
		want    []Change // nil: no checkpoint
	}{
		{name: "named takes the paths named", how: named, paths: []string{"a.txt", "new.txt"},
			want: []Change{{"M", "a.txt"}, {"A", "new.txt"}}},
		{name: "named takes nothing outside the tree", how: named, paths: []string{"../elsewhere.txt"}},
		{name: "watched takes what the capture saw", how: watched, capture: &Capture{seen: []string{"b.txt"}},
			want: []Change{{"M", "b.txt"}}},
		{name: "watched takes nothing rewritten with its own bytes", how: watched, capture: &Capture{seen: []string{"same.txt"}}},
		{name: "watched with nothing seen takes nothing", how: watched, capture: &Capture{}},
		{name: "watched that cannot say takes the whole tree", how: watched, capture: &Capture{all: true},
			want: []Change{{"M", "a.txt"}, {"M", "b.txt"}, {"A", "new.txt"}}},
		{name: "wholeTree takes every change", how: wholeTree,
			want: []Change{{"M", "a.txt"}, {"M", "b.txt"}, {"A", "new.txt"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree := t.TempDir()
			for _, name := range []string{"a.txt", "b.txt", "same.txt"} {
				write(t, filepath.Join(tree, name), name+" before\n")
			}
			s := openTestStore(t, tree)
			write(t, filepath.Join(tree, "a.txt"), "a after\n")
			write(t, filepath.Join(tree, "b.txt"), "b after\n")
			write(t, filepath.Join(tree, "new.txt"), "new\n")
			write(t, filepath.Join(tree, "same.txt"), "same.txt before\n")
			ctx := context.Background()
			var cp *Checkpoint
			err := s.locked(func() (err error) {
				cp, err = s.recordWith(ctx, "tool", tc.name, tc.how, tc.paths, tc.capture)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				if cp != nil {
					t.Fatalf("got checkpoint %s, want none", cp.ID)
				}
				return
			}
			if cp == nil {
				t.Fatal("got no checkpoint, want one")
			}
			cps, err := s.History(ctx, "", 1)
			if err != nil {
				t.Fatal(err)
			}
			got := slices.SortedFunc(slices.Values(cps[0].Files), func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("checkpoint's changes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStrategyFor checks which strategy a recording without a capture
// takes: the paths when named, else the watcher's, else the whole tree.
func TestStrategyFor(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	for _, tc := range []struct {
		paths []string
		watch bool
		want  strategy
	}{
		{paths: []string{"a.txt"}, want: named},
		{paths: []string{"a.txt"}, watch: true, want: named},
		{want: wholeTree},
		{watch: true, want: watched},
	} {
		s.watch = nil
		if tc.watch {
			s.watch = &watcher{}
		}
		if got := s.strategyFor(tc.paths); got != tc.want {
			t.Errorf("paths %q, watcher %v: got strategy %d, want %d", tc.paths, tc.watch, got, tc.want)
		}
	}
	s.watch = nil
	for _, tc := range []struct {
		c    *Capture
		want strategy
	}{
		{&Capture{named: []string{"a.txt"}}, named},
		{&Capture{seen: []string{"a.txt"}}, watched},
		{&Capture{late: true}, watched},
	} {
		if got := tc.c.strategy(); got != tc.want {
			t.Errorf("capture %+v: got strategy %d, want %d", tc.c, got, tc.want)
		}
	}
}
