package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fixedClock is a clock that says start, then start+step at each call.
func fixedClock(start time.Time, step time.Duration) func() time.Time {
	t := start.Add(-step)
	return func() time.Time { t = t.Add(step); return t }
}

// TestReport: a line per top-level test as it ends, a failure with the
// first lines of its output and the file holding all of it, a skip with
// its reason, an install said at once, go test's package lines kept, a
// summary with the counts and each failure's log, and failure reported.
func TestReport(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Package":"m/test","Test":"TestA"}`,
		`{"Action":"output","Package":"m/test","Test":"TestA","Output":"    x_test.go:9: installing chromium with apt-get\n"}`,
		`{"Action":"pass","Package":"m/test","Test":"TestA","Elapsed":1.25}`,
		`{"Action":"run","Package":"m/test","Test":"TestB"}`,
		`{"Action":"output","Package":"m/test","Test":"TestB/sub","Output":"    b_test.go:3: got 1, want 2\n"}`,
		`{"Action":"output","Package":"m/test","Test":"TestB/sub","Output":"    b_test.go:4: boris-gateway log:\n"}`,
		`{"Action":"output","Package":"m/test","Test":"TestB/sub","Output":"        level=INFO msg=one\n"}`,
		`{"Action":"output","Package":"m/test","Test":"TestB/sub","Output":"        level=INFO msg=two\n"}`,
		`{"Action":"fail","Package":"m/test","Test":"TestB/sub","Elapsed":0.1}`,
		`{"Action":"output","Package":"m/test","Test":"TestB","Output":"--- FAIL: TestB (0.10s)\n"}`,
		`{"Action":"fail","Package":"m/test","Test":"TestB","Elapsed":0.1}`,
		`{"Action":"output","Package":"m/test","Test":"TestC","Output":"    c_test.go:5: no chromium here\n"}`,
		`{"Action":"skip","Package":"m/test","Test":"TestC"}`,
		`{"Action":"output","Package":"m/test","Output":"FAIL\tm/test\t1.5s\n"}`,
		`{"Action":"fail","Package":"m/test","Elapsed":1.5}`,
		`{"Action":"output","Package":"m/other","Output":"panic: boom\n"}`,
		`{"Action":"output","Package":"m/other","Output":"FAIL\tm/other\t0.2s\n"}`,
		`{"Action":"fail","Package":"m/other","Elapsed":0.2}`,
		`{"Action":"output","Package":"m/ok","Output":"ok  \tm/ok\t0.1s\n"}`,
		`{"Action":"pass","Package":"m/ok","Elapsed":0.1}`,
	}, "\n")
	logs := t.TempDir()
	var out strings.Builder
	failed, err := report(strings.NewReader(in), &out, options{logs: logs, head: 2}, fixedClock(time.Unix(0, 0), 0))
	testB, other := filepath.Join(logs, "test.TestB.log"), filepath.Join(logs, "m_other_package.log")
	want := "  m/test: installing chromium with apt-get\n" +
		"  PASS test.TestA (1.2s)\n" +
		"  FAIL test.TestB (0.1s): full output in " + testB + "\n" +
		"    b_test.go:3: got 1, want 2\n    b_test.go:4: boris-gateway log:\n    ... 3 more lines in the log file\n" +
		"  SKIP test.TestC: c_test.go:5: no chromium here\n" +
		"FAIL\tm/test\t1.5s\n" +
		"FAIL\tm/other\t0.2s\n" +
		"  FAIL m/other (package): no test failed; full output in " + other + "\n" +
		"panic: boom\nFAIL\tm/other\t0.2s\n" +
		"ok  \tm/ok\t0.1s\n" +
		"\nFAIL: 1 tests passed, 1 failed, 1 skipped; 1 packages ok, 2 failed (0s)\n" +
		"  FAIL test.TestB: " + testB + "\n" +
		"  FAIL m/other (package): " + other + "\n"
	if err != nil || !failed || out.String() != want {
		t.Errorf("report: failed %v, err %v, output:\n%s\nwant failed, and:\n%s", failed, err, out.String(), want)
	}
	if b, err := os.ReadFile(testB); err != nil || !strings.Contains(string(b), "msg=two\n--- FAIL: TestB") {
		t.Errorf("%s: got %q (%v), want TestB's whole output", testB, b, err)
	}
}

// TestHeartbeat: after a silence, a line says what is going on: the
// compilation before any test runs, then the tests running longest.
func TestHeartbeat(t *testing.T) {
	start := time.Unix(1000, 0)
	var out strings.Builder
	rp := &reporter{w: &out, output: map[string]*strings.Builder{}, running: map[string]time.Time{}, failing: map[string]bool{}, started: start, said: start}
	rp.heartbeat(start.Add(30 * time.Second))
	if want := "  ... 30s: compiling test binaries (go test -race builds every package before running it)\n"; out.String() != want {
		t.Errorf("heartbeat before any test:\n%s\nwant:\n%s", out.String(), want)
	}
	out.Reset()
	rp.line([]byte(`{"Action":"run","Package":"m/test","Test":"TestSlow"}`), start.Add(40*time.Second))
	rp.line([]byte(`{"Action":"run","Package":"m/gw","Test":"TestFast"}`), start.Add(50*time.Second))
	rp.heartbeat(start.Add(80 * time.Second))
	if want := "  ... 1m20s: 2 tests running, longest test.TestSlow 40s, gw.TestFast 30s\n"; out.String() != want {
		t.Errorf("heartbeat with tests running:\n%s\nwant:\n%s", out.String(), want)
	}
	rp.line([]byte(`{"Action":"pass","Package":"m/test","Test":"TestSlow","Elapsed":50}`), start.Add(90*time.Second))
	rp.line([]byte(`{"Action":"pass","Package":"m/gw","Test":"TestFast","Elapsed":40}`), start.Add(90*time.Second))
	rp.line([]byte(`{"Action":"pass","Package":"m/gw","Elapsed":40}`), start.Add(90*time.Second))
	out.Reset()
	rp.heartbeat(start.Add(120 * time.Second))
	want := "  ... 2m0s: 1 packages done, no test running: compiling or starting the next\n"
	if out.String() != want {
		t.Errorf("heartbeat between packages:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestReportSilence: a real silence on the input makes report print a
// heartbeat line before the next test ends.
func TestReportSilence(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var out syncBuilder
	done := make(chan struct{})
	go func() {
		_, _ = report(r, &out, options{logs: t.TempDir(), every: 20 * time.Millisecond}, time.Now)
		close(done)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "compiling test binaries") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	w.Close()
	<-done
	if !strings.Contains(out.String(), "compiling test binaries") {
		t.Errorf("output after a silence: %q, want a heartbeat line", out.String())
	}
}

// TestPhase: a phase passes its command's output and exit status
// through and says it still runs during a silence.
func TestPhase(t *testing.T) {
	var out syncBuilder
	code := runPhase("vet", []string{"sh", "-c", "echo first; sleep 0.3; exit 3"}, 50*time.Millisecond, &out)
	got := out.String()
	if code != 3 || !strings.Contains(got, "first\n") || !strings.Contains(got, "  ... vet: still running") || !strings.Contains(got, "vet: done in") {
		t.Errorf("runPhase: exit %d, output %q; want 3, the command's output, a heartbeat and the time", code, got)
	}
}
