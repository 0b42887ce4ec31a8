package search

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/mjkoo/boris/core/scope"
	"github.com/mjkoo/boris/test/bench/benchkit"
)

// BenchmarkGrepTree runs the cases of test/bench/grep in process over a
// real tree ($BORIS_BENCH_ROOT, default $(go env GOROOT)/src), search and
// rendering included, for profiling:
//
//	go test ./core/search -run '^$' -bench GrepTree -cpuprofile cpu.out
//	go tool pprof -top search.test cpu.out
func BenchmarkGrepTree(b *testing.B) {
	root, policy := benchTree(b)
	for _, bc := range []struct {
		name, pattern string
		fold          bool
	}{
		{"literal", "ErrUnexpectedEOF", false},
		{"fold-word", `\bdeadline\b`, true},
		{"alternation", "Marshal(Indent|JSON)|Unmarshal", false},
	} {
		for _, mode := range []Mode{FilesWithMatches, Content} {
			name := bc.name + "/files"
			if mode == Content {
				name = bc.name + "/content"
			}
			b.Run(name, func(b *testing.B) {
				m, err := NewMatcher(bc.pattern, bc.fold, false)
				if err != nil {
					b.Fatal(err)
				}
				for b.Loop() {
					res, err := Grep(context.Background(), GrepOptions{
						Options: Options{Policy: policy, Root: root, Workers: benchWorkers()}, Matcher: m, Mode: mode, MaxFileSize: 10 << 20,
					})
					if err != nil {
						b.Fatal(err)
					}
					if mode == Content {
						res.RenderContent(ContentOptions{LineNumbers: true}, Page{MaxBytes: 1 << 20})
					} else {
						res.RenderFiles(Page{MaxBytes: 1 << 20})
					}
				}
			})
		}
	}
}

// benchTree returns the tree the benchmarks search ($BORIS_BENCH_ROOT,
// default $(go env GOROOT)/src) and a policy allowing it, closed when the
// benchmark ends.
func benchTree(b *testing.B) (string, *scope.Policy) {
	root := os.Getenv("BORIS_BENCH_ROOT")
	if root == "" {
		root = filepath.Join(benchkit.GoRoot(), "src")
	}
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		b.Skipf("no tree to search: %v", err)
	}
	policy, err := scope.New(root, []string{root}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { policy.Close() })
	return root, policy
}

// benchWorkers is $BORIS_BENCH_WORKERS, or 0 (the default).
func benchWorkers() int {
	n, _ := strconv.Atoi(os.Getenv("BORIS_BENCH_WORKERS"))
	return n
}

// BenchmarkGlobTree runs bench/grep's glob case in process.
func BenchmarkGlobTree(b *testing.B) {
	root, policy := benchTree(b)
	for b.Loop() {
		if _, err := Glob(context.Background(), Options{Policy: policy, Root: root, Workers: benchWorkers()}, "**/*.c"); err != nil {
			b.Fatal(err)
		}
	}
}
