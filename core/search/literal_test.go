package search

import (
	"regexp/syntax"
	"slices"
	"testing"
)

func TestExtractLiterals(t *testing.T) {
	tests := []struct {
		pattern string
		set     []string // nil: no prefilter
		fold    bool
		pure    bool
	}{
		{"foo", []string{"foo"}, false, true},
		{"(?i)foo", []string{"foo"}, true, false},
		{"(?i)FoO", []string{"foo"}, true, false},
		{"foo|bar", []string{"foo", "bar"}, false, true},
		{"Marshal(Indent|JSON)|Unmarshal", []string{"arshal"}, false, false},
		{"spin_(lock|unlock)_irqsave_nested|raw_spin_trylock",
			[]string{"spin_lock_irqsave_nested", "spin_unlock_irqsave_nested", "raw_spin_trylock"}, false, true},
		{`\bdeadline\b`, []string{"deadline"}, false, false},
		{`(?i)\bdeadline\b`, []string{"deadline"}, true, false},
		{"^foo$", []string{"foo"}, false, false},
		{"colou?r", []string{"colo"}, false, false},
		{"a.*bcd", []string{"bcd"}, false, false},
		{`foo\d+barbaz`, []string{"barbaz"}, false, false},
		{"[ab]c", []string{"ac", "bc"}, false, true},
		{"x+", []string{"x"}, false, false},
		{"(?:ab){2,}", []string{"ab"}, false, false},
		{"a|b.*", []string{"a", "b"}, false, false},
		{"(?i)status", []string{"tatu"}, true, false}, // s folds to U+017F: cut there
		{"(?i)kelvin", []string{"elvin"}, true, false},
		{"(?i)(foo|BAR)", []string{"foo", "bar"}, true, false},
		{`foo\nbar`, []string{"foo\nbar"}, false, false},
		{"ab(?i:cd)", []string{"abcd"}, true, false}, // mixed: searched folded
		{".*", nil, false, false},
		{"a|.*", nil, false, false},
		{"(foo)?", nil, false, false},
		{`\d+`, nil, false, false},
		{"(?i)é", nil, false, false},
		{"", nil, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			re, err := syntax.Parse("(?m)"+tt.pattern, syntax.Perl)
			if err != nil {
				t.Fatal(err)
			}
			l := extract(re)
			if tt.set == nil {
				if l != nil {
					t.Errorf("extract(%q) = %+v, want no prefilter", tt.pattern, *l)
				}
				return
			}
			if l == nil {
				t.Fatalf("extract(%q) = nil, want set %q", tt.pattern, tt.set)
			}
			if !slices.Equal(l.set, tt.set) || l.fold != tt.fold || l.pure != tt.pure {
				t.Errorf("extract(%q) = set %q fold %v pure %v, want set %q fold %v pure %v",
					tt.pattern, l.set, l.fold, l.pure, tt.set, tt.fold, tt.pure)
			}
		})
	}
}

// TestExtractExact checks when a narrowed set of literals still decides
// a line without the regexp: only a pure set (no anchors, no folding).
func TestExtractExact(t *testing.T) {
	tests := []struct {
		pattern string
		exact   []string
	}{
		{"Marshal(Indent|JSON)|Unmarshal", []string{"MarshalIndent", "MarshalJSON", "Unmarshal"}},
		{"(?i)Marshal(Indent|JSON)|Unmarshal", nil},
		{`\b(foobar|foobaz)`, nil},
		{"foobar|foobaz", []string{"foobar", "foobaz"}},
		{"foo|bar", nil}, // not narrowed: the set itself is pure
	}
	for _, tt := range tests {
		re, err := syntax.Parse("(?m)"+tt.pattern, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if l := extract(re); !slices.Equal(l.exact, tt.exact) {
			t.Errorf("extract(%q).exact = %q, want %q", tt.pattern, l.exact, tt.exact)
		}
	}
}
