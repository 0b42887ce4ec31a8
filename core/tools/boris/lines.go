package boris

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// maxLineChars is where view cuts a long line (docs/reference/tools.md#view).
const maxLineChars = 2000

// Buffers reused across calls: a small view should cost little more than
// its own output.
var (
	readerPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}
	keepPool   = sync.Pool{New: func() any { b := make([]byte, 0, maxLineChars*utf8.UTFMax); return &b }}
)

// line is one line of a file as view shows it: at most maxLineChars
// characters of text (no line terminator) and the line's full length.
type line struct {
	num   int    // 1-based
	text  []byte // possibly cut
	chars int    // characters in the whole line
}

// scanLines calls fn for every line of r in order, with memory bounded by
// the cut length whatever the line lengths: a 1 GB line costs no more than a
// short one. fn returns false to stop. It returns the number of lines read.
func scanLines(r io.Reader, fn func(l line) bool) (int, error) {
	br := readerPool.Get().(*bufio.Reader)
	br.Reset(r)
	defer func() { br.Reset(nil); readerPool.Put(br) }()
	keepp := keepPool.Get().(*[]byte)
	defer keepPool.Put(keepp)
	keep := *keepp
	n := 0
	for {
		l, err := readLine(br, keep[:0])
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
		l.num = n
		if !fn(l) {
			return n, nil
		}
	}
}

// readLine reads one line into keep, keeping only the first maxLineChars
// characters and counting the rest.
func readLine(br *bufio.Reader, keep []byte) (line, error) {
	var l line
	seen := false
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			seen = true
		}
		chunk = trimEOL(chunk, err == nil)
		l.chars += utf8.RuneCount(chunk)
		if room := cap(keep) - len(keep); room > 0 {
			keep = append(keep, chunk[:min(room, len(chunk))]...)
		}
		switch {
		case err == nil:
			l.text = cutChars(keep, maxLineChars)
			return l, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && seen:
			l.text = cutChars(keep, maxLineChars)
			return l, nil
		default:
			return l, err
		}
	}
}

// trimEOL drops a line's "\n" or "\r\n" terminator when the chunk ends the line.
func trimEOL(b []byte, ended bool) []byte {
	if !ended {
		return b
	}
	b = b[:len(b)-1]
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	return b
}

// cutChars returns at most n characters of b, never splitting a rune.
func cutChars(b []byte, n int) []byte {
	for i := range string(b) {
		if n == 0 {
			return b[:i]
		}
		n--
	}
	return b
}

// cutNoteMax bounds the length of writeNumbered's note on a cut line.
const cutNoteMax = 64

// numberedLen is at most how many bytes writeNumbered writes for l.
func numberedLen(l line) int {
	n := max(6, len(strconv.Itoa(l.num))) + 1 + len(l.text) + 1
	if l.chars > maxLineChars {
		n += cutNoteMax
	}
	return n
}

// writeNumbered writes l in cat -n style: the number right-aligned in six
// columns, a tab, the text, and a note when the line was cut.
func writeNumbered(sb *strings.Builder, l line) {
	var num [20]byte
	digits := strconv.AppendInt(num[:0], int64(l.num), 10)
	for range 6 - len(digits) {
		sb.WriteByte(' ')
	}
	sb.Write(digits)
	sb.WriteByte('\t')
	sb.Write(l.text)
	if l.chars > maxLineChars {
		fmt.Fprintf(sb, " [... line cut: %d of %d characters shown]", maxLineChars, l.chars)
	}
	sb.WriteByte('\n')
}
