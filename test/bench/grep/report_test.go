package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestReport checks the table and the verdict lines, one met and one not.
func TestReport(t *testing.T) {
	tb := table{env: environment{goVersion: "go1.26.0", cpus: 2, rg: "ripgrep 13.0.0"}, root: "/src", files: 11478, runs: 3}
	tb.results = []result{
		{c: benchCase{name: "grep content, literal", unit: "lines"}, boris: 127500 * time.Microsecond, rg: 156 * time.Millisecond, matches: 438},
		{c: benchCase{name: "glob **/*.go", unit: "files"}, boris: 110 * time.Millisecond, rg: 50 * time.Millisecond, matches: 7711},
	}
	var buf bytes.Buffer
	tb.report(&buf)
	want := `go1.26.0, 2 CPUs; ripgrep 13.0.0; tree /src (11478 files); warm page cache; median of 3 runs

| case                                             |     boris |        rg |  ratio | matches (both) |
|--------------------------------------------------|-----------|-----------|--------|----------------|
| grep content, literal                            |  127.5 ms |  156.0 ms |  0.82x | 438 lines      |
| glob **/*.go                                     |  110.0 ms |   50.0 ms |  2.20x | 7711 files     |

MET     at or below ripgrep's time: grep content, literal (0.82x)
NOT MET at or below ripgrep's time: glob **/*.go (2.20x)

1 of 2 targets met.

`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
}
