package test

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the server lines of test/testdata/transcripts/*.txt from the real output")

// TestTranscripts replays JSON-RPC exchanges against the built boris. Each
// file under testdata/transcripts is a transcript: "> " lines are sent to
// the core's stdin in order; each "< " line is the next message expected on
// its stdout, compared as JSON with $WORKDIR standing for the core's working
// directory. Lines starting with "#" are comments. Run with -update to
// regenerate the "< " lines after an intended change of behaviour.
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/transcripts/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts found: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			runTranscript(t, file)
		})
	}
}

// transcriptCore is a boris whose stdout is read line by line.
type transcriptCore struct {
	stdin io.WriteCloser
	lines <-chan string
	dir   string
}

func startTranscriptCore(t *testing.T) *transcriptCore {
	dir := realTempDir(t)
	writeFile(t, filepath.Join(dir, "f.txt"), "alpha\nbeta\nalpha\n")
	// --sandbox off: the instructions then read the same on every kernel.
	cmd := exec.Command(borisBin, "--workdir", dir, "--log-level", "error", "--sandbox", "off")
	stdin, stdout := startPiped(t, cmd)
	tc := &transcriptCore{stdin: stdin, lines: rawLines(stdout), dir: dir}
	t.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	return tc
}

// next returns the core's next stdout line, or "" after wait.
func (tc *transcriptCore) next(wait time.Duration) string {
	select {
	case l := <-tc.lines:
		return strings.ReplaceAll(l, tc.dir, "$WORKDIR")
	case <-time.After(wait):
		return ""
	}
}

func runTranscript(t *testing.T, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tc := startTranscriptCore(t)
	var out bytes.Buffer
	for n, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "> "):
			out.WriteString(line + "\n")
			if _, err := io.WriteString(tc.stdin, strings.ReplaceAll(line[2:], "$WORKDIR", tc.dir)+"\n"); err != nil {
				t.Fatalf("line %d: write: %v", n+1, err)
			}
			if *update {
				for got := tc.next(2 * time.Second); got != ""; got = tc.next(300 * time.Millisecond) {
					out.WriteString("< " + got + "\n")
				}
			}
		case strings.HasPrefix(line, "< "):
			if *update {
				continue
			}
			got := tc.next(15 * time.Second)
			if !sameJSON(got, line[2:]) {
				t.Fatalf("%s:%d:\ngot  %s\nwant %s", file, n+1, got, line[2:])
			}
		default:
			out.WriteString(line + "\n")
		}
	}
	if *update {
		if err := os.WriteFile(file, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if extra := tc.next(200 * time.Millisecond); extra != "" {
		t.Errorf("%s: unexpected extra message %s", file, extra)
	}
}

// sameJSON compares two JSON texts by value.
func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
