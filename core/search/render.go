package search

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxLineChars is where a shown line is cut, as the view tool cuts lines.
const MaxLineChars = 2000

// Page selects a window of output entries: Offset entries are passed
// over, then at most Limit are shown, and no more than fit in MaxBytes of
// text (the first entry always shows). A zero Limit or MaxBytes sets no
// limit.
type Page struct{ Offset, Limit, MaxBytes int }

// window returns the page's bounds [from, to) among total entries. Offset
// and Limit come from a client and may be near the largest int: they are
// compared with what is left, never added (from+Limit would overflow).
func (p Page) window(total int) (int, int) {
	from := min(max(p.Offset, 0), total)
	to := total
	if p.Limit > 0 {
		to = from + min(p.Limit, total-from)
	}
	return from, to
}

// Rendered is one page of output.
type Rendered struct {
	Text  string // the page's lines, each ending in "\n"
	From  int    // index of the first entry shown
	To    int    // index after the last entry shown
	Total int    // entries in all
	Full  bool   // the page stopped before Limit because MaxBytes was reached
}

// fits reports whether n more bytes may follow used bytes of a page that
// holds shown entries.
func (p Page) fits(used, n, shown int) bool {
	return p.MaxBytes <= 0 || shown == 0 || used+n <= p.MaxBytes
}

// RenderFiles lists one path per line (FilesWithMatches mode).
func (r *GrepResult) RenderFiles(p Page) Rendered {
	return r.renderEach(p, func(f FileMatch) string { return f.Path + "\n" })
}

// RenderCounts lists "path:N" per line (Count mode).
func (r *GrepResult) RenderCounts(p Page) Rendered {
	return r.renderEach(p, func(f FileMatch) string { return f.Path + ":" + strconv.Itoa(f.Count) + "\n" })
}

// renderEach renders one line per file of the page.
func (r *GrepResult) renderEach(p Page, line func(FileMatch) string) Rendered {
	from, to := p.window(len(r.Files))
	var sb strings.Builder
	for i := from; i < to; i++ {
		l := line(r.Files[i])
		if !p.fits(sb.Len(), len(l), i-from) {
			return Rendered{Text: sb.String(), From: from, To: i, Total: len(r.Files), Full: true}
		}
		sb.WriteString(l)
	}
	return Rendered{Text: sb.String(), From: from, To: to, Total: len(r.Files)}
}

// ContentOptions say how Content mode lines are shown.
type ContentOptions struct {
	Before, After int  // lines of context before and after each match
	LineNumbers   bool // show line numbers
}

// span is a run of consecutive lines shown from one file, 1-based and
// inclusive.
type span struct{ lo, hi int }

// spans merges each match's context into runs of lines to show. before
// and after come from a client and may be near the largest int: they are
// clamped to the lines there are before being added (l+after would
// overflow into a negative bound).
func spans(lines []int, total, before, after int) []span {
	var out []span
	for _, l := range lines {
		lo := l - min(max(before, 0), l-1)
		hi := l + min(max(after, 0), max(total-l, 0))
		if n := len(out); n > 0 && lo <= out[n-1].hi+1 {
			out[n-1].hi = max(out[n-1].hi, hi)
			continue
		}
		out = append(out, span{lo, hi})
	}
	return out
}

// spanLines counts the lines of a file's spans.
func spanLines(ss []span) int {
	n := 0
	for _, s := range ss {
		n += s.hi - s.lo + 1
	}
	return n
}

// RenderContent shows matching lines and their context, grep style:
// "path:12:text" for a matching line, "path-13-text" for a context line
// ("path:text" and "path-text" without line numbers), and "--" between
// runs that are not adjacent when context is shown. Entries are lines
// (match or context; "--" does not count). The lines come from what Grep
// kept (for the same context); otherwise only the files on the page are
// read again, to fetch them.
func (r *GrepResult) RenderContent(o ContentOptions, p Page) Rendered {
	plans := make([][]span, len(r.Files))
	total := 0
	for i, f := range r.Files {
		plans[i] = spans(f.Lines, f.Total, o.Before, o.After)
		total += spanLines(plans[i])
	}
	from, to := p.window(total)
	w := contentWriter{o: o, sep: o.Before > 0 || o.After > 0, page: p}
	for i, base := 0, 0; i < len(r.Files) && base < to && !w.full; i++ {
		n := spanLines(plans[i])
		if base+n > from {
			w.file(r, r.Files[i], plans[i], max(from-base, 0), min(to-base, n))
		}
		base += n
	}
	if w.full {
		to = from + w.shown
	}
	return Rendered{Text: w.sb.String(), From: from, To: to, Total: total, Full: w.full}
}

// contentWriter accumulates Content mode output.
type contentWriter struct {
	o       ContentOptions
	sep     bool // print "--" between runs
	printed bool // a line has been written
	page    Page // its MaxBytes bounds the output
	shown   int  // entries (lines) written
	full    bool // a line did not fit in page.MaxBytes: stop
	sb      bytes.Buffer
}

// file writes the lines of f's spans whose index among the file's shown
// lines is in [lo, hi).
func (w *contentWriter) file(r *GrepResult, f FileMatch, ss []span, lo, hi int) {
	var cur lineSource
	if f.kept != nil && len(ss) > 0 && r.context == [2]int{w.o.Before, w.o.After} {
		cur = &keptCursor{buf: f.kept, ss: ss, line: ss[0].lo}
	} else {
		data, err := r.reread(f.src)
		if err != nil {
			fmt.Fprintf(&w.sb, "%s: [could not read the file again: %v]\n", f.Path, err)
			return
		}
		cur = &lineCursor{buf: data, line: 1}
	}
	idx, mi := 0, 0
	for _, s := range ss {
		first := true
		for l := s.lo; l <= s.hi && idx < hi; l, idx = l+1, idx+1 {
			if idx < lo {
				continue
			}
			mark := w.sb.Len()
			if first && w.printed && w.sep {
				w.sb.WriteString("--\n")
			}
			first = false
			for mi < len(f.Lines) && f.Lines[mi] < l {
				mi++
			}
			w.line(f.Path, l, mi < len(f.Lines) && f.Lines[mi] == l, cur.get(l))
			if !w.page.fits(mark, w.sb.Len()-mark, w.shown) {
				w.sb.Truncate(mark)
				w.full = true
				return
			}
			w.shown++
		}
	}
}

// line writes one output line.
func (w *contentWriter) line(path string, num int, match bool, text []byte) {
	sep := byte('-')
	if match {
		sep = ':'
	}
	w.sb.WriteString(path)
	w.sb.WriteByte(sep)
	if w.o.LineNumbers {
		w.sb.WriteString(strconv.Itoa(num))
		w.sb.WriteByte(sep)
	}
	writeCut(&w.sb, text)
	w.sb.WriteByte('\n')
	w.printed = true
}

// writeCut writes at most MaxLineChars characters of text, with a note
// when it was cut.
func writeCut(sb io.Writer, text []byte) {
	if len(text) <= MaxLineChars {
		sb.Write(text)
		return
	}
	chars := utf8.RuneCount(text)
	if chars <= MaxLineChars {
		sb.Write(text)
		return
	}
	cut, n := 0, 0
	for n < MaxLineChars {
		_, size := utf8.DecodeRune(text[cut:])
		cut += size
		n++
	}
	sb.Write(text[:cut])
	fmt.Fprintf(sb, " [... line cut: %d of %d characters shown]", MaxLineChars, chars)
}

// reread reads a matched file again through the policy.
func (r *GrepResult) reread(path string) ([]byte, error) {
	f, err := openPath(r.policy, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rd io.Reader = f
	if r.maxSize > 0 {
		rd = io.LimitReader(f, r.maxSize)
	}
	return io.ReadAll(rd)
}

// lineSource fetches lines of a file by increasing line number.
type lineSource interface {
	get(l int) []byte
}

// keptCursor fetches the lines a search kept: the lines of spans ss, in
// order, each followed by "\n".
type keptCursor struct {
	buf  []byte
	ss   []span
	si   int // the span of line
	pos  int // start of line in buf
	line int
}

// get returns line l, which must be in the spans and not decrease.
func (c *keptCursor) get(l int) []byte {
	for c.line < l {
		c.pos += bytes.IndexByte(c.buf[c.pos:], '\n') + 1
		if c.line++; c.line > c.ss[c.si].hi {
			c.si++
			c.line = c.ss[c.si].lo
		}
	}
	end := c.pos + bytes.IndexByte(c.buf[c.pos:], '\n')
	return c.buf[c.pos:end]
}

// lineCursor fetches lines of a buffer by increasing line number.
type lineCursor struct {
	buf  []byte
	pos  int // start of line
	line int
}

// get returns line l without its terminator; l must not decrease.
func (c *lineCursor) get(l int) []byte {
	for c.line < l && c.pos < len(c.buf) {
		j := bytes.IndexByte(c.buf[c.pos:], '\n')
		if j < 0 {
			c.pos = len(c.buf)
			break
		}
		c.pos += j + 1
		c.line++
	}
	if c.line < l {
		return nil
	}
	rest := c.buf[c.pos:]
	if j := bytes.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	return bytes.TrimSuffix(rest, []byte{'\r'})
}
