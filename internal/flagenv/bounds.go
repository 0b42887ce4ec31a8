package flagenv

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// bounds are a field's min, max, oneof and want tags.
type bounds struct {
	min, max *int64
	oneof    []string
	want     string
}

// boundsOf reads a field's bound tags. A malformed min or max is a
// programming error.
func boundsOf(name string, tags tagSet) bounds {
	var b bounds
	for tag, dst := range map[string]**int64{"min": &b.min, "max": &b.max} {
		if s, ok := tags.lookup(tag); ok {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				panic(fmt.Sprintf("flagenv: field %s: bad %s tag %q", name, tag, s))
			}
			*dst = &n
		}
	}
	if s, ok := tags.lookup("oneof"); ok {
		b.oneof = strings.Split(s, ",")
	}
	b.want = tags.get("want")
	return b
}

// check reports whether v keeps the bounds.
func (b bounds) check(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n := v.Int()
		return (b.min == nil || n >= *b.min) && (b.max == nil || n <= *b.max)
	case reflect.String:
		return b.oneof == nil || slices.Contains(b.oneof, v.String())
	}
	return true
}

// describe says what the bounds accept.
func (b bounds) describe() string {
	switch {
	case b.want != "":
		return b.want
	case b.oneof != nil:
		return orList(b.oneof)
	case b.min != nil && b.max != nil:
		return fmt.Sprintf("an integer from %d to %d", *b.min, *b.max)
	case b.min != nil:
		return fmt.Sprintf("%d or more", *b.min)
	case b.max != nil:
		return fmt.Sprintf("%d or less", *b.max)
	}
	return "a valid value"
}

// orList joins choices as "a", "a or b", "a, b or c".
func orList(choices []string) string {
	if len(choices) < 2 {
		return strings.Join(choices, "")
	}
	return strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
}

// checkBounds checks every field's final value against its bounds. The
// error names where the value came from: the flag when one was given, else
// the environment variable when it is set, else the flag (a default out of
// bounds is a programming error, but still reported).
func checkBounds(fields []field, set map[string]bool, environ map[string]string) error {
	for _, f := range fields {
		if f.bounds.check(f.v) {
			continue
		}
		source := "--" + f.flag
		if _, inEnv := environ[f.env]; !set[f.flag] && f.env != "" && inEnv {
			source = f.env
		}
		val := fmt.Sprint(f.v.Interface())
		if f.v.Kind() == reflect.String {
			val = strconv.Quote(val)
		}
		return &UsageError{Msg: fmt.Sprintf("invalid value %s for %s: want %s", val, source, f.bounds.describe())}
	}
	return nil
}
