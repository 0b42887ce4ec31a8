package boris

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkViewHandler measures the view handler alone, without MCP.
func BenchmarkViewHandler(b *testing.B) {
	dir := b.TempDir()
	var sb strings.Builder
	for i := range 50 {
		fmt.Fprintf(&sb, "line %d of a small file\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "small.txt"), []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	bo := newTestTools(b, dir)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bo.view(context.Background(), nil, viewParams{Path: "small.txt"}); err != nil {
			b.Fatal(err)
		}
	}
}
