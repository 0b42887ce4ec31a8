package search

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSpans(t *testing.T) {
	tests := []struct {
		name                 string
		lines                []int
		total, before, after int
		want                 []span
	}{
		{"no context", []int{2, 5}, 9, 0, 0, []span{{2, 2}, {5, 5}}},
		{"clipped at both ends", []int{1, 9}, 9, 2, 2, []span{{1, 3}, {7, 9}}},
		{"overlapping merge", []int{3, 5}, 9, 1, 1, []span{{2, 6}}},
		{"adjacent merge", []int{2, 5}, 9, 0, 2, []span{{2, 7}}},
		{"gap of one line stays apart", []int{2, 5}, 9, 0, 1, []span{{2, 3}, {5, 6}}},
		{"largest context", []int{2, 5}, 9, math.MaxInt, math.MaxInt, []span{{1, 9}}},
		{"largest after", []int{9}, 9, 0, math.MaxInt, []span{{9, 9}}},
	}
	for _, tt := range tests {
		if got := spans(tt.lines, tt.total, tt.before, tt.after); !cmp.Equal(got, tt.want, cmp.AllowUnexported(span{})) {
			t.Errorf("%s: spans = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestWriteCut(t *testing.T) {
	var sb strings.Builder
	writeCut(&sb, []byte(strings.Repeat("é", MaxLineChars)))
	if got := sb.String(); got != strings.Repeat("é", MaxLineChars) {
		t.Errorf("a line of exactly %d characters was changed", MaxLineChars)
	}
	sb.Reset()
	writeCut(&sb, []byte(strings.Repeat("é", MaxLineChars+1)))
	want := strings.Repeat("é", MaxLineChars) + " [... line cut: 2000 of 2001 characters shown]"
	if got := sb.String(); got != want {
		t.Errorf("cut line ends %q, want %q", got[len(got)-60:], want[len(want)-60:])
	}
}

func TestLineCursor(t *testing.T) {
	c := lineCursor{buf: []byte("a\r\nb\n\nlast"), line: 1}
	var got []string
	for _, l := range []int{1, 2, 3, 4, 5} {
		got = append(got, string(c.get(l)))
	}
	if diff := cmp.Diff([]string{"a", "b", "", "last", ""}, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}

func TestRenderMaxBytes(t *testing.T) {
	r := &GrepResult{}
	for i := range 100 {
		r.Files = append(r.Files, FileMatch{Path: "/p/" + strings.Repeat("x", 90) + string(rune('a'+i%26)), Count: 1})
	}
	for _, tt := range []struct {
		name string
		page Page
		want Rendered
	}{
		{"within", Page{Limit: 5, MaxBytes: 1000}, Rendered{From: 0, To: 5, Total: 100}},
		{"bytes first", Page{Offset: 10, MaxBytes: 1000}, Rendered{From: 10, To: 20, Total: 100, Full: true}},
		{"one always shows", Page{MaxBytes: 1}, Rendered{From: 0, To: 1, Total: 100, Full: true}},
		{"largest limit", Page{Offset: 98, Limit: math.MaxInt, MaxBytes: 1000}, Rendered{From: 98, To: 100, Total: 100}},
		{"largest offset", Page{Offset: math.MaxInt, Limit: math.MaxInt, MaxBytes: 1000}, Rendered{From: 100, To: 100, Total: 100}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := r.RenderFiles(tt.page)
			if len(got.Text) > max(tt.page.MaxBytes, 100) {
				t.Errorf("text is %d bytes, want at most %d", len(got.Text), tt.page.MaxBytes)
			}
			got.Text = ""
			if got != tt.want {
				t.Errorf("RenderFiles(%+v) = %+v, want %+v", tt.page, got, tt.want)
			}
		})
	}
}
