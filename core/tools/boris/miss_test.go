package boris

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjkoo/boris/core/editmiss"
	"github.com/mjkoo/boris/core/editmiss/corpus"
	"github.com/mjkoo/boris/core/toolkit"
)

// TestStrReplaceMissCorpus sends every miss of the corpus (made from Go's
// own sources, at least 50 of each class) to str_replace: each must stay
// a NOT_FOUND_IN_FILE error, leave the file byte for byte as it was, and
// name the window the text came from and its cause. It reports how often
// they are named, by class: at least 95 % and 90 %.
func TestStrReplaceMissCorpus(t *testing.T) {
	files, err := corpus.GoSources()
	if err != nil {
		t.Skipf("the corpus is made from Go's sources, which are not here: %v", err)
	}
	cases, err := corpus.Make(files, 60, 7)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	b := newTestTools(t, dir)
	type tally struct{ n, window, cause int }
	byClass := map[string]*tally{}
	for i, c := range cases {
		path := filepath.Join(dir, fmt.Sprintf("f%d.go", i))
		if err := os.WriteFile(path, c.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := b.strReplace(context.Background(), nil, strReplaceParams{Path: path, OldStr: c.Old, NewStr: "REPLACED"})
		msg := ""
		if te := (*toolkit.Error)(nil); err != nil {
			te = toolkit.Classify(err)
			msg = te.Error()
		}
		if !strings.HasPrefix(msg, "[NOT_FOUND_IN_FILE] old_str was not found in ") {
			t.Errorf("%s: got %q, want a NOT_FOUND_IN_FILE error", c.Name(), msg)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, c.Data) {
			t.Errorf("%s: the missed edit changed the file", c.Name())
		}
		tl := byClass[c.Class]
		if tl == nil {
			tl = &tally{}
			byClass[c.Class] = tl
		}
		tl.n++
		if namesWindow(msg, c.First) {
			tl.window++
		}
		if namesCauses(msg, c.Want) {
			tl.cause++
		}
		_ = os.Remove(path)
	}
	for _, cl := range corpus.Classes() {
		tl := byClass[cl]
		w, k := 100*float64(tl.window)/float64(tl.n), 100*float64(tl.cause)/float64(tl.n)
		t.Logf("%-22s %3d misses: window named %5.1f %%, cause named %5.1f %%", cl, tl.n, w, k)
		if tl.n < 50 || w < 95 || k < 90 {
			t.Errorf("%s: %d misses, window named in %.1f %% (want >= 95), cause in %.1f %% (want >= 90)", cl, tl.n, w, k)
		}
	}
}

// namesWindow reports whether a miss's text places the window at first.
func namesWindow(msg string, first int) bool {
	return strings.Contains(msg, fmt.Sprintf(" at line %d,", first)) || strings.Contains(msg, fmt.Sprintf(" at lines %d–", first))
}

// namesCauses reports whether a miss's text names every cause of want.
func namesCauses(msg string, want []editmiss.Kind) bool {
	for _, k := range want {
		if !strings.Contains(msg, "\n- "+k.String()+", line ") {
			return false
		}
	}
	return true
}
