package search

import (
	"bytes"
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
type needle struct {
	s    []byte // lower case when fold
	fold bool   // ASCII letters match either case
	k    int    // index in s of the byte the scan looks for
	c, C byte   // that byte, in both cases (equal when it is not a letter)
}

// newNeedle prepares a literal for searching.
func newNeedle(s string, fold bool) needle {
	n := needle{s: []byte(s), fold: fold}
	best := -1
	for i := range len(s) {
		r := rarity(s[i])
		if fold {
			r = min(r, rarity(upper(s[i])))
		}
		if r > best {
			best, n.k = r, i
		}
	}
	n.c = s[n.k]
	n.C = n.c
	if fold {
		n.C = upper(n.c)
	}
	return n
}

// index returns the position of the first occurrence of n in h, or -1.
func (n *needle) index(h []byte) int {
	if !n.fold {
		return n.indexExact(h)
	}
	return n.indexFold(h)
}

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
		// Like bytes.Index: when the anchor byte is common, stopping at
		// every candidate costs more than a plain substring search.
		if fails++; fails > 16 && fails > i>>4 {
			if r := bytes.Index(h[p+1:], n.s); r >= 0 {
				return p + 1 + r
			}
			return -1
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
