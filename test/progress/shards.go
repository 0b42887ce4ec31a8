package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The end-to-end package (./test) holds most of make test's time in
// tests that wait on processes, one after another. With -shard it runs
// as several processes of its one test binary, each a share of its
// tests, beside `go test` of every other package: the events of all of
// them reach one reporter, so make test prints one run.

// shardPlan is how one package's tests are split across processes.
type shardPlan struct {
	pkg     string        // import path, as go test names it in events
	dir     string        // its directory, where its tests run
	n       int           // processes
	bin     string        // where its test binary is compiled
	timeout time.Duration // each process's -test.timeout
	weights string        // file of each test's last duration ("" keeps none)
	// packages is the file of each other package's last duration: the
	// command after -- gets them longest first ("" keeps its order).
	packages string
	// weightsSeed and packagesSeed are files of durations kept in the
	// repository: what weights and packages do not know (a first run, a
	// fresh cache) is taken from them rather than guessed.
	weightsSeed, packagesSeed string
	// nice lowers the shards' priority (and so their processes'), so that
	// the other packages, whose go test ends last, get a larger share of
	// the CPUs while both run.
	nice int
}

// sink takes whole lines from several sources and writes them, one at a
// time, to the reporter's input.
type sink struct {
	mu sync.Mutex
	w  io.Writer
}

// line writes one line (without its newline).
func (s *sink) line(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w.Write(append(slices.Clip(b), '\n'))
}

// printf writes a line of the runner's own words (not an event).
func (s *sink) printf(format string, args ...any) {
	s.line(fmt.Appendf(nil, format, args...))
}

// copyLines passes each line of r to s, through edit when not nil.
func (s *sink) copyLines(r io.Reader, edit func([]byte) []byte) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		b := sc.Bytes()
		if edit != nil {
			b = edit(b)
		}
		if b != nil {
			s.line(b)
		}
	}
}

// runMerged runs main (go test of the other packages) and the plan's
// shards at once, their lines written to w, and reports whether any of
// them failed to run or exited non-zero (failed tests are the reporter's
// to count).
func runMerged(w io.Writer, main []string, plan shardPlan) (failed bool) {
	s := &sink{w: w}
	var wg sync.WaitGroup
	var mu sync.Mutex
	fail := func() { mu.Lock(); failed = true; mu.Unlock() }
	wg.Go(func() {
		main = longestFirst(main, readWeightsOver(plan.packagesSeed, plan.packages))
		cmd := exec.Command(main[0], main[1:]...)
		elapsed := map[string]float64{}
		if !runInto(s, cmd, packageTimes(elapsed)) {
			fail()
		}
		writeWeights(plan.packages, elapsed)
		s.printf("the other packages' go test used %s of CPU", cpuOf(cmd))
	})
	wg.Go(func() {
		if !plan.run(s) {
			fail()
		}
	})
	wg.Wait()
	return failed
}

// runInto runs cmd with its output (both streams) written to s line by
// line through edit, and reports whether it exited 0.
func runInto(s *sink, cmd *exec.Cmd, edit func([]byte) []byte) bool {
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		s.printf("FAIL\t%s: %v", strings.Join(cmd.Args, " "), err)
		return false
	}
	done := make(chan struct{})
	go func() { s.copyLines(pr, edit); close(done) }()
	err := cmd.Wait()
	pw.Close()
	<-done
	return err == nil
}

// cpuOf is the CPU time cmd's process and the descendants it waited for
// used, user and system (what the kernel reports at wait4), as "Ns".
func cpuOf(cmd *exec.Cmd) string {
	if cmd.ProcessState == nil {
		return "an unknown amount"
	}
	return fmt.Sprintf("%.0fs", (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds())
}

// run compiles the package's test binary, lists its tests, splits them
// by their last durations and runs the shards.
func (p shardPlan) run(s *sink) bool {
	s.printf("%s: compiling its test binary, then running its tests in %d processes", p.pkg, p.n)
	build := exec.Command("go", "test", "-c", "-race", "-ldflags=-s -w", "-o", p.bin, ".")
	build.Dir = p.dir
	if out, err := build.CombinedOutput(); err != nil {
		s.printf("FAIL\t%s [build failed]: %v\n%s", p.pkg, err, bytes.TrimSpace(out))
		return false
	}
	names, err := p.list()
	if err != nil {
		s.printf("FAIL\t%s: listing its tests: %v", p.pkg, err)
		return false
	}
	shards := split(names, readWeightsOver(p.weightsSeed, p.weights), p.n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := true
	elapsed := map[string]float64{}
	for i, tests := range shards {
		if len(tests) == 0 {
			continue
		}
		wg.Go(func() {
			times, passed := p.runShard(s, i, tests)
			mu.Lock()
			defer mu.Unlock()
			ok = ok && passed
			for k, v := range times {
				elapsed[k] = v
			}
		})
	}
	wg.Wait()
	writeWeights(p.weights, elapsed)
	return ok
}

// list asks the test binary for its top-level tests.
func (p shardPlan) list() ([]string, error) {
	cmd := exec.Command(p.bin, "-test.list", ".")
	cmd.Dir = p.dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "Test") || strings.HasPrefix(l, "Example") || strings.HasPrefix(l, "Fuzz") {
			names = append(names, l)
		}
	}
	if len(names) == 0 {
		return nil, errors.New("no tests listed")
	}
	return names, nil
}

// runShard runs shard i's tests through test2json, as go test would, and
// returns each passed test's duration and whether the process passed.
// Its package events are named PKG#i, so the reporter counts each shard
// as it counts a package; the test events keep the package's name.
func (p shardPlan) runShard(s *sink, i int, tests []string) (map[string]float64, bool) {
	name := fmt.Sprintf("%s#%d", p.pkg, i+1)
	args := []string{"go", "tool", "test2json", "-p", p.pkg, "-t", p.bin,
		"-test.v=test2json", "-test.count=1", "-test.timeout=" + p.timeout.String(),
		"-test.run", "^(" + strings.Join(tests, "|") + ")$"}
	if p.nice > 0 {
		args = append([]string{"nice", "-n", strconv.Itoa(p.nice)}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = p.dir
	times := map[string]float64{}
	start := time.Now()
	passed := runInto(s, cmd, func(b []byte) []byte {
		var e event
		if json.Unmarshal(b, &e) != nil {
			return b
		}
		if e.Test == "" {
			return bytes.Replace(b, []byte(strconv.Quote(p.pkg)), []byte(strconv.Quote(name)), 1)
		}
		if e.Action == "pass" && !strings.Contains(e.Test, "/") {
			times[e.Test] = e.Elapsed
		}
		return b
	})
	verdict := "ok  "
	if !passed {
		verdict = "FAIL"
	}
	s.printf("%s\t%s (%d of its tests)\t%.1fs, %s of CPU", verdict, name, len(tests), time.Since(start).Seconds(), cpuOf(cmd))
	return times, passed
}

// split deals tests to n shards, longest first, each to the shard with
// the least time so far; a test with no known duration counts as the
// median of those known.
func split(tests []string, weights map[string]float64, n int) [][]string {
	known := make([]float64, 0, len(weights))
	for _, w := range weights {
		known = append(known, w)
	}
	slices.Sort(known)
	guess := 1.0
	if len(known) > 0 {
		guess = known[len(known)/2]
	}
	weight := func(t string) float64 {
		if w, ok := weights[t]; ok {
			return w
		}
		return guess
	}
	order := slices.Clone(tests)
	slices.SortStableFunc(order, func(a, b string) int {
		wa, wb := weight(a), weight(b)
		switch {
		case wa > wb:
			return -1
		case wa < wb:
			return 1
		}
		return strings.Compare(a, b)
	})
	shards := make([][]string, n)
	load := make([]float64, n)
	for _, t := range order {
		i := slices.Index(load, slices.Min(load))
		shards[i] = append(shards[i], t)
		load[i] += weight(t)
	}
	return shards
}

// readWeights reads the durations kept by the last run ("name seconds"
// lines); none when there is no file.
func readWeights(path string) map[string]float64 {
	w := map[string]float64{}
	if path == "" {
		return w
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return w
	}
	for _, l := range strings.Split(string(b), "\n") {
		name, secs, ok := strings.Cut(l, " ")
		if v, err := strconv.ParseFloat(secs, 64); ok && err == nil {
			w[name] = v
		}
	}
	return w
}

// readWeightsOver reads the durations of path over those of seed: the
// seed's stand for what the last run did not keep.
func readWeightsOver(seed, path string) map[string]float64 {
	w := readWeights(seed)
	maps.Copy(w, readWeights(path))
	return w
}

// writeWeights keeps this run's durations for the next one's split; a
// file that cannot be written only costs the next run its balance.
func writeWeights(path string, elapsed map[string]float64) {
	if path == "" || len(elapsed) == 0 {
		return
	}
	old := readWeights(path)
	for k, v := range elapsed {
		old[k] = v
	}
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(old)) {
		fmt.Fprintf(&b, "%s %.2f\n", k, old[k])
	}
	if os.MkdirAll(filepath.Dir(path), 0o755) == nil {
		os.WriteFile(path, []byte(b.String()), 0o644)
	}
}

// resolve checks the plan against the command it runs beside, and names
// the package by its import path and its binary by an absolute path.
func (p shardPlan) resolve(main []string) (shardPlan, error) {
	if len(main) == 0 {
		return p, errors.New("-shard: no command after --")
	}
	if p.n < 1 {
		return p, fmt.Errorf("-shards %d: want at least 1", p.n)
	}
	dir, err := filepath.Abs(p.dir)
	if err != nil {
		return p, err
	}
	list := exec.Command("go", "list", ".")
	list.Dir = dir
	out, err := list.Output()
	if err != nil {
		return p, fmt.Errorf("-shard %s: go list: %w", p.dir, err)
	}
	p.pkg, p.dir = strings.TrimSpace(string(out)), dir
	if p.bin, err = filepath.Abs(p.bin); err != nil {
		return p, err
	}
	return p, nil
}

// longestFirst reorders the packages at the end of a go test command line
// (the arguments after its flags that are import paths) by their last
// durations, longest first, those without one last in their order: go
// test starts packages in the order given, -p at a time, and a long one
// started last would run alone at the end.
func longestFirst(args []string, last map[string]float64) []string {
	i := len(args)
	for i > 1 && !strings.HasPrefix(args[i-1], "-") && strings.Contains(args[i-1], "/") {
		i--
	}
	out := slices.Clone(args)
	slices.SortStableFunc(out[i:], func(a, b string) int { return cmp.Compare(last[b], last[a]) })
	return out
}

// packageTimes returns an edit for runInto that leaves go test -json's
// lines as they are and keeps each package's duration in elapsed.
func packageTimes(elapsed map[string]float64) func([]byte) []byte {
	return func(b []byte) []byte {
		var ev struct {
			Action, Package, Test string
			Elapsed               float64
		}
		if json.Unmarshal(b, &ev) == nil && ev.Test == "" && (ev.Action == "pass" || ev.Action == "fail") {
			elapsed[ev.Package] = ev.Elapsed
		}
		return b
	}
}
