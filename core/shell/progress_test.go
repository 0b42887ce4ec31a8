package shell

import (
	"strings"
	"testing"
	"time"
)

func TestCleanLine(t *testing.T) {
	long := strings.Repeat("é", maxLineChars+5)
	tests := []struct {
		name    string
		in      string
		partial bool
		want    string
	}{
		{"plain", "  hello  ", false, "hello"},
		{"sentinel removed", "+ printf " + testSentinel + " /tmp", false, "+ printf  /tmp"},
		{"carriage return animation", "10%\r50%\r90%\r", false, "90%"},
		{"truncated to max chars", long, false, long[:maxLineChars*2]},
		{"partial sentinel prefix dropped", "abc\t" + testSentinel[:9], true, "abc"},
		{"complete line keeps underscores", "abc__", false, "abc__"},
		{"blank", " \t ", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cleanLine(tt.in, testSentinel, tt.partial); got != tt.want {
				t.Errorf("cleanLine(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestLineWriter(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{"complete line", []string{"one\ntwo\n"}, "two"},
		{"partial line wins", []string{"one\ntw"}, "tw"},
		{"line split across writes", []string{"hel", "lo\n"}, "hello"},
		{"blank lines keep last", []string{"one\n", "\n\n  \n"}, "one"},
		{"blank trailing lines in same write", []string{"x\ny\n\n\n"}, "y"},
		{"first line continues partial", []string{"ab", "cd\n\n"}, "abcd"},
		{"nothing yet", []string{"\n\n"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			last := &lastLine{sentinel: testSentinel}
			w := &lineWriter{last: last}
			for _, s := range tt.writes {
				w.Write([]byte(s))
			}
			if got := last.get(); got != tt.want {
				t.Errorf("last line = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLineWriterBoundsLongLine(t *testing.T) {
	w := &lineWriter{last: &lastLine{sentinel: testSentinel}}
	chunk := []byte(strings.Repeat("x", 1000))
	for range 100 {
		w.Write(chunk)
	}
	if got, max := len(w.cur), w.maxLineBytes(); got > max {
		t.Errorf("buffered %d bytes of one line, want at most %d", got, max)
	}
	if got := w.last.get(); got != string(chunk[:maxLineChars]) {
		t.Errorf("last line has %d chars, want %d", len(got), maxLineChars)
	}
}

// TestProgressNeverSeesRecord checks the stdout plumbing: the line tracker
// must sit behind the record filter, or the cwd record (the last line of
// every command) would become the progress line.
func TestProgressNeverSeesRecord(t *testing.T) {
	s := newShell(t)
	r := newRun(s, "", Options{Progress: func(time.Duration, string) {}}, false)
	r.filter.Write([]byte("work\n\n" + s.sentinel + "/some/dir\n"))
	r.filter.flush()
	if got := r.last.get(); got != "work" {
		t.Errorf("progress line = %q, want %q", got, "work")
	}
}
