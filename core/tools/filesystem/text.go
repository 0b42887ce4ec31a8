package filesystem

// Text as server-filesystem reads it: Node decodes a file read as
// "utf-8" by the WHATWG UTF-8 decoder (Encoding Standard, "UTF-8 decoder"),
// which turns each maximal subpart of an ill-formed sequence into one
// U+FFFD (Unicode §3.9, "U+FFFD Substitution of Maximal Subparts"). Go's
// string conversion and encoding/json instead give one U+FFFD per bad
// byte.

import (
	"unicode/utf8"

	xunicode "golang.org/x/text/encoding/unicode"
)

// decodeText is data as Node's TextDecoder (and Buffer.toString) gives
// it: valid UTF-8 unchanged, each maximal subpart of an ill-formed
// sequence one U+FFFD. A byte order mark is kept, as Node keeps it.
func decodeText(data []byte) string {
	if utf8.Valid(data) {
		return string(data)
	}
	// x/text's UTF-8 decoder replaces maximal subparts ("the W3C standard
	// way"); it never fails.
	out, _ := xunicode.UTF8.NewDecoder().Bytes(data)
	return string(out)
}

// decodeString is decodeText of a string.
func decodeString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return decodeText([]byte(s))
}

// nextPiece returns the length of what s starts with: a well-formed
// character, or a maximal subpart of an ill-formed sequence (valid is
// false), which decodes to one U+FFFD. s must not be empty. The ranges are
// Unicode's table 3-7, "Well-Formed UTF-8 Byte Sequences".
func nextPiece(s string) (n int, valid bool) {
	c := s[0]
	if c < utf8.RuneSelf {
		return 1, true
	}
	need, lo, hi := 0, byte(0x80), byte(0xbf)
	switch {
	case c >= 0xc2 && c <= 0xdf:
		need = 1
	case c == 0xe0:
		need, lo = 2, 0xa0
	case c == 0xed:
		need, hi = 2, 0x9f // no surrogates
	case c >= 0xe1 && c <= 0xef:
		need = 2
	case c == 0xf0:
		need, lo = 3, 0x90
	case c >= 0xf1 && c <= 0xf3:
		need = 3
	case c == 0xf4:
		need, hi = 3, 0x8f // nothing above U+10FFFF
	default:
		return 1, false // a continuation byte, C0, C1 or F5..FF
	}
	for i := 1; i <= need; i++ {
		if i >= len(s) || s[i] < lo || s[i] > hi {
			return i, false
		}
		lo, hi = 0x80, 0xbf
	}
	return need + 1, true
}

// rawOffset returns the offset in raw of the bytes that decode to the
// first n bytes of decodeString(raw); n must fall between characters.
func rawOffset(raw string, n int) int {
	i, decoded := 0, 0
	for i < len(raw) && decoded < n {
		size, valid := nextPiece(raw[i:])
		if valid {
			decoded += size
		} else {
			decoded += utf8.RuneLen(utf8.RuneError)
		}
		i += size
	}
	return i
}

// keepUndecodable returns the bytes to write for a file whose bytes raw
// decoded to text and whose new text is out: out, except that where out
// starts and ends as text does, raw's own bytes are kept, so bytes that
// are not UTF-8 outside the edited part stay as they were (server-filesystem
// writes each maximal subpart back as U+FFFD). The result always decodes to
// out; where keeping bytes would not (an edit that joins two ill-formed
// pieces into one), out is written as it is.
func keepUndecodable(raw, text, out string) string {
	if raw == text {
		return out
	}
	p := 0
	for p < len(text) && p < len(out) && text[p] == out[p] {
		p++
	}
	for p > 0 && p < len(text) && !utf8.RuneStart(text[p]) {
		p--
	}
	s := 0
	for s < len(text)-p && s < len(out)-p && text[len(text)-1-s] == out[len(out)-1-s] {
		s++
	}
	for s > 0 && !utf8.RuneStart(text[len(text)-s]) {
		s--
	}
	kept := raw[:rawOffset(raw, p)] + out[p:len(out)-s] + raw[rawOffset(raw, len(text)-s):]
	if decodeString(kept) != out {
		return out
	}
	return kept
}
