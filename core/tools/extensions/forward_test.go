package extensions

import (
	"github.com/mjkoo/boris/internal/safefile"

	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadNewLines checks the forwarder's reader: complete lines only, each
// once, a partial line left until its newline comes, an enormous one
// skipped.
func TestReadNewLines(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "log")
	root, err := safefile.OpenDir(dir, "", false, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	var off int64
	step := func(appended string, want ...string) {
		t.Helper()
		f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(appended); err != nil {
			t.Fatal(err)
		}
		f.Close()
		var got []string
		for before := int64(-1); off != before; { // as polls go on
			before = off
			for _, l := range readNewLines(root, "log", &off) {
				got = append(got, string(l))
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("after appending %.20q: lines (-want +got):\n%s", appended, diff)
		}
	}
	step("")
	step("one\ntw", "one")
	step("")
	step("o\n", "two")
	step("\n\nthree\n", "three")
	step(strings.Repeat("x", 600<<10)) // over 64 KiB: dropped
	step("\nfour\n", "four")
}
