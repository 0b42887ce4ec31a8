// Package plural provides counted nouns for messages people read: "1 file",
// "2 files", never "1 files".
package plural

import "strconv"

// N returns n and the noun that goes with it: one when n is 1 (or -1),
// many otherwise ("0 files", "1 file", "2 files").
func N(n int, one, many string) string {
	if n == 1 || n == -1 {
		return strconv.Itoa(n) + " " + one
	}
	return strconv.Itoa(n) + " " + many
}

// S is N for nouns whose plural adds an s: S(1, "line") is "1 line",
// S(2, "line") "2 lines".
func S(n int, noun string) string {
	return N(n, noun, noun+"s")
}
