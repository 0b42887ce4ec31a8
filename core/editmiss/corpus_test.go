package editmiss_test

import (
	"slices"
	"testing"

	"github.com/mjkoo/boris/core/editmiss"
	"github.com/mjkoo/boris/core/editmiss/corpus"
)

// perClass is how many misses of each class the corpus holds.
const perClass = 60

// goSources lists Go's own sources the corpus is made from, or skips.
func goSources(tb testing.TB) []string {
	tb.Helper()
	files, err := corpus.GoSources()
	if err != nil {
		tb.Skipf("the corpus is made from Go's sources, which are not here: %v", err)
	}
	return files
}

// TestCorpus measures, on misses made from real sources, how often the
// diagnosis names the window the text came from and the cause of each
// class: at least 95 % and 90 %.
func TestCorpus(t *testing.T) {
	cases, err := corpus.Make(goSources(t), perClass, 41)
	if err != nil {
		t.Fatal(err)
	}
	type tally struct{ n, window, cause int }
	byClass := map[string]*tally{}
	for _, c := range cases {
		m := editmiss.Diagnose(c.Data, c.Old, editmiss.Limits{})
		tl := byClass[c.Class]
		if tl == nil {
			tl = &tally{}
			byClass[c.Class] = tl
		}
		tl.n++
		if m.First == c.First {
			tl.window++
		} else {
			t.Logf("%s: window at line %d, want %d\n%s", c.Name(), m.First, c.First, m)
		}
		if names(m, c.Want) {
			tl.cause++
		} else {
			t.Logf("%s: causes %v, want %v\nold_str %q\n%s", c.Name(), m.Causes, c.Want, c.Old, m)
		}
	}
	for _, cl := range corpus.Classes() {
		tl := byClass[cl]
		w, k := 100*float64(tl.window)/float64(tl.n), 100*float64(tl.cause)/float64(tl.n)
		t.Logf("%-22s %3d misses: window named %5.1f %%, cause named %5.1f %%", cl, tl.n, w, k)
		if w < 95 || k < 90 {
			t.Errorf("%s: window named in %.1f %% (want >= 95), cause in %.1f %% (want >= 90)", cl, w, k)
		}
	}
}

// names reports whether m names every kind of want.
func names(m editmiss.Miss, want []editmiss.Kind) bool {
	for _, k := range want {
		if !slices.ContainsFunc(m.Causes, func(c editmiss.Cause) bool { return c.Kind == k }) {
			return false
		}
	}
	return true
}
