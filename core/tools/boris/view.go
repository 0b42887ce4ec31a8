package boris

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit"
	"github.com/mjkoo/boris/internal/flagenv"
	"github.com/mjkoo/boris/internal/plural"
)

// defaultViewLines is how many lines view shows without a view_range.
const defaultViewLines = 2000

type viewParams struct {
	Path      string `json:"path" jsonschema:"file or directory to view; relative paths resolve against the working directory"`
	ViewRange []int  `json:"view_range,omitempty" jsonschema:"optional [start, end] line range, 1-based and inclusive; end -1 means to the end of the file"`
}

var viewTool = &mcp.Tool{
	Name: "view",
	Description: "View a file with line numbers (cat -n style), or list a directory two levels deep. " +
		"Lines over 2000 characters are cut; without view_range, files over 2000 lines show the first 2000. " +
		"Images (PNG, JPEG, GIF, WebP, SVG) are returned as images; other binary files are refused.",
	Annotations: &mcp.ToolAnnotations{Title: "View file or directory", ReadOnlyHint: true, OpenWorldHint: toolkit.Ptr(false)},
}

// view implements the view tool (docs/reference/tools.md#view).
func (b *tools) view(_ context.Context, _ *mcp.CallToolRequest, p viewParams) (*mcp.CallToolResult, error) {
	rng, err := parseRange(p.ViewRange)
	if err != nil {
		return nil, err
	}
	abs, err := b.d.Policy().Resolve(b.d.Dir(), p.Path)
	if err != nil {
		return nil, err
	}
	f, fi, err := b.openStat(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.IsDir() {
		if rng != nil {
			return nil, toolkit.Fail(toolkit.InvalidInput, "view_range applies to files, but %s is a directory", abs)
		}
		return b.listDir(abs)
	}
	res, err := b.viewFile(f, abs, fi.Size(), rng)
	if err == nil {
		b.seen.Saw(abs, fi, b.d.Recorder())
	}
	return res, err
}

// lineRange is a validated view_range; end 0 means to the end of the file.
type lineRange struct{ start, end int }

func parseRange(r []int) (*lineRange, error) {
	switch {
	case r == nil:
		return nil, nil
	case len(r) != 2:
		return nil, toolkit.Fail(toolkit.InvalidInput, "view_range must be [start, end], got %s", plural.S(len(r), "number"))
	case r[0] < 1:
		return nil, toolkit.Fail(toolkit.InvalidInput, "view_range start must be 1 or more, got %d", r[0])
	case r[1] == -1:
		return &lineRange{start: r[0]}, nil
	case r[1] < r[0]:
		return nil, toolkit.Fail(toolkit.InvalidInput, "view_range end %d is before start %d (use -1 for the end of the file)", r[1], r[0])
	}
	return &lineRange{start: r[0], end: r[1]}, nil
}

// headPool holds the buffers viewFile reads a file's first bytes into.
var headPool = sync.Pool{New: func() any { b := make([]byte, headSize); return &b }}

// headSize is how much of a file view reads to tell text from binary.
const headSize = 8192

// viewFile shows a file's lines, or its image, or refuses a binary.
func (b *tools) viewFile(f *os.File, abs string, size int64, rng *lineRange) (*mcp.CallToolResult, error) {
	headp := headPool.Get().(*[]byte)
	defer headPool.Put(headp)
	head, whole, err := readHead(f, *headp, size)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", abs, err)
	}
	if mime := imageType(abs, head); mime != "" {
		return b.viewImage(f, abs, size, head, mime)
	}
	if isBinary(head) {
		return nil, toolkit.Fail(toolkit.BinaryFile, "%s is a binary file (%s, detected type %s); view shows text and images only", abs, plural.S(int(size), "byte"), http.DetectContentType(head))
	}
	if rng == nil && size > int64(b.opt.MaxFileSize) {
		return nil, toolkit.Fail(toolkit.FileTooLarge, "%s is %d bytes, over the %s limit; pass view_range to read part of it, or use bash (e.g. head, grep)", abs, size, b.opt.MaxFileSize)
	}
	if whole {
		return b.viewLines(bytes.NewReader(head), abs, rng)
	}
	return b.viewLines(io.MultiReader(bytes.NewReader(head), f), abs, rng)
}

// readHead reads the start of f into buf and reports whether that is the
// whole file: it hit the end, or read the size the file had when it was
// opened (a small file then costs one read, not a second to find the end;
// files such as /proc's that say 0 are read to the end).
func readHead(f io.Reader, buf []byte, size int64) (head []byte, whole bool, err error) {
	n := 0
	for n < len(buf) {
		m, err := f.Read(buf[n:])
		n += m
		switch {
		case err == io.EOF:
			return buf[:n], true, nil
		case err != nil:
			return nil, false, err
		case size > 0 && int64(n) >= size:
			return buf[:n], true, nil
		}
	}
	return buf[:n], false, nil
}

// viewLines streams the selected lines, then counts the rest so it can say
// how long the file is: memory stays bounded by the window, not the file.
// Whatever the range, the lines shown stop before toolkit.MaxResultText bytes.
func (b *tools) viewLines(r io.Reader, abs string, rng *lineRange) (*mcp.CallToolResult, error) {
	w := viewWindow{start: 1, end: defaultViewLines}
	if rng != nil {
		w.start, w.end = rng.start, rng.end
	}
	total, err := scanLines(r, w.add)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", abs, err)
	}
	switch {
	case total == 0:
		return toolkit.TextResult(fmt.Sprintf("%s is empty.", abs)), nil
	case w.start > total:
		return nil, toolkit.Fail(toolkit.InvalidInput, "view_range start %d is past the end of %s, which has %s", w.start, abs, plural.S(total, "line"))
	case w.full:
		next := w.shown + 1
		fmt.Fprintf(&w.sb, "\n[Showing lines %d-%d of %d: a result holds at most %s of text. Pass view_range, e.g. [%d, %d], to see more.]\n",
			w.start, w.shown, total, flagenv.Size(toolkit.MaxResultText), next, min(total, next+w.shown-w.start))
	case rng == nil && total > defaultViewLines:
		fmt.Fprintf(&w.sb, "\n[Showing lines 1-%d of %d. Pass view_range, e.g. [%d, %d], to see more.]\n",
			defaultViewLines, total, defaultViewLines+1, min(total, 2*defaultViewLines))
	}
	return toolkit.TextResult(w.sb.String()), nil
}

// viewWindow collects the lines view shows: those from start to end (0 =
// the end of the file), until the next would take the text past
// toolkit.MaxResultText.
type viewWindow struct {
	start, end int
	sb         strings.Builder
	shown      int  // the last line shown; 0 before the first
	full       bool // a line in the window did not fit
}

// add is scanLines's callback; it reads on to the end so the line count is
// known.
func (w *viewWindow) add(l line) bool {
	if l.num < w.start || (w.end != 0 && l.num > w.end) || w.full {
		return true
	}
	if w.shown > 0 && w.sb.Len()+numberedLen(l) > toolkit.MaxResultText {
		w.full = true
		return true
	}
	writeNumbered(&w.sb, l)
	w.shown = l.num
	return true
}

// maxImageBytes bounds an image view returns, whatever --max-file-size
// says: base64 makes it 32 MiB of JSON, half of the 64 MiB a boris-gateway
// message may hold.
const maxImageBytes = 24 << 20

// viewImage returns the whole image as MCP image content.
func (b *tools) viewImage(f *os.File, abs string, size int64, head []byte, mime string) (*mcp.CallToolResult, error) {
	limit := min(int64(b.opt.MaxFileSize), maxImageBytes)
	if size > limit {
		return nil, toolkit.Fail(toolkit.FileTooLarge, "image %s is %d bytes, over the %s limit for images", abs, size, flagenv.Size(limit))
	}
	rest, err := io.ReadAll(io.LimitReader(f, limit-int64(len(head))))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", abs, err)
	}
	data := slices.Concat(head, rest) // head is a pooled buffer: copy it out
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: data, MIMEType: mime}}}, nil
}

// imageType returns the MIME type of an image view can return, or "".
// Raster formats are sniffed from their magic bytes; SVG is text, so it is
// known by its extension.
func imageType(path string, head []byte) string {
	switch mime := http.DetectContentType(head); mime {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return mime
	}
	if strings.EqualFold(filepath.Ext(path), ".svg") {
		return "image/svg+xml"
	}
	return ""
}

// isBinary reports whether a file's first bytes look like binary data: a NUL
// byte, or bytes that are not UTF-8 (allowing a rune cut at the buffer's end).
func isBinary(head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	if utf8.Valid(head) {
		return false // the common case, checked a word at a time
	}
	for len(head) > 0 {
		r, size := utf8.DecodeRune(head)
		if r == utf8.RuneError && size == 1 {
			return len(head) >= utf8.UTFMax || utf8.FullRune(head)
		}
		head = head[size:]
	}
	return false
}
