package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// installing matches a logged line saying something is being installed,
// after test2json's file:line prefix.
var installing = regexp.MustCompile(`^\s*(?:\S+\.go:\d+: )?(installing .*)$`)

// failure is a failed test (or package) and the file holding its output.
type failure struct{ name, log string }

// reporter turns events into progress lines, counting as it goes.
type reporter struct {
	w       io.Writer
	o       options
	output  map[string]*strings.Builder // a running test's output, by package and test
	running map[string]time.Time        // running top-level tests, by "pkg.Test", since
	started time.Time
	said    time.Time // when the last line was printed
	counts  struct{ pass, fail, skip, pkgOK, pkgFail int }
	fails   []failure
	failing map[string]bool // packages with a failed test
	failed  bool
}

// report reads events from r and writes the progress to w, then a
// summary. It reports whether any test, package or build failed. now is
// the clock (tests pass their own).
func report(r io.Reader, w io.Writer, o options, now func() time.Time) (failed bool, err error) {
	rp := &reporter{w: w, o: o, output: map[string]*strings.Builder{}, running: map[string]time.Time{}, failing: map[string]bool{}, started: now(), said: now()}
	lines := make(chan []byte)
	errc := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			lines <- slices.Clone(sc.Bytes())
		}
		errc <- sc.Err()
		close(lines)
	}()
	tick := time.NewTicker(max(o.every/5, 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				rp.summary(now())
				return rp.failed, <-errc
			}
			rp.line(line, now())
		case <-tick.C:
			if t := now(); o.every > 0 && t.Sub(rp.said) >= o.every {
				rp.heartbeat(t)
			}
		}
	}
}

// printf prints a line and notes when.
func (rp *reporter) printf(at time.Time, format string, args ...any) {
	fmt.Fprintf(rp.w, format, args...)
	rp.said = at
}

// line handles one line of go test's output.
func (rp *reporter) line(line []byte, at time.Time) {
	var e event
	if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
		rp.printf(at, "%s\n", line) // go test's own words (build errors, a panic)
		if strings.HasPrefix(string(line), "FAIL") {
			rp.failed = true
		}
		return
	}
	top, _, _ := strings.Cut(e.Test, "/") // a subtest's output is its test's
	key := e.Package + " " + top
	switch e.Action {
	case "run":
		if e.Test == top {
			rp.running[shortName(e.Package, top)] = at
		}
	case "output":
		rp.keep(e, key, at)
	case "build-output":
		rp.printf(at, "%s", e.Output)
	case "build-fail":
		rp.failed = true
	case "pass", "skip", "fail":
		rp.ended(e, key, top, at)
	}
}

// keep keeps a test's output, and prints at once an install line and
// go test's per-package lines.
func (rp *reporter) keep(e event, key string, at time.Time) {
	if m := installing.FindStringSubmatch(strings.TrimRight(e.Output, "\n")); m != nil {
		rp.printf(at, "  %s: %s\n", e.Package, strings.TrimSpace(m[1]))
	}
	if e.Test == "" {
		if strings.HasPrefix(e.Output, "ok ") || strings.HasPrefix(e.Output, "FAIL") || strings.HasPrefix(e.Output, "?") {
			rp.printf(at, "%s", e.Output) // go test's per-package line
		}
		if rp.output[key] == nil {
			rp.output[key] = &strings.Builder{}
		}
		rp.output[key].WriteString(e.Output) // a package's own output: a panic, TestMain's words
		return
	}
	if rp.output[key] == nil {
		rp.output[key] = &strings.Builder{}
	}
	rp.output[key].WriteString(e.Output)
}

// ended handles a test's or a package's end.
func (rp *reporter) ended(e event, key, top string, at time.Time) {
	if e.Action == "fail" {
		rp.failed = true
	}
	switch {
	case e.Test == "":
		rp.packageEnded(e, key, at)
	case e.Test == top:
		delete(rp.running, shortName(e.Package, top))
		rp.testLine(e, rp.output[key], at)
		delete(rp.output, key)
	}
}

// packageEnded counts a package; one that failed with no test failing
// (a build failure, a panic outside tests, a timeout) is a failure of its
// own, its output in a file.
func (rp *reporter) packageEnded(e event, key string, at time.Time) {
	out := rp.output[key]
	delete(rp.output, key)
	if e.Action != "fail" {
		rp.counts.pkgOK++
		return
	}
	rp.counts.pkgFail++
	if rp.failing[basePkg(e.Package)] {
		return // its failed tests are listed
	}
	name := e.Package + " (package)"
	log := rp.saveLog(name, out)
	rp.fails = append(rp.fails, failure{name, log})
	rp.printf(at, "  FAIL %s: no test failed; full output in %s\n", name, log)
	rp.printTail(out, at)
}

// testLine reports a top-level test that ended: a failure with the first
// lines of its output and the file with all of it, a skip with its reason.
func (rp *reporter) testLine(e event, out *strings.Builder, at time.Time) {
	name := shortName(e.Package, e.Test)
	switch e.Action {
	case "pass":
		rp.counts.pass++
		rp.printf(at, "  PASS %s (%.1fs)\n", name, e.Elapsed)
	case "skip":
		rp.counts.skip++
		rp.printf(at, "  SKIP %s: %s\n", name, skipReason(out))
	case "fail":
		rp.counts.fail++
		rp.failing[basePkg(e.Package)] = true
		log := rp.saveLog(name, out)
		rp.fails = append(rp.fails, failure{name, log})
		rp.printf(at, "  FAIL %s (%.1fs): full output in %s\n", name, e.Elapsed, log)
		rp.printTail(out, at)
	}
}

// printTail prints the first o.head lines of out, saying how many more
// the log file holds.
func (rp *reporter) printTail(out *strings.Builder, at time.Time) {
	if out == nil {
		return
	}
	lines := strings.SplitAfter(out.String(), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	shown := lines[:min(len(lines), rp.o.head)]
	rp.printf(at, "%s", strings.Join(shown, ""))
	if rest := len(lines) - len(shown); rest > 0 {
		rp.printf(at, "    ... %d more lines in the log file\n", rest)
	}
}

// saveLog writes a failure's whole output to its file in o.logs and
// returns the file's path ("" and a note on the terminal if it cannot).
func (rp *reporter) saveLog(name string, out *strings.Builder) string {
	if out == nil {
		out = &strings.Builder{}
	}
	if err := os.MkdirAll(rp.o.logs, 0o755); err != nil {
		fmt.Fprintf(rp.w, "progress: cannot keep %s's output: %v\n", name, err)
		return ""
	}
	path := filepath.Join(rp.o.logs, strings.NewReplacer("/", "_", " ", "_", "(", "", ")", "").Replace(name)+".log")
	if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
		fmt.Fprintf(rp.w, "progress: cannot keep %s's output: %v\n", name, err)
		return ""
	}
	return path
}

// heartbeat says what is happening after a silence: the tests running
// longest, or, before any test runs, that packages are being compiled.
func (rp *reporter) heartbeat(at time.Time) {
	elapsed := at.Sub(rp.started).Round(time.Second)
	if len(rp.running) == 0 {
		if done := rp.counts.pkgOK + rp.counts.pkgFail; done > 0 {
			rp.printf(at, "  ... %s: %d packages done, no test running: compiling or starting the next\n", elapsed, done)
			return
		}
		rp.printf(at, "  ... %s: compiling test binaries (go test -race builds every package before running it)\n", elapsed)
		return
	}
	names := make([]string, 0, len(rp.running))
	for n := range rp.running {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return rp.running[a].Compare(rp.running[b]) })
	var parts []string
	for _, n := range names[:min(3, len(names))] {
		parts = append(parts, fmt.Sprintf("%s %s", n, at.Sub(rp.running[n]).Round(time.Second)))
	}
	rp.printf(at, "  ... %s: %d tests running, longest %s\n", elapsed, len(names), strings.Join(parts, ", "))
}

// summary prints the counts and each failure's name and log file.
func (rp *reporter) summary(at time.Time) {
	c := rp.counts
	result := "PASS"
	if rp.failed {
		result = "FAIL"
	}
	rp.printf(at, "\n%s: %d tests passed, %d failed, %d skipped; %d packages ok, %d failed (%s)\n",
		result, c.pass, c.fail, c.skip, c.pkgOK, c.pkgFail, at.Sub(rp.started).Round(time.Second))
	for _, f := range rp.fails {
		rp.printf(at, "  FAIL %s: %s\n", f.name, f.log)
	}
}

// shortName is a test's name as progress prints it: the package's last
// element, a dot, the test.
func shortName(pkg, test string) string {
	pkg = basePkg(pkg)
	return pkg[strings.LastIndex(pkg, "/")+1:] + "." + test
}

// basePkg is a package's import path without the "#N" naming one of
// the processes it runs in (see shards.go).
func basePkg(pkg string) string {
	base, _, _ := strings.Cut(pkg, "#")
	return base
}

// skipReason is the last line a skipped test logged, its t.Skip message.
func skipReason(out *strings.Builder) string {
	if out == nil {
		return "no reason given"
	}
	var last string
	for _, l := range strings.Split(out.String(), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "=== ") && !strings.HasPrefix(l, "--- ") {
			last = l
		}
	}
	return last
}
