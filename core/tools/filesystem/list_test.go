package filesystem

//lint:file-ignore SA1019 myers.ComputeEdits is the reference the shortcut is compared with, as edit.go uses it

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/aymanbagabas/go-udiff"
	"github.com/aymanbagabas/go-udiff/myers"
)

// TestAppendJSString: directory_tree writes names as JavaScript's
// JSON.stringify does, not as encoding/json does (which also escapes
// U+2028, U+2029 and, by default, <, > and &), and what it writes decodes
// to the name decoded as Node decodes it (decodeText).
func TestAppendJSString(t *testing.T) {
	for in, want := range map[string]string{
		"plain.go":               `"plain.go"`,
		`quote" back\slash`:      `"quote\" back\\slash"`,
		"tab\tnl\ncr\rbs\bff\f":  `"tab\tnl\ncr\rbs\bff\f"`,
		"nul\x00 us\x1f del\x7f": `"nul\u0000 us\u001f del` + "\x7f" + `"`,
		"<&> \u2028\u2029 é 🙂":   "\"<&> \u2028\u2029 é 🙂\"",
		"bad\xffbyte":            "\"bad\uFFFDbyte\"",
		"cut\xe2\x82 short":      "\"cut\uFFFD short\"",
	} {
		if got := string(appendJSString(nil, in)); got != want {
			t.Errorf("appendJSString(%q) = %s, want %s", in, got, want)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		var got string
		if err := json.Unmarshal(appendJSString(nil, string(b)), &got); err != nil {
			t.Fatalf("%q: %v", b, err)
		}
		if want := decodeText(b); got != want {
			t.Fatalf("%q decodes to %q, want %q", b, got, want)
		}
	}
}

// TestUnifiedPatchShortcuts: unifiedPatch diffs only what follows the
// lines both texts start with and lays out only the lines around the
// changes; on random texts full of ambiguous lines its patch is the one the
// whole texts give.
func TestUnifiedPatchShortcuts(t *testing.T) {
	words := []string{"}", "{", "a", "b", "", "  x", "return nil"}
	r := rand.New(rand.NewPCG(5, 6))
	randomLines := func(n int) []string {
		ls := make([]string, n)
		for i := range ls {
			ls[i] = words[r.IntN(len(words))]
		}
		return ls
	}
	join := func(ls []string, nl bool) string {
		s := strings.Join(ls, "\n")
		if nl && len(ls) > 0 {
			s += "\n"
		}
		return s
	}
	for i := range 3000 {
		a := randomLines(r.IntN(60))
		b := append([]string(nil), a...)
		for range 1 + r.IntN(4) {
			at := r.IntN(len(b) + 1)
			switch r.IntN(3) {
			case 0:
				b = slices.Insert(b, at, randomLines(1+r.IntN(3))...)
			case 1:
				if at < len(b) {
					b = slices.Delete(b, at, min(len(b), at+1+r.IntN(3)))
				}
			default:
				if at < len(b) {
					b[at] = words[r.IntN(len(words))]
				}
			}
		}
		before, after := join(a, r.IntN(4) > 0), join(b, r.IntN(4) > 0)
		var want strings.Builder
		fmt.Fprintf(&want, "Index: f\n%s\n--- f\toriginal\n+++ f\tmodified\n", diffRule)
		u, err := udiff.ToUnifiedDiff("f", "f", before, myers.ComputeEdits(before, after), diffContext)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range u.Hunks {
			writeHunk(&want, h)
		}
		if got := unifiedPatch("f", before, after); got != want.String() {
			t.Fatalf("case %d: before %q after %q:\ngot\n%s\nwant\n%s", i, before, after, got, want.String())
		}
	}
}
