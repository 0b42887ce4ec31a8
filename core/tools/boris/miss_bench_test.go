package boris

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mjkoo/boris/core/editmiss/corpus"
)

// tenThousandLines is a 10,000-line Go file made of Go's own sources,
// with a line of its own to edit in the middle.
func tenThousandLines(b *testing.B) string {
	files, err := corpus.GoSources()
	if err != nil {
		b.Skipf("the benchmark file is made from Go's sources, which are not here: %v", err)
	}
	var lines []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		lines = append(lines, strings.Split(string(data), "\n")...)
		if len(lines) >= 10_000 {
			break
		}
	}
	lines = lines[:10_000]
	lines[5000] = "\tmarker := computeTheMarkerValue(ctx, 42)"
	return strings.Join(lines, "\n") + "\n"
}

// BenchmarkStrReplace10k times str_replace on a 10,000-line file: a
// successful edit (and its undo, every other iteration), and misses of
// each kind, which must cost at most twice the edit. Run with
// make bench-edit-miss.
func BenchmarkStrReplace10k(b *testing.B) {
	dir := b.TempDir()
	t := newTestTools(b, dir)
	path, data := filepath.Join(dir, "big.go"), []byte(tenThousandLines(b))
	ctx := context.Background()
	b.Run("success", func(b *testing.B) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			b.Fatal(err)
		}
		defer cpuPerOp(b)()
		texts := [2]string{"marker := computeTheMarkerValue(ctx, 42)", "marker := computeTheMarkerValue(ctx, 43)"}
		for i := 0; b.Loop(); i++ {
			if _, err := t.strReplace(ctx, nil, strReplaceParams{Path: path, OldStr: texts[i%2], NewStr: texts[(i+1)%2]}); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, m := range []struct{ name, old string }{
		{"miss-typo", "\tmarker := computeTheMarkerValeu(ctx, 4"},
		{"miss-indent", "    marker := computeTheMarkerValue(ctx, 4"},
		{"miss-escaped", `}\n\tmarker := computeTheMarkerValue(ctx, 4`},
		{"miss-nothing-close", "zq9 wholly unrelated text that occurs nowhere in it"},
	} {
		b.Run(m.name, func(b *testing.B) {
			if err := os.WriteFile(path, data, 0o644); err != nil {
				b.Fatal(err)
			}
			defer cpuPerOp(b)()
			for b.Loop() {
				if _, err := t.strReplace(ctx, nil, strReplaceParams{Path: path, OldStr: m.old, NewStr: "x"}); err == nil {
					b.Fatal("the miss was applied")
				}
			}
		})
	}
}

// cpuPerOp reports the process's CPU time (user and system) per
// iteration as cpu-ns/op, beside the wall time, which a loaded machine
// stretches: call it before the loop and the function it returns after.
func cpuPerOp(b *testing.B) func() {
	start := cpuTime(b)
	return func() {
		b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
	}
}

// cpuTime is the CPU time the process has used, in nanoseconds.
func cpuTime(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
