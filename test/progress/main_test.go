package main

import (
	"strings"
	"testing"
)

// TestReport: a line per top-level test as it ends, a failure with its
// output, a skip with its reason, an install said at once, go test's
// package lines kept, and failure reported.
func TestReport(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Package":"m/test","Test":"TestA"}`,
		`{"Action":"output","Package":"m/test","Test":"TestA","Output":"    x_test.go:9: installing chromium with apt-get\n"}`,
		`{"Action":"pass","Package":"m/test","Test":"TestA","Elapsed":1.25}`,
		`{"Action":"output","Package":"m/test","Test":"TestB/sub","Output":"    b_test.go:3: got 1, want 2\n"}`,
		`{"Action":"fail","Package":"m/test","Test":"TestB/sub","Elapsed":0.1}`,
		`{"Action":"output","Package":"m/test","Test":"TestB","Output":"--- FAIL: TestB (0.10s)\n"}`,
		`{"Action":"fail","Package":"m/test","Test":"TestB","Elapsed":0.1}`,
		`{"Action":"output","Package":"m/test","Test":"TestC","Output":"    c_test.go:5: no chromium here\n"}`,
		`{"Action":"skip","Package":"m/test","Test":"TestC"}`,
		`{"Action":"output","Package":"m/test","Output":"FAIL\tm/test\t1.5s\n"}`,
		`{"Action":"fail","Package":"m/test","Elapsed":1.5}`,
	}, "\n")
	var out strings.Builder
	failed, err := report(strings.NewReader(in), &out)
	want := "  m/test: installing chromium with apt-get\n" +
		"  PASS test.TestA (1.2s)\n" +
		"  FAIL test.TestB (0.1s)\n    b_test.go:3: got 1, want 2\n--- FAIL: TestB (0.10s)\n" +
		"  SKIP test.TestC: c_test.go:5: no chromium here\n" +
		"FAIL\tm/test\t1.5s\n"
	if err != nil || !failed || out.String() != want {
		t.Errorf("report: failed %v, err %v, output:\n%s\nwant failed, and:\n%s", failed, err, out.String(), want)
	}
}
