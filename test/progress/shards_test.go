package main

import (
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSplit: tests are dealt longest first to the least loaded shard, an
// unknown test counts as the median known duration, and no shard is
// given a test twice or loses one.
func TestSplit(t *testing.T) {
	tests := []struct {
		name    string
		tests   []string
		weights map[string]float64
		n       int
		want    [][]string
	}{
		{"longest apart", []string{"TestA", "TestB", "TestC", "TestD"},
			map[string]float64{"TestA": 100, "TestB": 90, "TestC": 5, "TestD": 4}, 2,
			[][]string{{"TestA"}, {"TestB", "TestC", "TestD"}}},
		{"unknown is the median", []string{"TestA", "TestB", "TestC", "TestNew"},
			map[string]float64{"TestA": 10, "TestB": 1, "TestC": 2}, 2,
			[][]string{{"TestA"}, {"TestC", "TestNew", "TestB"}}},
		{"no durations: by name", []string{"TestC", "TestA", "TestB"}, nil, 2,
			[][]string{{"TestA", "TestC"}, {"TestB"}}},
		{"more shards than tests", []string{"TestA"}, nil, 3,
			[][]string{{"TestA"}, nil, nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := split(tt.tests, tt.weights, tt.n)
			if !slices.EqualFunc(got, tt.want, slices.Equal[[]string]) {
				t.Errorf("split = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestWeightsKept: durations written by one run are read by the next,
// merged with what was kept before; a missing file is no durations.
func TestWeightsKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "times", "test-times")
	if w := readWeights(path); len(w) != 0 {
		t.Fatalf("no file: %v", w)
	}
	writeWeights(path, map[string]float64{"TestA": 1.5, "TestB": 2})
	writeWeights(path, map[string]float64{"TestB": 3})
	got := readWeights(path)
	if got["TestA"] != 1.5 || got["TestB"] != 3 || len(got) != 2 {
		t.Errorf("kept %v, want TestA 1.5 and TestB 3", got)
	}
}

// TestWeightsSeeded: the durations kept in the repository stand for what
// the last run did not keep (all of them on a fresh cache), and the kept
// ones win over them; a fresh cache splits as a warm one does.
func TestWeightsSeeded(t *testing.T) {
	dir := t.TempDir()
	seed, kept := filepath.Join(dir, "seed"), filepath.Join(dir, "cache", "test-times")
	writeWeights(seed, map[string]float64{"TestLong": 100, "TestA": 10, "TestB": 10, "TestC": 10})
	fresh := readWeightsOver(seed, kept)
	if len(fresh) != 4 || fresh["TestLong"] != 100 {
		t.Fatalf("a fresh cache: %v, want the seed's four", fresh)
	}
	if got, want := split([]string{"TestA", "TestB", "TestC", "TestLong"}, fresh, 2), [][]string{{"TestLong"}, {"TestA", "TestB", "TestC"}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("split on a fresh cache = %q, want %q", got, want)
	}
	writeWeights(kept, map[string]float64{"TestA": 3, "TestNew": 7})
	got := readWeightsOver(seed, kept)
	if got["TestA"] != 3 || got["TestNew"] != 7 || got["TestLong"] != 100 || len(got) != 5 {
		t.Errorf("kept over seed: %v, want TestA 3, TestNew 7, the seed's others", got)
	}
}

// TestShardedRun runs a real package split in two processes beside a
// command, and reads it all as one run: every test reported once by its
// package's name, the failing one with its log, each shard's line, and
// the run failed.
func TestShardedRun(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a test binary with -race")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/sharded\n\ngo 1.24\n",
		"a_test.go": `package sharded
import (
	"bytes"
	"os"
	"testing"
)
func TestOne(t *testing.T) {}
func TestTwo(t *testing.T) {}
func TestBroken(t *testing.T) { t.Fatal("broken on purpose") }
func TestNiced(t *testing.T) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Skip(err)
	}
	if nice := string(bytes.Fields(b[bytes.LastIndexByte(b, ')')+2:])[16]); nice != "3" {
		t.Fatalf("nice %s, want 3 (-shard-nice)", nice)
	}
}
`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	times := filepath.Join(dir, "times")
	plan, err := shardPlan{dir: dir, n: 2, bin: filepath.Join(dir, "x.test"), timeout: time.Minute, weights: times, nice: 3}.resolve([]string{"true"})
	if err != nil {
		t.Fatal(err)
	}
	if plan.pkg != "example.com/sharded" {
		t.Fatalf("package %q", plan.pkg)
	}
	pr, pw := io.Pipe()
	var ranFailed bool
	go func() {
		ranFailed = runMerged(pw, []string{"echo", "from the other command"}, plan)
		pw.Close()
	}()
	var out strings.Builder
	logs := filepath.Join(dir, "logs")
	failed, err := report(pr, &out, options{logs: logs, head: 5}, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{
		"PASS sharded.TestOne", "PASS sharded.TestTwo", "PASS sharded.TestNiced", "FAIL sharded.TestBroken",
		"broken on purpose", "from the other command",
		"example.com/sharded#1 (", "example.com/sharded#2 (",
		"3 tests passed, 1 failed",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "(package)") {
		t.Errorf("a shard with a failed test is also reported as a failed package:\n%s", s)
	}
	if !failed || !ranFailed {
		t.Errorf("failed = %v, ran failed = %v: want both", failed, ranFailed)
	}
	if b, err := os.ReadFile(filepath.Join(logs, "sharded.TestBroken.log")); err != nil || !strings.Contains(string(b), "broken on purpose") {
		t.Errorf("failure log: %q, %v", b, err)
	}
	if w := readWeights(times); len(w) != 3 {
		t.Errorf("kept durations %v, want the three passed tests", w)
	}
}

// TestLongestFirst: the packages after go test's flags are reordered by
// their last durations, longest first, those without one last in their
// order; the flags, a flag's value and the command stay where they are.
func TestLongestFirst(t *testing.T) {
	args := []string{"go", "test", "-json", "-timeout", "20m", "-coverprofile=bin/c.out", "m/a", "m/b", "m/new", "m/c", "m/d"}
	last := map[string]float64{"m/a": 1, "m/b": 30, "m/c": 2.5, "m/d": 100, "m/gone": 500, "TestX": 900}
	got := longestFirst(args, last)
	want := []string{"go", "test", "-json", "-timeout", "20m", "-coverprofile=bin/c.out", "m/d", "m/b", "m/c", "m/a", "m/new"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if args[6] != "m/a" {
		t.Error("longestFirst changed its argument")
	}
	// No durations kept yet: the order stays.
	if got := longestFirst(args, nil); !slices.Equal(got, args) {
		t.Errorf("without durations: got %q, want %q", got, args)
	}
}

// TestPackageTimes: a package's pass or fail event keeps its duration; a
// test's events and other lines do not, and every line passes unchanged.
func TestPackageTimes(t *testing.T) {
	elapsed := map[string]float64{}
	edit := packageTimes(elapsed)
	for _, l := range []string{
		`{"Action":"pass","Package":"m/a","Test":"TestX","Elapsed":3}`,
		`{"Action":"pass","Package":"m/a","Elapsed":12.5}`,
		`{"Action":"fail","Package":"m/b","Elapsed":7}`,
		`{"Action":"output","Package":"m/c","Output":"ok\n"}`,
		`not json`,
	} {
		if got := string(edit([]byte(l))); got != l {
			t.Errorf("line %q became %q", l, got)
		}
	}
	if want := map[string]float64{"m/a": 12.5, "m/b": 7}; !maps.Equal(elapsed, want) {
		t.Errorf("got %v, want %v", elapsed, want)
	}
}
