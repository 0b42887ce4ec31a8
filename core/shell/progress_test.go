package shell

import (
	"strings"
	"sync"
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

// progressCalls records the calls of a Progress callback.
type progressCalls struct {
	mu    sync.Mutex
	at    []time.Time
	lines []string
	ch    chan struct{} // receives after every call
}

func newProgressCalls() *progressCalls { return &progressCalls{ch: make(chan struct{}, 100)} }

func (p *progressCalls) fn(_ time.Duration, line string) {
	p.mu.Lock()
	p.at, p.lines = append(p.at, time.Now()), append(p.lines, line)
	p.mu.Unlock()
	p.ch <- struct{}{}
}

// await waits for the next call, failing the test after 5 s.
func (p *progressCalls) await(t *testing.T, what string) {
	t.Helper()
	select {
	case <-p.ch:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: no progress call after 5 s", what)
	}
}

// TestProgressLeadingEdge checks that the first report goes out as soon as
// there is output, not an interval later: with an hour's interval, only
// the leading edge can report at all.
func TestProgressLeadingEdge(t *testing.T) {
	last := &lastLine{sentinel: testSentinel}
	calls := newProgressCalls()
	stop := startProgress(calls.fn, time.Hour, time.Now(), last)
	defer stop()
	(&lineWriter{last: last}).Write([]byte("compiling\n"))
	calls.await(t, "first line")
	if calls.lines[0] != "compiling" {
		t.Errorf("first report's line = %q, want %q", calls.lines[0], "compiling")
	}
	(&lineWriter{last: last}).Write([]byte("linking\n"))
	select {
	case <-calls.ch:
		t.Errorf("a second report within the interval (line %q); want at most one per interval", calls.lines[1])
	case <-time.After(50 * time.Millisecond):
	}
}

// TestProgressExistingOutput checks that a wait starting when output is
// already there (task_output on a running task) reports it at once.
func TestProgressExistingOutput(t *testing.T) {
	last := &lastLine{sentinel: testSentinel}
	(&lineWriter{last: last}).Write([]byte("serving on :8080\n"))
	calls := newProgressCalls()
	stop := startProgress(calls.fn, time.Hour, time.Now(), last)
	defer stop()
	calls.await(t, "existing line")
}

// TestProgressRateLimited checks that, however much is printed, reports
// stay at least an interval apart after the leading one.
func TestProgressRateLimited(t *testing.T) {
	const interval = 30 * time.Millisecond
	last := &lastLine{sentinel: testSentinel}
	w := &lineWriter{last: last}
	calls := newProgressCalls()
	stop := startProgress(calls.fn, interval, time.Now(), last)
	for i := 0; i < 4; {
		w.Write([]byte("line\n"))
		select {
		case <-calls.ch:
			i++
		default:
		}
	}
	stop()
	calls.mu.Lock()
	defer calls.mu.Unlock()
	for i := 1; i < len(calls.at); i++ {
		if gap := calls.at[i].Sub(calls.at[i-1]); gap < interval {
			t.Errorf("reports %d and %d came %v apart, want at least %v", i-1, i, gap, interval)
		}
	}
}

// TestProgressForgetsWaiter checks that a wait ended before any output
// leaves nothing behind in the line tracker, which a background task keeps
// across many task_output waits.
func TestProgressForgetsWaiter(t *testing.T) {
	last := &lastLine{sentinel: testSentinel}
	for range 10 {
		startProgress(func(time.Duration, string) {}, time.Hour, time.Now(), last)()
	}
	if n := len(last.waiters); n != 0 {
		t.Errorf("%d waiters left after every wait stopped, want 0", n)
	}
}
