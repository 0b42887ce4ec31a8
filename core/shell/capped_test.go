package shell

import (
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// referenceCapped computes what Capped should produce for data, the simple
// way: decode everything, keep the first and last characters.
func referenceCapped(data []byte, limit int) (string, int64) {
	var chars []string
	for len(data) > 0 {
		_, size := utf8.DecodeRune(data)
		chars = append(chars, string(data[:size]))
		data = data[size:]
	}
	headN, tailN := limit/2, limit-limit/2
	if len(chars) <= limit {
		return strings.Join(chars, ""), 0
	}
	cut := int64(len(chars) - limit)
	return strings.Join(chars[:headN], "") + cutMarker(cut) + strings.Join(chars[len(chars)-tailN:], ""), cut
}

// writeChunks writes data to c in pieces of the given sizes (cycled).
func writeChunks(t *testing.T, c *Capped, data []byte, sizes []int) {
	t.Helper()
	for i := 0; len(data) > 0; i++ {
		n := min(sizes[i%len(sizes)], len(data))
		got, err := c.Write(data[:n])
		if err != nil || got != n {
			t.Fatalf("Write(%d bytes) = %d, %v; want %d, nil", n, got, err, n)
		}
		data = data[n:]
	}
}

func TestCapped(t *testing.T) {
	tests := []struct {
		name    string
		limit   int
		data    string
		sizes   []int
		want    string
		wantCut int64
	}{
		{"empty", 10, "", []int{1}, "", 0},
		{"under limit", 10, "hello", []int{100}, "hello", 0},
		{"exactly limit", 4, "abcd", []int{1}, "abcd", 0},
		{"ascii cut", 4, "abcdefgh", []int{3}, "ab" + cutMarker(4) + "gh", 4},
		{"odd limit keeps more tail", 5, "abcdefgh", []int{8}, "ab" + cutMarker(3) + "fgh", 3},
		{"runes split byte by byte", 4, "€€ab€€", []int{1}, "€€" + cutMarker(2) + "€€", 2},
		{"runes split 2+2", 4, "😀é😀xyz😀", []int{2}, "😀é" + cutMarker(3) + "z😀", 3},
		{"rune counted as one char", 6, "ααααα", []int{3}, "ααααα", 0},
		{"invalid bytes count one each", 4, "\xff\xfeab\xe2\x82", []int{1}, "\xff\xfe" + cutMarker(2) + "\xe2\x82", 2},
		{"truncated rune then ascii", 4, "a\xe2\x82bcdef", []int{2}, "a\xe2" + cutMarker(4) + "ef", 4},
		{"limit one", 1, "abc", []int{1}, cutMarker(2) + "c", 2},
		{"zero limit means default", 0, "abc", []int{1}, "abc", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCapped(tt.limit)
			writeChunks(t, c, []byte(tt.data), tt.sizes)
			if got := c.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if got := c.Cut(); got != tt.wantCut {
				t.Errorf("Cut() = %d, want %d", got, tt.wantCut)
			}
		})
	}
}

// TestCappedMatchesReference feeds random mixes of ASCII, multi-byte runes
// and invalid bytes in random chunk sizes and compares with the reference.
func TestCappedMatchesReference(t *testing.T) {
	pieces := []string{"a", "b\n", "é", "€", "😀", "\xff", "\xe2\x82", "\x80", "\xf0\x9f"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		var sb strings.Builder
		for range rng.IntN(400) {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		data := []byte(sb.String())
		limit := 1 + rng.IntN(60)
		sizes := []int{1 + rng.IntN(7), 1 + rng.IntN(50)}
		c := NewCapped(limit)
		writeChunks(t, c, data, sizes)
		want, wantCut := referenceCapped(data, limit)
		if diff := cmp.Diff(want, c.String()); diff != "" {
			t.Fatalf("case %d (limit %d, sizes %v, data %q): String() mismatch (-want +got):\n%s", i, limit, sizes, data, diff)
		}
		if got := c.Cut(); got != wantCut {
			t.Fatalf("case %d: Cut() = %d, want %d", i, got, wantCut)
		}
	}
}

// TestCappedPendingRuneSnapshot checks String while a rune is half written
// does not disturb the final result.
func TestCappedPendingRuneSnapshot(t *testing.T) {
	c := NewCapped(10)
	c.Write([]byte("x\xe2\x82"))
	if got, want := c.String(), "x\xe2\x82"; got != want {
		t.Errorf("mid-rune String() = %q, want %q", got, want)
	}
	c.Write([]byte("\xacy"))
	if got, want := c.String(), "x€y"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestCappedConcurrentStringAndWrite(t *testing.T) {
	c := NewCapped(100)
	var wg sync.WaitGroup
	wg.Go(func() {
		for range 2000 {
			c.Write([]byte("héllo wörld\n"))
		}
	})
	wg.Go(func() {
		for range 200 {
			if s := c.String(); !utf8.ValidString(s) {
				t.Errorf("String() = %q, not valid UTF-8", s)
				return
			}
		}
	})
	wg.Wait()
	if got, want := c.Cut(), int64(2000*12-100); got != want {
		t.Errorf("Cut() = %d, want %d", got, want)
	}
}
