// Command progress turns the event stream of `go test -json` into what
// make test prints while it runs: a line per top-level test as it ends
// (PASS, SKIP with the reason, FAIL with everything the test printed), a
// line per package as go test prints it, and at once any line a test logs
// about installing something ("installing chromium with apt-get"). It
// exits 1 when anything failed, so make test fails with go test.
//
//	go test -json ./... 2>&1 | go run ./test/progress
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
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

func main() {
	failed, err := report(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "progress:", err)
		os.Exit(1)
	}
	if failed {
		os.Exit(1)
	}
}

// report reads events from r and writes the progress to w. It reports
// whether any test, package or build failed.
func report(r io.Reader, w io.Writer) (failed bool, err error) {
	output := map[string]*strings.Builder{} // a running test's output, by package and test
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(w, "%s\n", line) // go test's own words (build errors, a panic)
			if strings.HasPrefix(string(line), "FAIL") {
				failed = true
			}
			continue
		}
		top, _, _ := strings.Cut(e.Test, "/") // a subtest's output is its test's
		key := e.Package + " " + top
		switch e.Action {
		case "output":
			if m := installing.FindStringSubmatch(strings.TrimRight(e.Output, "\n")); m != nil {
				fmt.Fprintf(w, "  %s: %s\n", e.Package, strings.TrimSpace(m[1]))
			}
			if e.Test == "" {
				if strings.HasPrefix(e.Output, "ok ") || strings.HasPrefix(e.Output, "FAIL") || strings.HasPrefix(e.Output, "?") {
					fmt.Fprint(w, e.Output) // go test's per-package line
				}
				continue
			}
			if output[key] == nil {
				output[key] = &strings.Builder{}
			}
			output[key].WriteString(e.Output)
		case "build-output":
			fmt.Fprint(w, e.Output)
		case "build-fail":
			failed = true
		case "pass", "skip", "fail":
			if e.Action == "fail" {
				failed = true
			}
			if e.Test != "" && e.Test == top {
				testLine(w, e, output[key])
				delete(output, key)
			}
		}
	}
	return failed, sc.Err()
}

// testLine reports a top-level test that ended: a failure with its whole
// output, a skip with its reason.
func testLine(w io.Writer, e event, out *strings.Builder) {
	name := e.Package[strings.LastIndex(e.Package, "/")+1:] + "." + e.Test
	switch e.Action {
	case "pass":
		fmt.Fprintf(w, "  PASS %s (%.1fs)\n", name, e.Elapsed)
	case "skip":
		fmt.Fprintf(w, "  SKIP %s: %s\n", name, skipReason(out))
	case "fail":
		fmt.Fprintf(w, "  FAIL %s (%.1fs)\n", name, e.Elapsed)
		if out != nil {
			fmt.Fprint(w, out.String())
		}
	}
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
