package search

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strings"
)

// commonBytes lists bytes roughly from most to least frequent in source
// code and prose. A literal is searched for by its least frequent byte:
// the fewer false candidates the scan stops at, the closer it runs to the
// speed of bytes.IndexByte. Bytes not listed are the rarest.
const commonBytes = " e\tt\nainorsl_cd.(pu)m,\"fh=g:/bTy;-ESRCA*xvIwNO0D{}PLF1M[]2kB<>jUGH'q&!z3W4V5K#6789Y|JX+Z\\Q%@$?~^`"

// rarity rates a byte: higher is rarer.
func rarity(c byte) int {
	if i := strings.IndexByte(commonBytes, c); i >= 0 {
		return i
	}
	return len(commonBytes)
}

// needle is one literal to search for.
//
// A search starts by scanning for the literal's rarest byte with
// bytes.IndexByte (vectorized, the fastest scan there is while the byte is
// rare). When that byte turns out common in the text, stopping at each of
// its occurrences costs more than it saves, and the search switches to
// pairScan: a scan, eight positions at a time, for the places where the
// literal's two rarest bytes both sit at their offsets, which few places
// do.
type needle struct {
	s    []byte // lower case when fold
	fold bool   // ASCII letters match either case
	k    int    // index in s of the byte the scan looks for
	c, C byte   // that byte, in both cases (equal when it is not a letter)
	pair pairScan
}

// newNeedle prepares a literal for searching.
func newNeedle(s string, fold bool) needle {
	n := needle{s: []byte(s), fold: fold}
	n.k = rarest(s, fold, -1)
	n.c = s[n.k]
	n.C = n.c
	if fold {
		n.C = upper(n.c)
	}
	if len(s) > 1 {
		n.pair = newPairScan(s, fold, n.k, rarest(s, fold, n.k))
	}
	return n
}

// rarest returns the index of the rarest byte of s, other than at skip.
func rarest(s string, fold bool, skip int) int {
	best, k := -1, 0
	for i := range len(s) {
		r := rarity(s[i])
		if fold {
			r = min(r, rarity(upper(s[i])))
		}
		if r > best && i != skip {
			best, k = r, i
		}
	}
	return k
}

// index returns the position of the first occurrence of n in h, or -1.
func (n *needle) index(h []byte) int {
	if !n.fold {
		return n.indexExact(h)
	}
	return n.indexFold(h)
}

// tooManyFails reports whether a byte scan that stopped fails times in
// its first i bytes should hand over to the pair scan: break-even is
// about one false stop in 64 bytes.
func tooManyFails(fails, i int) bool { return fails > 16 && fails > i>>6 }

// indexExact finds the literal exactly: scan for its rarest byte, then
// compare the whole literal around it.
func (n *needle) indexExact(h []byte) int {
	m := len(n.s)
	lim := len(h) - m + n.k + 1 // anchor positions lie in [k, lim)
	fails := 0
	for i := n.k; i < lim; {
		j := bytes.IndexByte(h[i:lim], n.c)
		if j < 0 {
			return -1
		}
		p := i + j - n.k
		if bytes.Equal(h[p:p+m], n.s) {
			return p
		}
		i += j + 1
		if fails++; m > 1 && tooManyFails(fails, i) {
			return n.pairFrom(h, p+1)
		}
	}
	return -1
}

// indexFold finds the literal ignoring the case of ASCII letters: two
// byte scans, one per case of the anchor byte, advance together.
func (n *needle) indexFold(h []byte) int {
	m := len(n.s)
	lim := len(h) - m + n.k + 1
	lo, up := -1, lim // next positions of each case, lim when none
	if n.C != n.c {
		up = -1
	}
	fails := 0
	for i := n.k; i < lim; {
		if lo < i {
			lo = nextByte(h[:lim], n.c, i)
		}
		if up < i {
			up = nextByte(h[:lim], n.C, i)
		}
		p := min(lo, up)
		if p >= lim {
			return -1
		}
		if start := p - n.k; equalFold(h[start:start+m], n.s) {
			return start
		}
		i = p + 1
		if fails++; m > 1 && tooManyFails(fails, i) {
			return n.pairFrom(h, p-n.k+1)
		}
	}
	return -1
}

// pairFrom finds the literal at or after position from with the pair
// scan.
func (n *needle) pairFrom(h []byte, from int) int {
	for p := from; ; p++ {
		q := n.pair.next(h, p)
		if q < 0 {
			return -1
		}
		p = q
		if n.fold && equalFold(h[p:p+len(n.s)], n.s) || !n.fold && bytes.Equal(h[p:p+len(n.s)], n.s) {
			return p
		}
	}
}

// SWAR constants: every byte 0x01, 0x7f, 0x80.
const (
	ones  = 0x0101010101010101
	low7  = 0x7f7f7f7f7f7f7f7f
	highs = 0x8080808080808080
)

// pairScan finds the positions p where two bytes of a literal, at offsets
// a and b, are both in place: (h[p+a] | ma) == va and the same for b. The
// OR mask is 0x20 for a letter under case folding (it maps an ASCII
// upper-case letter to its lower case, and only it), else 0.
type pairScan struct {
	a, b   int
	ma, mb uint64 // masks, repeated in every byte
	va, vb uint64 // wanted bytes, repeated in every byte
	n      int    // the literal's length
}

// newPairScan prepares a pair scan for s at offsets a and b.
func newPairScan(s string, fold bool, a, b int) pairScan {
	mask := func(c byte) uint64 {
		if fold && 'a' <= c && c <= 'z' {
			return 0x20 * ones
		}
		return 0
	}
	return pairScan{a: a, b: b, ma: mask(s[a]), mb: mask(s[b]), va: uint64(s[a]) * ones, vb: uint64(s[b]) * ones, n: len(s)}
}

// next returns the first candidate position at or after from, or -1.
// Eight positions are tested per step: the words loaded at from+a and
// from+b hold the a-th and b-th bytes of the eight literals that would
// start there; a byte of x is zero where it is in place, and z gets the
// high bit of every byte where both are.
func (ps *pairScan) next(h []byte, from int) int {
	last := len(h) - ps.n // the last possible start
	if from > last {
		return -1
	}
	ha, hb := h[ps.a:last+ps.a+1], h[ps.b:last+ps.b+1] // start p's bytes at ha[p], hb[p] (bounded by 8 more, see below)
	i, k := ps.pairVector(ha, hb, from)
	if i >= 0 {
		return i
	}
	ma, va, mb, vb := ps.ma, ps.va, ps.mb, ps.vb
	i = k
	for ; i+16 <= len(ha) && i+16 <= len(hb); i += 16 {
		wa, wb := ha[i:i+16:i+16], hb[i:i+16:i+16]
		x0 := (binary.LittleEndian.Uint64(wa[:8]) | ma) ^ va
		y0 := (binary.LittleEndian.Uint64(wb[:8]) | mb) ^ vb
		x1 := (binary.LittleEndian.Uint64(wa[8:]) | ma) ^ va
		y1 := (binary.LittleEndian.Uint64(wb[8:]) | mb) ^ vb
		// A byte of t has its high bit clear exactly when that byte of
		// x (or of y) is zero.
		z0 := ^(((x0 & low7) + low7) | x0 | ((y0 & low7) + low7) | y0) & highs
		z1 := ^(((x1 & low7) + low7) | x1 | ((y1 & low7) + low7) | y1) & highs
		if z0|z1 != 0 {
			if z0 != 0 {
				return i + bits.TrailingZeros64(z0)/8
			}
			return i + 8 + bits.TrailingZeros64(z1)/8
		}
	}
	for ; i <= last; i++ {
		if ha[i]|byte(ma) == byte(va) && hb[i]|byte(mb) == byte(vb) {
			return i
		}
	}
	return -1
}

// nextByte returns the position of c in h at or after from, or len(h).
func nextByte(h []byte, c byte, from int) int {
	if j := bytes.IndexByte(h[from:], c); j >= 0 {
		return from + j
	}
	return len(h)
}

// equalFold reports whether b equals the lower-case lit when ASCII letters
// of b are lower-cased.
func equalFold(b, lit []byte) bool {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lit[i] {
			return false
		}
	}
	return true
}

// upper returns the upper case of an ASCII lower-case letter, else c.
func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// finder searches one buffer for the first occurrence of any of a set of
// needles, moving forward. It remembers where each needle next occurs, so
// advancing line by line never scans the same bytes twice for a needle.
type finder struct {
	needles []needle
	next    [maxLitSet]int // next occurrence at or after the last from; -1 unknown, len(buf) none
}

// reset prepares the finder for a new buffer.
func (f *finder) reset() {
	for i := range f.needles {
		f.next[i] = -1
	}
}

// find returns the position of the first needle occurrence in buf at or
// after from, or -1. Successive calls on one buffer must not move from
// backwards.
func (f *finder) find(buf []byte, from int) int {
	if len(f.needles) == 1 {
		if i := f.needles[0].index(buf[from:]); i >= 0 {
			return from + i
		}
		return -1
	}
	best := len(buf)
	for i := range f.needles {
		if f.next[i] < from {
			f.next[i] = len(buf)
			if j := f.needles[i].index(buf[from:]); j >= 0 {
				f.next[i] = from + j
			}
		}
		best = min(best, f.next[i])
	}
	if best == len(buf) {
		return -1
	}
	return best
}
