package editmiss

import "strings"

// lineSim is how alike a file line's key is to the edit's line j, from 0
// to 1: the share of the longer that the two begin and end with alike.
// The edit's first and last lines may be part of a line, so they are
// also compared with the end or the start of the file's line.
func lineSim(fk string, e edit, j int) float64 {
	ek := e.keys[j]
	if lineMatches(fk, e, j) {
		return 1
	}
	best := sim(fk, ek)
	if len(fk) <= len(ek) || ek == "" {
		return best
	}
	if j == 0 || len(e.lines) == 1 {
		best = max(best, sim(fk[len(fk)-len(ek):], ek))
	}
	if j == len(e.lines)-1 {
		best = max(best, sim(fk[:len(ek)], ek))
	}
	if len(e.lines) == 1 {
		best = max(best, alignedSim(fk, ek))
	}
	return best
}

// alignedSim compares ek with the part of fk that starts where ek's
// first few bytes occur, or ends where its last few do.
func alignedSim(fk, ek string) float64 {
	const probe = 6
	n := min(probe, len(ek))
	best := 0.0
	if i := strings.Index(fk, ek[:n]); i >= 0 && i+len(ek) <= len(fk) {
		best = sim(fk[i:i+len(ek)], ek)
	}
	if i := strings.LastIndex(fk, ek[len(ek)-n:]); i >= 0 && i+n >= len(ek) {
		best = max(best, sim(fk[i+n-len(ek):i+n], ek))
	}
	return best
}

// sim is the share of the longer of a and b that they begin and end with
// alike.
func sim(a, b string) float64 {
	long := max(len(a), len(b))
	if long == 0 {
		return 1
	}
	p, s := commonEnds(a, b)
	return float64(p+s) / float64(long)
}

// commonEnds returns how many bytes a and b begin with alike and how
// many they end with alike after that, never overlapping.
func commonEnds(a, b string) (prefix, suffix int) {
	n := min(len(a), len(b))
	for prefix < n && a[prefix] == b[prefix] {
		prefix++
	}
	for suffix < n-prefix && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
		suffix++
	}
	return prefix, suffix
}

// contains is strings.Contains, named for what lineMatches asks.
func contains(s, sub string) bool { return strings.Contains(s, sub) }
