// Package jsonscan provides boris's one reading of untrusted JSON: a byte
// scanner for the members of an object, the nesting depth as go-sdk
// counts it, and Unmarshal, which decodes as go-sdk decodes a message.
//
// boris-gateway reads a client's message before the core does, and the
// core checks a tool's arguments before its handler reads them. Each pair
// must read the bytes one way: a member the gateway matches and the core
// does not ("Method" beside "method", "ID" for "id") lets a message be
// logged as one thing and run as another. The scanner reports names as
// written; Unmarshal matches them exactly, case and all, as the SDK does.
package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
)

// ErrMalformed is input the scanner cannot read as JSON.
var ErrMalformed = errors.New("malformed JSON")

// SkipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// SkipValue returns the index just past the JSON value starting at b[i].
// It follows strings and brackets, not the grammar of numbers and literals
// (one runs to the next delimiter): exact on a document json.Valid
// accepts, on others it fails only where a string or bracket is left open.
func SkipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return i, ErrMalformed
	}
	switch b[i] {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		return skipNested(b, i)
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\n' && b[i] != '\r' && b[i] != '\t' {
		i++ // number, true, false, null
	}
	return i, nil
}

// SkipString returns the index just past the JSON string starting at
// b[i], a quote.
func SkipString(b []byte, i int) (int, error) {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1, nil
		}
	}
	return i, ErrMalformed
}

// skipNested skips an object or array, minding strings.
func skipNested(b []byte, i int) (int, error) {
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			end, err := SkipString(b, i)
			if err != nil {
				return end, err
			}
			i = end - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, nil
			}
		}
	}
	return i, ErrMalformed
}

// Members calls fn with each member of the JSON object at the start of b,
// in order, until fn returns false: its name as written between the quotes
// (escapes not decoded; see Name) and where in b its value lies. It
// fails with ErrMalformed when b is not an object or a value runs past
// the end. The scan checks structure, not every detail of JSON: input that
// is not known to be valid is checked with json.Valid first.
func Members(b []byte, fn func(name []byte, start, end int) bool) error {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return ErrMalformed
	}
	for i++; ; {
		i = SkipSpace(b, i)
		if i < len(b) && b[i] == '}' {
			return nil
		}
		if i >= len(b) || b[i] != '"' {
			return ErrMalformed
		}
		nameEnd, err := SkipString(b, i)
		if err != nil {
			return err
		}
		name := b[i+1 : nameEnd-1]
		if i = SkipSpace(b, nameEnd); i >= len(b) || b[i] != ':' {
			return ErrMalformed
		}
		i = SkipSpace(b, i+1)
		end, err := SkipValue(b, i)
		if err != nil {
			return err
		}
		if !fn(name, i, end) {
			return nil
		}
		if i = SkipSpace(b, end); i < len(b) && b[i] == ',' {
			i++
		}
	}
}

// Name returns a member name as Members reports it, decoded as a JSON
// decoder decodes it: "\u006dethod" is "method".
func Name(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw)
	}
	var s string
	quoted := append(append([]byte{'"'}, raw...), '"')
	if json.Unmarshal(quoted, &s) != nil {
		return string(raw) // not a valid name: it matches none
	}
	return s
}

// Member returns the value of the object's last member whose decoded name
// is exactly name: the one go-sdk's decoder keeps when a name comes twice.
func Member(obj []byte, name string) (val []byte, ok bool) {
	_ = Members(obj, func(n []byte, start, end int) bool {
		if string(n) == name || (bytes.IndexByte(n, '\\') >= 0 && Name(n) == name) {
			val, ok = obj[start:end], true
		}
		return true
	})
	return val, ok
}

// SDKMaxDepth is the nesting go-sdk's decoder accepts (its
// internal/json.defaultMaxDepth): it refuses deeper input whole.
const SDKMaxDepth = 1000

// TooDeep reports whether b nests objects and arrays more than limit
// deep, counted as go-sdk's decoder counts: every bracket outside a
// string, a closing one never taking the count below zero.
func TooDeep(b []byte, limit int) bool {
	depth, inString, escaped := 0, false, false
	for _, c := range b {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString:
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > limit {
				return true
			}
		case c == '}' || c == ']':
			depth = max(depth-1, 0)
		}
	}
	return false
}
