package shell

import (
	"bytes"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// maxLineChars is how much of a line Progress receives: enough to recognise
// what the command is doing, small enough for a progress notification.
const maxLineChars = 200

// lastLine holds the most recent non-empty line seen on either stream. The
// reader goroutines set it and the progress goroutine reads it.
type lastLine struct {
	mu       sync.Mutex
	line     string
	sentinel string
	waiters  []chan struct{} // closed by the next set; see firstLine
}

func (l *lastLine) get() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.line
}

// set records raw if, once cleaned, anything is left; a blank line keeps the
// previous one so the agent sees something meaningful.
func (l *lastLine) set(raw []byte, partial bool) {
	line := cleanLine(string(raw), l.sentinel, partial)
	if line == "" {
		return
	}
	l.mu.Lock()
	l.line = line
	for _, w := range l.waiters {
		close(w)
	}
	l.waiters = nil
	l.mu.Unlock()
}

// firstLine returns a channel closed once there is a line: at once when
// there already is one, else at the next set.
func (l *lastLine) firstLine() <-chan struct{} {
	ch := make(chan struct{})
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.line != "" {
		close(ch)
	} else {
		l.waiters = append(l.waiters, ch)
	}
	return ch
}

// cleanLine prepares a raw line for Progress: the sentinel removed, only the
// text after the last carriage return (what a terminal would show for
// "\r"-animated progress bars), surrounding space trimmed, at most
// maxLineChars characters. A line still being written, or one we truncate,
// may end in a prefix of the sentinel whose remainder has not arrived or was
// cut off; that prefix is dropped too, so no part of it ever leaks.
func cleanLine(s, sentinel string, partial bool) string {
	s = scrub(s, sentinel)
	s = strings.TrimRight(s, "\r")
	if i := strings.LastIndexByte(s, '\r'); i >= 0 {
		s = s[i+1:]
	}
	if t, cut := truncateChars(s, maxLineChars); cut {
		s, partial = t, true
	}
	if partial {
		s = trimSentinelPrefix(s, sentinel)
	}
	return strings.TrimSpace(s)
}

// truncateChars returns the first n characters of s and whether it cut any.
func truncateChars(s string, n int) (string, bool) {
	i := 0
	for range n {
		if i >= len(s) {
			return s, false
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i], i < len(s)
}

// trimSentinelPrefix removes a trailing proper prefix of sentinel from s.
func trimSentinelPrefix(s, sentinel string) string {
	for k := min(len(sentinel)-1, len(s)); k > 0; k-- {
		if strings.HasSuffix(s, sentinel[:k]) {
			return s[:len(s)-k]
		}
	}
	return s
}

// lineWriter feeds one stream's output to a lastLine. It keeps only the start
// of the current line (bounded) so long lines cost no memory.
type lineWriter struct {
	last *lastLine
	cur  []byte
}

// maxLineBytes bounds the buffered line: maxLineChars characters of up to
// utf8.UTFMax bytes, plus room to see a whole sentinel straddling the cut.
func (w *lineWriter) maxLineBytes() int {
	return maxLineChars*utf8.UTFMax + len(w.last.sentinel)
}

// Write is called from the stream's single reader goroutine.
func (w *lineWriter) Write(p []byte) (int, error) {
	nl := bytes.LastIndexByte(p, '\n')
	if nl < 0 {
		w.appendCur(p)
		w.last.set(w.cur, true)
		return len(p), nil
	}
	tail := p[nl+1:]
	if len(bytes.TrimSpace(tail)) == 0 {
		// Only then does a complete line matter; it may alias w.cur, so it
		// is recorded before w.cur is reset.
		if complete := w.lastNonBlank(p[:nl]); complete != nil {
			w.last.set(complete, false)
		}
	}
	w.cur = w.cur[:0]
	w.appendCur(tail)
	if len(bytes.TrimSpace(w.cur)) > 0 {
		w.last.set(w.cur, true)
	}
	return len(p), nil
}

// lastNonBlank returns the last non-blank line among the complete lines in b
// (b ends at a newline, not included), the first of which continues w.cur.
// It returns nil if they are all blank.
func (w *lineWriter) lastNonBlank(b []byte) []byte {
	for end := len(b); ; {
		i := bytes.LastIndexByte(b[:end], '\n')
		line := b[i+1 : end]
		if i < 0 {
			w.appendCur(line)
			line = w.cur
		}
		if len(bytes.TrimSpace(line)) > 0 {
			return line[:min(len(line), w.maxLineBytes())]
		}
		if i < 0 {
			return nil
		}
		end = i
	}
}

func (w *lineWriter) appendCur(p []byte) {
	room := w.maxLineBytes() - len(w.cur)
	w.cur = append(w.cur, p[:min(len(p), max(room, 0))]...)
}

// startProgress reports progress through fn from one goroutine until the
// returned stop function is called; stop waits for a call in flight to
// finish, so no progress is reported after Run returns.
//
// The first report goes out as soon as there is a line of output (the
// leading edge), or after interval if there is none by then; later ones
// follow every interval after the previous report ended, so there is at
// most one per interval and a slow fn is never called back to back.
func startProgress(fn func(time.Duration, string), interval time.Duration, start time.Time, last *lastLine) (stop func()) {
	if fn == nil {
		return func() {}
	}
	quit, done := make(chan struct{}), make(chan struct{})
	waiter := last.firstLine()
	first := waiter
	go func() {
		defer close(done)
		t := time.NewTimer(interval)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-first:
				first = nil // the leading edge is taken once
			case <-t.C:
				first = nil
			}
			fn(time.Since(start), last.get())
			t.Reset(interval)
		}
	}()
	return func() {
		close(quit)
		<-done
		last.forget(waiter)
	}
}

// forget drops a waiter that was never woken, so a lastLine that outlives
// many waits (a background task's) does not collect them.
func (l *lastLine) forget(ch <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, w := range l.waiters {
		if w == ch {
			l.waiters = append(l.waiters[:i], l.waiters[i+1:]...)
			return
		}
	}
}
