package search

import "golang.org/x/sys/cpu"

// hasAVX2 selects the vector pair scan.
var hasAVX2 = cpu.X86.HasAVX2

// pairAVX2 tests 32 positions at a time (pair_amd64.s): it returns the
// first i < n&^31 where (pa[i]|m[0]) == m[1] and (pb[i]|m[2]) == m[3], or
// -1.
//
//go:noescape
func pairAVX2(pa, pb *byte, n int, m *[4]byte) int

// pairVector runs the vector scan over the positions [from, len(ha)) of
// ha and hb (of equal length) and returns the first candidate, or -1
// with the position where the scalar scan must take over.
func (ps *pairScan) pairVector(ha, hb []byte, from int) (int, int) {
	n := len(ha) - from
	if !hasAVX2 || n < 32 {
		return -1, from
	}
	m := [4]byte{byte(ps.ma), byte(ps.va), byte(ps.mb), byte(ps.vb)}
	if i := pairAVX2(&ha[from], &hb[from], n, &m); i >= 0 {
		return from + i, from
	}
	return -1, from + n&^31
}
