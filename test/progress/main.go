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
// With -shard DIR it runs the command after "--" (go test -json of the
// other packages) itself, and beside it the package in DIR split across
// -shards processes of its test binary (shards.go), reading all their
// events as one run.
//
//	go run ./test/progress -logs bin/test-logs -shard ./test -- go test -json ./core/...
//
// With -beside SCRIPT it also runs SCRIPT (sh -c; go vet and staticcheck)
// beside the tests, at the lowest CPU priority, its output in -logs, and
// fails the run if it fails (beside.go).
//
// With -phase NAME it runs the command after "--" instead, its output
// passed through, saying every -every that NAME is still running, and
// exits with its status.
//
//	go run ./test/progress -phase vet -- go vet ./...
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
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
	var plan shardPlan
	flag.StringVar(&plan.dir, "shard", "", "run the package in this directory in -shards processes beside the command after --")
	flag.IntVar(&plan.n, "shards", 3, "processes the -shard package's tests are split across")
	flag.StringVar(&plan.bin, "shard-bin", "bin/shard.test", "where the -shard package's test binary is compiled")
	flag.DurationVar(&plan.timeout, "shard-timeout", 20*time.Minute, "each shard's -test.timeout")
	flag.StringVar(&plan.weights, "shard-times", "", "file keeping each test's last duration, to balance the next run's shards")
	flag.IntVar(&plan.nice, "shard-nice", 0, "run the shards this much nicer than the command after --")
	flag.StringVar(&plan.packages, "package-times", "", "file keeping each other package's last duration: the command after -- gets them longest first")
	flag.StringVar(&plan.weightsSeed, "shard-times-seed", "", "durations kept in the repository, for the tests -shard-times does not know (a fresh cache)")
	flag.StringVar(&plan.packagesSeed, "package-times-seed", "", "durations kept in the repository, for the packages -package-times does not know")
	besideScript := flag.String("beside", "", "also run this sh -c script beside the tests, at the lowest CPU priority, and fail if it fails")
	besideName := flag.String("beside-name", "go vet and staticcheck", "what -beside runs, for its lines and its log file")
	flag.Parse()
	if *phase != "" {
		os.Exit(runPhase(*phase, flag.Args(), o.every, os.Stdout))
	}
	out := &lockedWriter{w: os.Stdout}
	var side *beside
	exit := func(code int) {
		if side != nil {
			side.stop()
		}
		os.Exit(code)
	}
	if *besideScript != "" {
		var err error
		if side, err = startBeside(*besideName, *besideScript, o.logs, out); err != nil {
			fmt.Fprintln(os.Stderr, "progress:", err)
			os.Exit(2)
		}
		// Interrupted, it stops what it started beside (its own process
		// group, which the terminal's signals do not reach).
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
		go func() { <-sig; exit(130) }()
	}
	in := io.Reader(os.Stdin)
	ranFailed := false
	if plan.dir != "" {
		var err error
		if plan, err = plan.resolve(flag.Args()); err != nil {
			fmt.Fprintln(os.Stderr, "progress:", err)
			exit(2)
		}
		pr, pw := io.Pipe()
		in = pr
		go func() {
			ranFailed = runMerged(pw, flag.Args(), plan)
			pw.Close()
		}()
	}
	failed, err := report(in, out, o, time.Now)
	if err != nil {
		fmt.Fprintln(os.Stderr, "progress:", err)
		exit(1)
	}
	if side != nil && side.wait(out, o.every, o.head) {
		failed = true
	}
	if failed || ranFailed {
		exit(1)
	}
}

// lockedWriter serialises writes to w from the report and the command
// run beside it.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
