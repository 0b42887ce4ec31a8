package search

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// naiveIndex is the reference: the first i where lit occurs at h[i:],
// comparing ASCII letters case-insensitively when fold.
func naiveIndex(h []byte, lit string, fold bool) int {
	for i := 0; i+len(lit) <= len(h); i++ {
		w := h[i : i+len(lit)]
		if string(w) == lit || fold && strings.EqualFold(string(w), lit) && isASCII(w) {
			return i
		}
	}
	return -1
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

func TestNeedleMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("aAbB_x\n\r\x00é")
	for iter := range 3000 {
		h := make([]byte, rng.IntN(600)+iter%3*1000)
		for i := range h {
			h[i] = alphabet[rng.IntN(len(alphabet))]
		}
		lit := make([]byte, 1+rng.IntN(4))
		for i := range lit {
			lit[i] = alphabet[rng.IntN(6)] // ASCII only
		}
		fold := iter%2 == 0
		s := string(lit)
		if fold {
			s = lowerASCII(s)
		}
		n := newNeedle(s, fold)
		if got, want := n.index(h), naiveIndex(h, s, fold); got != want {
			t.Fatalf("index(%q in %q, fold %v) = %d, want %d", s, h, fold, got, want)
		}
	}
}

// TestPairScanMatchesNaive checks the pair scan (vector and scalar parts)
// on its own, from every kind of start position, against the reference.
func TestPairScanMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("aAbB_x\n\r\x00é")
	for iter := range 2000 {
		h := make([]byte, rng.IntN(300))
		for i := range h {
			h[i] = alphabet[rng.IntN(len(alphabet))]
		}
		lit := make([]byte, 2+rng.IntN(5))
		for i := range lit {
			lit[i] = alphabet[rng.IntN(6)]
		}
		fold := iter%2 == 0
		s := string(lit)
		if fold {
			s = lowerASCII(s)
		}
		n := newNeedle(s, fold)
		from := rng.IntN(len(h) + 1)
		want := naiveIndex(h[from:], s, fold)
		if want >= 0 {
			want += from
		}
		if got := n.pairFrom(h, from); got != want {
			t.Fatalf("pairFrom(%q in %q from %d, fold %v) = %d, want %d", s, h, from, fold, got, want)
		}
	}
}

func TestFinderSet(t *testing.T) {
	buf := []byte("one two three two one")
	f := finder{needles: []needle{newNeedle("two", false), newNeedle("one", false), newNeedle("THREE", true)}}
	f.reset()
	f.needles[2] = newNeedle("three", true)
	var got []int
	for from := 0; ; {
		p := f.find(buf, from)
		if p < 0 {
			break
		}
		got = append(got, p)
		from = p + 1
	}
	want := []int{0, 4, 8, 14, 18}
	if !slicesEqual(got, want) {
		t.Errorf("finder positions = %v, want %v", got, want)
	}
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// benchCorpus is about 4 MB of Go-like text without the needles.
func benchCorpus() []byte {
	line := "\tif err := r.ReadFrom(buf); err != nil { return fmt.Errorf(\"read %s: %w\", name, err) }\n"
	return bytes.Repeat([]byte(line), (4<<20)/len(line))
}

func BenchmarkNeedle(b *testing.B) {
	h := benchCorpus()
	for _, bc := range []struct {
		name, lit string
		fold      bool
	}{
		{"exact", "ErrUnexpectedEOF", false},
		{"fold", "deadline", true},
		{"exact-common-bytes", "return fmt.Errorf(\"reed", false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			n := newNeedle(bc.lit, bc.fold)
			b.SetBytes(int64(len(h)))
			for b.Loop() {
				if n.index(h) >= 0 {
					b.Fatal("found")
				}
			}
		})
	}
}

func TestNeedleCommonAnchor(t *testing.T) {
	h := append(bytes.Repeat([]byte("ee"), 5000), "eex"...)
	n := newNeedle("eex", false)
	if got, want := n.index(h), len(h)-3; got != want {
		t.Errorf("index = %d, want %d", got, want)
	}
}
