package flagenv

import (
	"reflect"
	"testing"
)

// TestParseTagsAgreesWithLookup: every key parseTags finds has the value
// reflect.StructTag.Lookup gives, and every key Lookup finds is found,
// whatever the spacing, escapes and malformed tails.
func TestParseTagsAgreesWithLookup(t *testing.T) {
	for _, tag := range []reflect.StructTag{
		``,
		`flag:"workdir" env:"BORIS_WORKDIR" envDefault:"." help:"initial working directory"`,
		`help:"a \"quoted\" word, a back\\slash and a colon: here"  min:"1"   max:"600"`,
		`flag:"x" flag:"second"`,
		`flag:"x" broken env:"Y"`,
		`flag:"x" env:"unterminated`,
		`  leading:"space"`,
		`oneof:"auto,required,off" want:"é, ü"`,
	} {
		got := parseTags(tag)
		for _, key := range []string{"flag", "env", "envDefault", "help", "min", "max", "leading", "oneof", "want", "broken"} {
			want, wantOK := tag.Lookup(key)
			v, ok := got.lookup(key)
			if v != want || ok != wantOK {
				t.Errorf("tag %q key %q: got %q, %v; want %q, %v (Lookup)", tag, key, v, ok, want, wantOK)
			}
		}
	}
}
