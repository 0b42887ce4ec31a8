package corpus

import (
	"math/rand/v2"
	"strings"
)

// tabsToSpaces indents with four spaces for each leading tab, as an
// agent that reformatted the text does; at least one line must be
// indented.
func tabsToSpaces(_ *rand.Rand, lines []string) ([]string, bool) {
	changed := false
	for i, l := range lines {
		t := len(l) - len(strings.TrimLeft(l, "\t"))
		if t > 0 {
			lines[i] = strings.Repeat("    ", t) + l[t:]
			changed = true
		}
	}
	return lines, changed
}

// deeper indents every line one more tab, or one less where all are.
func deeper(r *rand.Rand, lines []string) ([]string, bool) {
	all := true
	for _, l := range lines {
		all = all && (l == "" || strings.HasPrefix(l, "\t"))
	}
	for i, l := range lines {
		switch {
		case l == "":
		case all && r.IntN(2) == 0:
			lines[i] = l[1:]
		default:
			lines[i] = "\t" + l
		}
	}
	return lines, true
}

// trailing adds spaces or a tab at the end of one or two lines that hold
// text.
func trailing(r *rand.Rand, lines []string) ([]string, bool) {
	ends := []string{" ", "  ", "\t", "    "}
	var text []int
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			text = append(text, i)
		}
	}
	for range 1 + r.IntN(2) {
		i := text[r.IntN(len(text))]
		lines[i] = strings.TrimRight(lines[i], " \t") + ends[r.IntN(len(ends))]
	}
	return lines, len(text) > 0
}

// multiLine keeps the lines as they are; the class joins them with other
// line ends (CRLF, a literal \n). It needs two lines or more.
func multiLine(_ *rand.Rand, lines []string) ([]string, bool) {
	return lines, len(lines) >= 2
}

// typographic turns the first straight quote or hyphen into its
// typographic look-alike, as a word processor or a model's prose does.
func typographic(r *rand.Rand, lines []string) ([]string, bool) {
	swaps := [][2]string{{`"`, "\u201c"}, {`'`, "\u2019"}, {"-", "\u2013"}, {`"`, "\u201d"}}
	start := r.IntN(len(lines))
	for k := range lines {
		i := (start + k) % len(lines)
		for _, s := range swaps {
			if strings.Contains(lines[i], s[0]) {
				lines[i] = strings.Replace(lines[i], s[0], s[1], 1)
				return lines, true
			}
		}
	}
	return lines, false
}

// typo changes one letter of an identifier of four letters or more.
func typo(r *rand.Rand, lines []string) ([]string, bool) {
	start := r.IntN(len(lines))
	for k := range lines {
		i := (start + k) % len(lines)
		words := identifiers(lines[i])
		if len(words) == 0 {
			continue
		}
		w := words[r.IntN(len(words))]
		at := w[0] + 1 + r.IntN(w[1]-w[0]-1)
		c := lines[i][at]
		repl := byte('x')
		if c == 'x' || c == 'X' {
			repl = 'q'
		}
		lines[i] = lines[i][:at] + string(repl) + lines[i][at+1:]
		return lines, true
	}
	return lines, false
}

// identifiers returns the [start, end) of each run of four letters or
// more in l.
func identifiers(l string) [][2]int {
	var out [][2]int
	for i := 0; i < len(l); {
		j := i
		for j < len(l) && (l[j] >= 'a' && l[j] <= 'z' || l[j] >= 'A' && l[j] <= 'Z') {
			j++
		}
		if j-i >= 4 {
			out = append(out, [2]int{i, j})
		}
		i = j + 1
	}
	return out
}
