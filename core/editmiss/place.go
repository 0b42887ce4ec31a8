package editmiss

import (
	"cmp"
	"slices"
	"strings"
)

// placement is where an edit's first line sits in the file (0-based;
// -1 for nowhere) and how well the window there matches it.
type placement struct {
	start   int
	stopped int     // the line at which the comparisons' budget ran out; 0 if it did not
	exact   bool    // every line matches but for whitespace and look-alikes
	score   float64 // similarity of the window, summed over its lines
	others  []int   // further exact starts
	escaped bool    // the edit matched once its escapes were read
}

// better reports whether p places an edit better than q.
func (p placement) better(q placement) bool {
	switch {
	case p.start < 0:
		return false
	case q.start < 0:
		return true
	case p.exact != q.exact:
		return p.exact
	}
	return p.score > q.score
}

// fileKeys computes the key of every line once.
func fileKeys(lines []string) []string {
	keys := make([]string, len(lines))
	for i, l := range lines {
		keys[i] = key(l)
	}
	return keys
}

// place finds the window of the file closest to e: every window whose
// lines match e's but for whitespace and look-alikes (the one whose
// whitespace differs least first), else the most similar.
func place(file, keys []string, e edit, lim Limits) placement {
	starts, stopped := keyMatches(keys, e)
	if len(starts) > 0 {
		best := 0
		for i, s := range starts {
			if rawScore(file, s, e) > rawScore(file, starts[best], e) {
				best = i
			}
		}
		others := append(append([]int{}, starts[:best]...), starts[best+1:]...)
		return placement{start: starts[best], stopped: stopped, exact: true, score: float64(len(e.lines)), others: others}
	}
	p := fuzzy(keys, e, lim)
	p.stopped = stopped
	return p
}

// matchBudget bounds the line comparisons of keyMatches: a file of
// repeated lines and an edit of as many repeats would otherwise cost
// their product.
const matchBudget = 5_000_000

// rawScore counts the lines of the window at start whose indentation and
// whose trailing whitespace are e's.
func rawScore(file []string, start int, e edit) int {
	n := 0
	for j, o := range e.lines {
		lf, _, tf := split(strings.TrimSuffix(file[start+j], "\r"))
		lo, _, to := split(strings.TrimSuffix(o, "\r"))
		if lf == lo {
			n++
		}
		if tf == to {
			n++
		}
	}
	return n
}

// keyMatches lists the starts of the windows whose lines all match e's
// (up to MaxPlaces+1 of them), and the line at which it stopped when the
// comparisons reached matchBudget.
func keyMatches(keys []string, e edit) (starts []int, stopped int) {
	spent := 0
	for i := 0; i+len(e.lines) <= len(keys) && len(starts) <= MaxPlaces; i++ {
		ok, n := windowMatches(keys[i:i+len(e.lines)], e)
		if ok {
			starts = append(starts, i)
		}
		if spent += n; spent > matchBudget {
			return starts, i + 1
		}
	}
	return starts, 0
}

// windowMatches reports whether every line of a window matches e's, and
// how many lines it compared.
func windowMatches(window []string, e edit) (bool, int) {
	for j, k := range window {
		if !lineMatches(k, e, j) {
			return false, j + 1
		}
	}
	return true, len(window)
}

// lineMatches compares a file line's key with the edit's line j: equal,
// or, for the edit's first and last lines, which may hold part of a
// line, its end and its start.
func lineMatches(fk string, e edit, j int) bool {
	ek := e.keys[j]
	switch {
	case fk == ek:
		return true
	case ek == "":
		return false
	case len(e.lines) == 1:
		return contains(fk, ek)
	case j == 0:
		return len(fk) >= len(ek) && fk[len(fk)-len(ek):] == ek
	case j == len(e.lines)-1:
		return len(fk) >= len(ek) && fk[:len(ek)] == ek
	}
	return false
}

// fuzzy places e at the most similar of the windows most of its lines
// vote for (each line of the file votes for the start its match implies)
// and the window where its longest line is most similar to a line of the
// file.
func fuzzy(keys []string, e edit, lim Limits) placement {
	// The votes of common lines can outnumber the true window's when
	// its distinctive line differs: that line's most similar match is
	// scored too.
	starts := append(vote(keys, e, lim.MaxOldLines), anchor(keys, e, lim.MaxOldLines)...)
	best := placement{start: -1}
	for _, s := range starts {
		if p := (placement{start: s, score: windowScore(keys, s, e)}); p.better(best) {
			best = p
		}
	}
	return best
}

// minVoteKey is the shortest line that votes: a lone brace says nothing
// about where an edit is.
const minVoteKey = 3

// maxRepeats is how many times one line of an edit votes: a line
// repeated more often says little about where the edit is, and would
// multiply the votes.
const maxRepeats = 4

// maxCandidates is how many of the most-voted starts are scored.
const maxCandidates = 8

// vote returns the starts most lines of e vote for, most votes first.
func vote(keys []string, e edit, maxOld int) []int {
	idx := map[string][]int{}
	for j, k := range e.keys[:min(len(e.keys), maxOld)] {
		if len(k) >= minVoteKey && len(idx[k]) < maxRepeats {
			idx[k] = append(idx[k], j)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	votes := map[int]int{}
	for i, k := range keys {
		for _, j := range idx[k] {
			votes[i-j]++
		}
	}
	starts := make([]int, 0, len(votes))
	for s := range votes {
		starts = append(starts, s)
	}
	slices.SortFunc(starts, func(a, b int) int {
		return cmp.Or(cmp.Compare(votes[b], votes[a]), cmp.Compare(a, b))
	})
	return starts[:min(len(starts), maxCandidates)]
}

// anchor returns the starts implied by the lines of the file most
// similar to e's longest line.
func anchor(keys []string, e edit, maxOld int) []int {
	j := 0
	for i, k := range e.keys[:min(len(e.keys), maxOld)] {
		if len(k) > len(e.keys[j]) {
			j = i
		}
	}
	best, at := 0.0, -1
	for i, k := range keys {
		if s := lineSim(k, e, j); s > best {
			best, at = s, i
		}
	}
	if at < 0 {
		return nil
	}
	return []int{at - j}
}

// windowScore sums the similarity of the window at start to e's lines.
func windowScore(keys []string, start int, e edit) float64 {
	total := 0.0
	for j := range e.lines {
		if i := start + j; i >= 0 && i < len(keys) {
			total += lineSim(keys[i], e, j)
		}
	}
	return total
}
