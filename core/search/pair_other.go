//go:build !amd64

package search

// pairVector is the vector pair scan where there is none: it leaves
// every position to the scalar scan.
func (ps *pairScan) pairVector(ha, hb []byte, from int) (int, int) { return -1, from }
