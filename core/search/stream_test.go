package search

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjkoo/boris/core/scope"
)

// TestGrepStreamsBigFiles counts matches in files over streamAbove, read
// chunk by chunk: lines cut by a chunk's end, a line longer than a chunk,
// and the same file searched twice (pooled chunk buffers reused).
func TestGrepStreamsBigFiles(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	want := 0
	for i := 0; b.Len() < 3*streamChunk; i++ {
		switch {
		case i == 5000:
			b.WriteString(strings.Repeat("x", streamChunk+10) + "needle\n") // longer than a chunk
			want++
		case i%7 == 0:
			b.WriteString("a line without it\n")
		default:
			b.WriteString("a needle, padded to vary the cut points: " + strings.Repeat("y", i%13) + "\n")
			want++
		}
	}
	data := b.String() + "last needle without newline"
	want++
	writeTestFile(t, filepath.Join(dir, "big.txt"), data)
	if n := bytes.Count([]byte(data), []byte("needle")); n != want {
		t.Fatalf("fixture has %d needles, want %d", n, want)
	}
	policy, err := scope.New(dir, []string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer policy.Close()
	m, err := NewMatcher("needle", false, false)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		res, err := Grep(context.Background(), GrepOptions{Options: Options{Policy: policy, Root: dir}, Matcher: m, Mode: Count})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Files) != 1 || res.Files[0].Count != want {
			t.Fatalf("Count mode on a %d-byte file: got %+v, want one file with %d lines", len(data), res.Files, want)
		}
	}
}
