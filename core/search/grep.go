package search

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mjkoo/boris/core/scope"
)

// Reading sizes. Files up to streamAbove are read whole into a pooled
// buffer; bigger ones are read in chunks of streamChunk when only a yes/no
// or a count is wanted. binaryProbe is how much of a file's start is
// checked for a NUL byte, as git does.
const (
	streamAbove = 1 << 20
	streamChunk = 1 << 20
	binaryProbe = 8 << 10
)

// Mode selects what Grep collects.
type Mode int

// The output modes of grep.
const (
	FilesWithMatches Mode = iota // which files have a matching line
	Content                      // which lines match
	Count                        // how many lines match in each file
)

// GrepOptions configure Grep.
type GrepOptions struct {
	Options // what to walk
	// Matcher is the compiled pattern. Required.
	Matcher *Matcher
	// Mode is what to collect.
	Mode Mode
	// MaxFileSize skips larger files (counted as TooLarge). Zero means no
	// limit.
	MaxFileSize int64
	// Before and After are the lines of context RenderContent will be asked
	// for (Content mode). The lines to show are kept as the files are
	// searched, up to keepBudget bytes in all, so rendering with the same
	// context need not read the files again.
	Before, After int
}

// keepBudget bounds the text Content mode keeps for rendering; files past
// it are read again when rendered.
const keepBudget = 32 << 20

// FileMatch is a file with at least one matching line.
type FileMatch struct {
	Path    string    // as found by the walk (a symlink's own path)
	ModTime time.Time // modification time
	Count   int       // matching lines; 1 in FilesWithMatches mode
	Lines   []int     // Content mode: the matching lines' numbers, 1-based, ascending
	Total   int       // Content mode: the number of lines in the file
	src     string    // the path to read it again by: a symlink's resolved target
	kept    []byte    // Content mode: the lines to show, each followed by "\n"; nil: read the file again
}

// GrepResult is what Grep found.
type GrepResult struct {
	Files   []FileMatch // newest first, ties by path
	Skipped Skipped
	policy  *scope.Policy
	maxSize int64
	context [2]int // the Before and After the kept lines were chosen for
}

// Grep searches the files under o.Root in parallel. Binary files, files
// over o.MaxFileSize, .git directories, what .gitignore files ignore and
// what the policy refuses are skipped and counted. A file is checked
// against the policy before it is opened; a refused one is never read.
func Grep(ctx context.Context, o GrepOptions) (*GrepResult, error) {
	g := &grepper{o: o}
	skipped, err := walk(ctx, o.Options, g.visit)
	if err != nil {
		return nil, err
	}
	sortFiles(g.files)
	return &GrepResult{Files: g.files, Skipped: skipped, policy: o.Policy, maxSize: o.MaxFileSize, context: [2]int{o.Before, o.After}}, nil
}

// sortFiles orders matches newest first, then by path.
func sortFiles(files []FileMatch) {
	slices.SortFunc(files, func(a, b FileMatch) int {
		if c := b.ModTime.Compare(a.ModTime); c != 0 {
			return c
		}
		return cmp.Compare(a.Path, b.Path)
	})
}

// grepper is one Grep in progress.
type grepper struct {
	o     GrepOptions
	mu    sync.Mutex
	files []FileMatch
	kept  atomic.Int64 // bytes kept for rendering
}

// bufPool holds read buffers, so a search allocates little per file.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// chunkPool holds searchStream's chunk buffers. A copy grown for a long
// line is dropped; the chunk it started from goes back.
var chunkPool = sync.Pool{New: func() any { b := make([]byte, streamChunk); return &b }}

// putBuf returns a buffer to bufPool unless a big file grew it past
// streamAbove: with many workers, pooled buffers the size of the biggest
// files would hold that much memory each.
func putBuf(bp *[]byte) {
	if cap(*bp) <= streamAbove {
		bufPool.Put(bp)
	}
}

// visit searches one file and reports whether it was searched.
func (g *grepper) visit(e *entry) Reason {
	f, err := e.open(g.o.Policy)
	if err != nil {
		if errors.Is(err, scope.ErrDenied) {
			return Denied
		}
		return Unreadable
	}
	defer f.Close()
	fi, err := f.stat()
	switch {
	case err != nil:
		return Unreadable
	case fi.kind != kindFile:
		return SpecialFile
	case g.o.MaxFileSize > 0 && fi.size > g.o.MaxFileSize:
		return TooLarge
	}
	fm := FileMatch{Path: e.Path, ModTime: fi.modTime(), src: cmp.Or(e.target, e.Path)}
	var r Reason
	if fi.size > streamAbove && g.o.Mode != Content && !g.o.Matcher.multiline {
		r = g.searchStream(f, &fm)
	} else {
		r = g.searchWhole(f, fi.size, &fm)
	}
	if r == Searched && fm.Count > 0 {
		g.mu.Lock()
		g.files = append(g.files, fm)
		g.mu.Unlock()
	}
	return r
}

// searchWhole reads the file into memory and searches it.
func (g *grepper) searchWhole(f io.Reader, size int64, fm *FileMatch) Reason {
	bp := bufPool.Get().(*[]byte)
	defer putBuf(bp)
	if int64(cap(*bp)) < size {
		*bp = make([]byte, 0, size)
	}
	buf := (*bp)[:size]
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return Unreadable
	}
	buf = buf[:n]
	if isBinary(buf) {
		return Binary
	}
	g.match(buf, fm)
	return Searched
}

// searchStream searches a big file chunk by chunk, carrying a line cut by
// a chunk's end over to the next: memory stays at the chunk size (or the
// longest line).
func (g *grepper) searchStream(f io.Reader, fm *FileMatch) Reason {
	bp := chunkPool.Get().(*[]byte)
	defer chunkPool.Put(bp)
	buf := *bp
	carry := 0
	for first := true; ; first = false {
		n, err := io.ReadFull(f, buf[carry:])
		data := buf[:carry+n]
		eof := err == io.EOF || err == io.ErrUnexpectedEOF
		switch {
		case err != nil && !eof:
			return Unreadable
		case first && isBinary(data):
			return Binary
		}
		cut := len(data)
		if !eof {
			cut = bytes.LastIndexByte(data, '\n') + 1
		}
		if cut == 0 && !eof { // one line fills the buffer: grow it
			buf = append(buf, make([]byte, len(buf))...)
			carry = len(data)
			continue
		}
		if g.matchLines(data[:cut], fm) || eof {
			return Searched
		}
		carry = copy(buf, data[cut:])
	}
}

// isBinary reports whether a NUL byte occurs in the first binaryProbe
// bytes.
func isBinary(buf []byte) bool {
	return bytes.IndexByte(buf[:min(len(buf), binaryProbe)], 0) >= 0
}

// match searches a whole file's contents.
func (g *grepper) match(buf []byte, fm *FileMatch) {
	m := g.o.Matcher
	switch {
	case !m.multiline && g.o.Mode != Content:
		g.matchLines(buf, fm)
	case !m.multiline:
		lc := lineCounter{buf: buf, line: 1}
		m.eachLine(buf, func(start, _ int) bool {
			fm.Lines = append(fm.Lines, lc.at(start))
			return true
		})
	case g.o.Mode == FilesWithMatches:
		if m.matchesFile(buf) {
			fm.Count = 1
		}
		return
	default:
		fm.Lines = spannedLines(m, buf, countLines(buf))
	}
	if fm.Lines != nil {
		fm.Count = len(fm.Lines)
		fm.Total = countLines(buf)
	}
	if g.o.Mode != Content {
		fm.Lines = nil
	} else if fm.Lines != nil {
		fm.kept = g.keep(buf, fm)
	}
}

// keep copies the lines RenderContent will show of a matching file, or
// returns nil once keepBudget is spent.
func (g *grepper) keep(buf []byte, fm *FileMatch) []byte {
	ss := spans(fm.Lines, fm.Total, g.o.Before, g.o.After)
	cur := lineCursor{buf: buf, line: 1}
	var kept []byte
	for _, s := range ss {
		for l := s.lo; l <= s.hi; l++ {
			kept = append(kept, cur.get(l)...)
			kept = append(kept, '\n')
		}
	}
	if g.kept.Add(int64(len(kept))) > keepBudget {
		return nil
	}
	return kept
}

// matchLines counts matching lines of buf (whole lines) into fm, or notes
// the first in FilesWithMatches mode. It reports whether the search of
// this file is over.
func (g *grepper) matchLines(buf []byte, fm *FileMatch) bool {
	first := g.o.Mode == FilesWithMatches
	g.o.Matcher.eachLine(buf, func(_, _ int) bool {
		fm.Count++
		return !first
	})
	return first && fm.Count > 0
}

// spannedLines returns the numbers of every line a multiline match covers
// (an empty match after the final newline covers none).
func spannedLines(m *Matcher, buf []byte, total int) []int {
	var lines []int
	lc := lineCounter{buf: buf, line: 1}
	m.eachMatch(buf, func(start, end int) bool {
		lo := lc.at(start)
		hi := lo
		if end > start {
			hi = lc.at(end - 1)
		}
		if n := len(lines); n > 0 && lines[n-1] >= lo {
			lo = lines[n-1] + 1
		}
		for l := lo; l <= min(hi, total); l++ {
			lines = append(lines, l)
		}
		return true
	})
	return lines
}

// lineCounter numbers lines at increasing positions of a buffer.
type lineCounter struct {
	buf  []byte
	pos  int
	line int // the line number at pos
}

// at returns the line number at p, which must not be before the last p.
func (c *lineCounter) at(p int) int {
	c.line += bytes.Count(c.buf[c.pos:p], []byte{'\n'})
	c.pos = p
	return c.line
}

// countLines returns the number of lines in buf; a last line without a
// newline counts.
func countLines(buf []byte) int {
	n := bytes.Count(buf, []byte{'\n'})
	if len(buf) > 0 && buf[len(buf)-1] != '\n' {
		n++
	}
	return n
}
