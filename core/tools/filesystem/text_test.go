package filesystem

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestDecodeText: one U+FFFD per maximal subpart (the examples of Unicode
// §3.9 and the WHATWG decoder), not one per byte.
func TestDecodeText(t *testing.T) {
	const r = "\uFFFD"
	for _, c := range []struct{ in, want string }{
		{"plain é 🙂", "plain é 🙂"},
		{"\xef\xbb\xbfbom", "\ufeffbom"}, // kept, as Buffer.toString keeps it
		{"a\xffb", "a" + r + "b"},
		{"\xe2\x82A", r + "A"},              // a truncated 3-byte sequence: one subpart
		{"\xe2\x82", r},                     // ... at the end
		{"\xf0\x9f\x99", r},                 // a truncated 4-byte one
		{"\xf0\x80\x80", r + r + r},         // F0 80 is not a prefix of anything
		{"\xed\xa0\x80", r + r + r},         // a surrogate
		{"\xc0\xaf", r + r},                 // overlong
		{"\xf4\x90\x80\x80", r + r + r + r}, // above U+10FFFF
		{"\x80\xbf", r + r},
		{"\xe1\x80\xe1\x80\x80", r + "\u1000"},
		{"\xf1\x80\x80\xf1\x80\x80\x80", r + "\U00040000"},
		{"\xc2", r},
	} {
		if got := decodeText([]byte(c.in)); got != c.want {
			t.Errorf("decodeText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// decodePieces decodes s with nextPiece.
func decodePieces(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); {
		n, valid := nextPiece(s[i:])
		if valid {
			sb.WriteString(s[i : i+n])
		} else {
			sb.WriteRune(utf8.RuneError)
		}
		i += n
	}
	return sb.String()
}

// FuzzNextPiece: nextPiece, which keepUndecodable uses to map decoded text
// back to bytes, splits every input as x/text's decoder does, and
// rawOffset maps every character boundary back to the bytes before it.
func FuzzNextPiece(f *testing.F) {
	for _, s := range []string{"", "a\xffb", "\xe2\x82A", "\xf0\x80\x80", "\xed\xa0\x80", "\xf4\x8f\xbf\xbf\xf4\x90", "é🙂"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := decodeText(b)
		if got := decodePieces(string(b)); got != want {
			t.Fatalf("pieces of %q decode to %q, x/text to %q", b, got, want)
		}
		for n := 0; n <= len(want); n++ {
			if n < len(want) && !utf8.RuneStart(want[n]) {
				continue
			}
			if got := decodePieces(string(b[:rawOffset(string(b), n)])); got != want[:n] {
				t.Fatalf("%q: rawOffset(%d) leads to %q, want %q", b, n, got, want[:n])
			}
		}
	})
}

// TestDecodePiecesRandom runs FuzzNextPiece's check on random bytes
// biased to the boundaries of the UTF-8 ranges, without -fuzz.
func TestDecodePiecesRandom(t *testing.T) {
	edges := []byte{0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff}
	r := rand.New(rand.NewPCG(27, 4))
	for range 20000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = edges[r.IntN(len(edges))]
		}
		if got, want := decodePieces(string(b)), decodeText(b); got != want {
			t.Fatalf("pieces of %q decode to %q, x/text to %q", b, got, want)
		}
	}
}

// TestKeepUndecodable: an edit keeps the bytes that are not UTF-8 outside
// it, and what is written always reads back as the edited text.
func TestKeepUndecodable(t *testing.T) {
	for _, c := range []struct{ raw, from, to, want string }{
		{"a\xff\nold\nz\xfe\n", "old", "new", "a\xff\nnew\nz\xfe\n"},
		{"\xe2\x82 old", "old", "", "\xe2\x82 "},
		{"valid old", "old", "new", "valid new"},
		// Deleting "X" would join E2 and 82 AC into a valid "€": the text
		// server-filesystem writes (three U+FFFD) is written instead.
		{"\xe2X\x82\xac", "X", "", "\uFFFD\uFFFD\uFFFD"},
	} {
		text := decodeString(c.raw)
		out := strings.Replace(text, decodeString(c.from), c.to, 1)
		if got := keepUndecodable(c.raw, text, out); got != c.want {
			t.Errorf("edit %q -> %q in %q: wrote %q, want %q", c.from, c.to, c.raw, got, c.want)
		}
	}
	r := rand.New(rand.NewPCG(27, 5))
	alphabet := []string{"a", "b", "\n", "é", "\xff", "\xe2\x82", "\x82", "\xac", "\xf0\x9f", "🙂", "\uFFFD"}
	pick := func(n int) string {
		var sb strings.Builder
		for range n {
			sb.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return sb.String()
	}
	for range 5000 {
		raw := pick(r.IntN(10))
		text := decodeString(raw)
		i := r.IntN(len(text) + 1)
		for i < len(text) && !utf8.RuneStart(text[i]) {
			i++
		}
		j := i + r.IntN(len(text)-i+1)
		for j < len(text) && !utf8.RuneStart(text[j]) {
			j++
		}
		out := text[:i] + decodeString(pick(r.IntN(3))) + text[j:]
		got := keepUndecodable(raw, text, out)
		if decodeString(got) != out {
			t.Fatalf("raw %q edited to %q: wrote %q, which reads %q", raw, out, got, decodeString(got))
		}
		if got != out && !strings.HasPrefix(raw, got[:rawOffset(got, i)]) {
			t.Fatalf("raw %q edited at %d: wrote %q, not raw's bytes before the edit", raw, i, got)
		}
	}
}
