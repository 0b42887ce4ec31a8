package shell

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"io"
	"strings"
)

// maxRecordDir bounds the directory part of a cwd record (PATH_MAX on Linux).
// Anything longer is not one of ours and is passed through as output, which
// keeps the bytes the filter holds back bounded.
const maxRecordDir = 4096

// newSentinel returns a random marker that user output will not contain by
// accident. It is per Shell (per process in practice) rather than per call so
// the script text is stable, and random so a command cannot forge a record
// without reading it from the shell's own argv.
func newSentinel() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return "__BORIS_CWD_" + hex.EncodeToString(b[:]) + "__"
}

// wrapScript returns the script passed to `sh -c`; the user's command is its
// first positional argument. Running the command through eval instead of
// pasting it into the script text keeps the trailer intact whatever the
// command contains: an unterminated here-document ends with the command, and
// an unclosed quote or trailing `&&` is a plain syntax error (status 2),
// where pasted text would swallow the trailer and print it. `shift`
// restores "$#" to 0, as with a bare `sh -c`.
//
// The trailer prints "\n<sentinel><pwd>\n" on stdout, pwd itself printing
// the directory and its newline (a newline alone where it fails, as for a
// directory removed): "$(pwd)" would fork a subshell, a process more for
// every call. The leading newline puts the record on its own line even
// after output lacking a final newline; recordFilter removes it together
// with the record so stdout stays byte-exact. An `exit` in the command skips the trailer: its status is
// kept and the tracked directory is left unchanged.
func wrapScript(sentinel string) string {
	// eval stays on line 1 so bash's "line N" in error messages matches the
	// command's own line numbers.
	return "__boris_cmd=$1; shift; eval \"$__boris_cmd\"\n" +
		"__boris_ec=$?\n" +
		"printf '\\n%s' '" + sentinel + "'; pwd || echo\n" +
		"exit $__boris_ec\n"
}

// scrub removes every occurrence of the sentinel from s. Besides the record
// itself (removed by recordFilter) the sentinel can reach the output through
// the shell's argv (`ps`, /proc/$$/cmdline) or `set -x` tracing the trailer;
// the agent must never see it.
func scrub(s, sentinel string) string {
	if !strings.Contains(s, sentinel) {
		return s
	}
	return strings.ReplaceAll(s, sentinel, "")
}

// recordFilter is the stdout writer: it passes output through to out while
// cutting out the cwd record ("\n<sentinel><dir>\n") and remembering its dir.
// Filtering the stream, rather than the capped result, means the record never
// counts against the output limit, is found however much output was cut, and
// never reaches progress lines.
//
// Bytes that might be the start of a record are held back until the next
// write shows whether they are; flush releases them at end of stream.
type recordFilter struct {
	out      io.Writer
	sentinel []byte
	held     []byte // possible record start, at most one record long
	buf      []byte // scratch for held+p, reused to avoid allocating per write
	dir      string // directory from the last complete record
	found    bool
}

func newRecordFilter(out io.Writer, sentinel string) *recordFilter {
	return &recordFilter{out: out, sentinel: []byte(sentinel)}
}

// Write filters p. It is called from a single reader goroutine.
func (f *recordFilter) Write(p []byte) (int, error) {
	data := p
	if len(f.held) > 0 {
		f.buf = append(append(f.buf[:0], f.held...), p...)
		data = f.buf
	}
	f.held = f.held[:0]
	for len(data) > 0 {
		n, err := f.step(data)
		if err != nil {
			return len(p), err
		}
		if n == 0 {
			// The rest may be (the start of) a record: wait for more.
			f.held = append(f.held, data...)
			break
		}
		data = data[n:]
	}
	return len(p), nil
}

// step consumes a prefix of data, writing output or taking a record, and
// returns its length; 0 means data must be held back until more arrives.
func (f *recordFilter) step(data []byte) (int, error) {
	if data[0] == '\n' && len(data) > len(f.sentinel) && bytes.HasPrefix(data[1:], f.sentinel) {
		return f.takeRecord(data)
	}
	i := bytes.Index(data, f.sentinel)
	if i > 0 && data[i-1] == '\n' {
		return f.emit(data[:i-1])
	}
	if i >= 0 {
		// A sentinel not at a line start is no record; scrub removes it later.
		return f.emit(data[:i+len(f.sentinel)])
	}
	return f.emit(data[:len(data)-f.partialSuffix(data)])
}

// takeRecord parses a record at the start of data (which begins with "\n"
// and the sentinel) and returns its length, or 0 if it is not complete yet.
func (f *recordFilter) takeRecord(data []byte) (int, error) {
	start := 1 + len(f.sentinel)
	rest := data[start:]
	end := bytes.IndexByte(rest[:min(len(rest), maxRecordDir+1)], '\n')
	if end < 0 {
		if len(rest) > maxRecordDir {
			return f.emit(data[:start]) // too long to be a record
		}
		return 0, nil
	}
	f.dir, f.found = string(data[start:start+end]), true
	return start + end + 1, nil
}

// partialSuffix returns the length of the longest suffix of data that is a
// proper prefix of "\n"+sentinel. The sentinel has no newline, so such a
// suffix can only start at the last newline.
func (f *recordFilter) partialSuffix(data []byte) int {
	i := bytes.LastIndexByte(data, '\n')
	if i < 0 || len(data)-i > len(f.sentinel) {
		return 0
	}
	if bytes.HasPrefix(f.sentinel, data[i+1:]) {
		return len(data) - i
	}
	return 0
}

// emit writes b to out and returns its length. An empty b returns 0, which
// step's callers read as "hold back"; that only happens when data starts
// with a partial record, so it is what they want.
func (f *recordFilter) emit(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	_, err := f.out.Write(b)
	return len(b), err
}

// flush writes out whatever was held back: at end of stream a partial record
// is just output.
func (f *recordFilter) flush() {
	if len(f.held) > 0 {
		f.out.Write(f.held) //nolint:errcheck // out is a Capped, which never fails
		f.held = f.held[:0]
	}
}
