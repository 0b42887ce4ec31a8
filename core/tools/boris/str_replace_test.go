package boris

import (
	"strings"
	"testing"

	"github.com/mjkoo/boris/core/toolkit"
)

func TestMatchLines(t *testing.T) {
	tests := []struct {
		name, data, old, want string
	}{
		{"two", "x\ny\nx\n", "x", "at lines 1, 3"},
		{"same line twice", "xx\n", "x", "at line 1 (2 times)"},
		{"same line and another", "xxx\ny\nx\n", "x", "at lines 1 (3 times), 3"},
		{"capped", strings.Repeat("x\n", maxMatchLines+5), "x", "98, 99, 100, and 5 more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := matchLines([]byte(tt.data), []byte(tt.old))
			if got != tt.want && (tt.name != "capped" || !strings.HasSuffix(got, tt.want)) {
				t.Errorf("matchLines = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSnippetBounded(t *testing.T) {
	data := []byte(strings.Repeat(strings.Repeat("y", 1000)+"\n", 3000)) // 3 MB
	got := snippet(data, 1, 3000)
	if len(got) > toolkit.MaxResultText+200 {
		t.Errorf("snippet of a 3 MB edit: %d bytes, want at most about %d", len(got), toolkit.MaxResultText)
	}
	if !strings.Contains(got, "of 3000: a result holds at most 1MB of text") {
		t.Errorf("snippet ends %q, want a note that it was cut", got[len(got)-200:])
	}
}
