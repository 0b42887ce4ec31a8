// Command progress is what make test prints while it runs.
//
// Reading `go test -json` on stdin, it prints a line per top-level test as
// it ends (PASS, SKIP with the reason, FAIL with the first lines of its
// output and the file holding all of it), a line per package as go test
// prints it, at once any line a test logs about installing something
// ("installing chromium with apt-get"), a line whenever nothing was said
// for -every (what is compiling or running, and for how long), and at the
// end a summary: counts, and each failure's name and log file. It exits 1
// when anything failed, so make test fails with go test.
//
//	go test -json ./... 2>&1 | go run ./test/progress -logs bin/test-logs
//
// With -phase NAME it runs the command after "--" instead (go vet,
// staticcheck), its output passed through, saying every -every that NAME
// is still running, and exits with its status.
//
//	go run ./test/progress -phase vet -- go vet ./...
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

// options are the command's flags.
type options struct {
	logs  string        // directory of failed tests' full output
	every time.Duration // the longest silence before a heartbeat line
	head  int           // lines of a failure's output printed on the terminal
}

func main() {
	var o options
	phase := flag.String("phase", "", "run the command after -- as make test's phase NAME, with heartbeat lines")
	flag.StringVar(&o.logs, "logs", "test-logs", "directory for each failed test's full output")
	flag.DurationVar(&o.every, "every", 25*time.Second, "print a line when nothing was printed for this long")
	flag.IntVar(&o.head, "head", 30, "lines of a failed test's output shown on the terminal")
	flag.Parse()
	if *phase != "" {
		os.Exit(runPhase(*phase, flag.Args(), o.every, os.Stdout))
	}
	failed, err := report(os.Stdin, os.Stdout, o, time.Now)
	if err != nil {
		fmt.Fprintln(os.Stderr, "progress:", err)
		os.Exit(1)
	}
	if failed {
		os.Exit(1)
	}
}
