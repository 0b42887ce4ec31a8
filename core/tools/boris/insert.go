package boris

import (
	"bytes"
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit"
	"github.com/mjkoo/boris/internal/plural"
)

// insert puts text after line `after` of the file at path (0 = before the
// first line). The inserted text becomes whole lines written with the
// file's own line ending; every other byte of the file is kept.
func (b *tools) insert(ctx context.Context, path string, after int, text string) (*mcp.CallToolResult, error) {
	if after < 0 {
		return nil, toolkit.Fail(toolkit.InvalidInput, "insert_line must be 0 or more, got %d", after)
	}
	abs, err := b.d.Policy().Resolve(b.d.Dir(), path)
	if err != nil {
		return nil, err
	}
	b.d.Recorder().BeforeWrite(ctx, abs)
	data, err := b.readForEdit(abs)
	if err != nil {
		return nil, err
	}
	lines := countLines(data)
	if after > lines {
		return nil, toolkit.Fail(toolkit.InvalidInput, "insert_line %d is past the end of %s, which has %s", after, abs, plural.S(lines, "line"))
	}
	result := insertAt(data, after, []byte(text))
	toolkit.Editing(ctx, abs) // diagnostics compare against the file as it was
	if err := b.d.Policy().WriteFile(abs, result, 0o644); err != nil {
		return nil, err
	}
	b.saw(abs)
	b.d.Recorder().RecordFiles("insert", b.d.Recorder().Rel(abs), abs)
	added := countLines([]byte(text))
	return toolkit.TextResult(fmt.Sprintf("Inserted %s after line %d of %s. The region now reads:\n%s",
		plural.S(added, "line"), after, abs, snippet(result, after+1-snippetContext, after+added+snippetContext))), nil
}

// insertAt returns data with text inserted as whole lines after line n.
func insertAt(data []byte, n int, text []byte) []byte {
	eol := []byte("\n")
	if bytes.Contains(data, []byte("\r\n")) {
		eol = []byte("\r\n")
		text = bytes.ReplaceAll(bytes.ReplaceAll(text, []byte("\r\n"), []byte("\n")), []byte("\n"), eol)
	}
	at := lineEnd(data, n)
	out := make([]byte, 0, len(data)+len(text)+2*len(eol))
	out = append(out, data[:at]...)
	if at == len(data) && at > 0 && data[at-1] != '\n' {
		// After a last line with no newline: end that line, and keep the
		// file without a final newline by not adding one after the text.
		out = append(append(out, eol...), bytes.TrimSuffix(text, eol)...)
		return out
	}
	out = append(out, text...)
	if len(text) > 0 && !bytes.HasSuffix(text, eol) {
		out = append(out, eol...)
	}
	return append(out, data[at:]...)
}

// lineEnd is the byte offset just past line n's terminator (0 for n == 0).
func lineEnd(data []byte, n int) int {
	off := 0
	for range n {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return len(data)
		}
		off += i + 1
	}
	return off
}

// countLines counts lines as view numbers them: a final line without a
// newline counts, an empty file has none.
func countLines(data []byte) int {
	n := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}
