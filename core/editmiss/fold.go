package editmiss

import (
	"strings"
	"unicode/utf8"
)

// lookalikes maps characters an agent (or a word processor) writes in
// place of the ASCII ones source code holds: typographic quotes, dashes,
// primes, and spaces that are not spaces. Zero-width characters map to "".
var lookalikes = map[rune]string{
	'\u2018': "'", '\u2019': "'", '\u201a': "'", '\u201b': "'", '\u2032': "'",
	'\u201c': `"`, '\u201d': `"`, '\u201e': `"`, '\u201f': `"`, '\u2033': `"`,
	'\u2010': "-", '\u2011': "-", '\u2012': "-", '\u2013': "-", '\u2014': "-", '\u2212': "-",
	'\u00a0': " ", '\u2007': " ", '\u2009': " ", '\u202f': " ", '\u3000': " ",
	'\u2026': "...",
	'\u200b': "", '\u200c': "", '\u200d': "", '\ufeff': "",
}

// fold replaces look-alike characters with their ASCII originals; ASCII
// text is returned as it is, without copying.
func fold(s string) string {
	if isASCII(s) {
		return s
	}
	var sb strings.Builder
	for _, r := range s {
		if a, ok := lookalikes[r]; ok {
			sb.WriteString(a)
		} else {
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// isASCII reports whether s holds only ASCII bytes.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// firstLookalike returns the first look-alike rune of s that folds into
// what the file has, and that ASCII text, or ok false.
func firstLookalike(s string) (r rune, ascii string, ok bool) {
	for _, c := range s {
		if a, hit := lookalikes[c]; hit {
			return c, a, true
		}
	}
	return 0, "", false
}

// isSpace is the horizontal whitespace of indentation and line ends.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\v' || c == '\f' }

// split returns the leading whitespace, the text and the trailing
// whitespace of a line (without its line end).
func split(l string) (lead, mid, trail string) {
	i := 0
	for i < len(l) && isSpace(l[i]) {
		i++
	}
	j := len(l)
	for j > i && isSpace(l[j-1]) {
		j--
	}
	return l[:i], l[i:j], l[j:]
}

// key is what two lines must share to be the same line but for
// whitespace around them and look-alike characters.
func key(l string) string {
	_, mid, _ := split(strings.TrimSuffix(l, "\r"))
	return fold(mid)
}

// unescape turns the escapes an agent may have sent literally (\n, \t,
// \r\n) into the characters they stand for.
func unescape(s string) string {
	return strings.NewReplacer(`\r\n`, "\n", `\n`, "\n", `\t`, "\t").Replace(s)
}

// unescapeBreaks reads as line breaks only the \n escapes that do not
// end a string or character literal of the code (followed by a quote, a
// comma, a parenthesis), so an edit of code whose strings hold \n
// escapes themselves is read as the agent meant it.
func unescapeBreaks(s string) string {
	var sb strings.Builder
	for {
		i := strings.Index(s, `\n`)
		if i < 0 {
			sb.WriteString(s)
			return sb.String()
		}
		sb.WriteString(s[:i])
		s = s[i+2:]
		if s != "" && strings.ContainsRune("\"'`,);", rune(s[0])) {
			sb.WriteString(`\n`)
		} else {
			sb.WriteString("\n")
		}
	}
}

// hasEscapes reports whether s holds a literal \n or \t.
func hasEscapes(s string) bool {
	return strings.Contains(s, `\n`) || strings.Contains(s, `\t`)
}
