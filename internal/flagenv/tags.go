package flagenv

import (
	"reflect"
	"strconv"
)

// tagSet is a struct field's tag as key, value pairs, in order: a field
// has a handful, fewer than a map would be worth.
type tagSet []tagPair

type tagPair struct{ key, value string }

// lookup returns the value of key, as reflect.StructTag.Lookup does.
func (ts tagSet) lookup(key string) (string, bool) {
	for _, p := range ts {
		if p.key == key {
			return p.value, true // the first, as Lookup finds it
		}
	}
	return "", false
}

// get returns the value of key, or "".
func (ts tagSet) get(key string) string {
	v, _ := ts.lookup(key)
	return v
}

// parseTags reads every key:"value" pair of tag in one pass, by the
// convention reflect.StructTag.Lookup follows: a settings struct's tags
// hold long help texts, and looking up each of a field's dozen keys with
// Lookup would scan and unquote them a dozen times, at every start.
// Parsing stops at the first malformed pair, as Lookup does.
func parseTags(tag reflect.StructTag) tagSet {
	out := make(tagSet, 0, 8)
	for tag != "" {
		i := 0
		for i < len(tag) && tag[i] == ' ' {
			i++
		}
		tag = tag[i:]
		if tag == "" {
			break
		}
		i = 0
		for i < len(tag) && tag[i] > ' ' && tag[i] != ':' && tag[i] != '"' && tag[i] != 0x7f {
			i++
		}
		if i == 0 || i+1 >= len(tag) || tag[i] != ':' || tag[i+1] != '"' {
			break
		}
		key := string(tag[:i])
		tag = tag[i+1:]
		i = 1
		for i < len(tag) && tag[i] != '"' {
			if tag[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(tag) {
			break
		}
		value, err := strconv.Unquote(string(tag[:i+1]))
		if err != nil {
			break
		}
		out = append(out, tagPair{key, value})
		tag = tag[i+1:]
	}
	return out
}
