package filesystem

import (
	"context"
	"math"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit"
)

type fsReadTextParams struct {
	fsArgs
	Path string   `json:"path" jsonschema:"the file to read"`
	Tail *float64 `json:"tail,omitempty" jsonschema:"If provided, returns only the last N lines of the file"`
	Head *float64 `json:"head,omitempty" jsonschema:"If provided, returns only the first N lines of the file"`
}

// fsReadTextFile implements read_text_file and its deprecated alias
// read_file: the whole file, or its first or last N lines, decoded as
// server-filesystem decodes it (decodeText).
func (b *tools) fsReadTextFile(_ context.Context, _ *mcp.CallToolRequest, p fsReadTextParams) (*mcp.CallToolResult, error) {
	abs, _, err := b.fsResolve(p.WorkspaceID, p.Path)
	if err != nil {
		return nil, err
	}
	// As in server-filesystem, 0 means "not given".
	head, tail := lineCount(p.Head), lineCount(p.Tail)
	if head != 0 && tail != 0 {
		return nil, toolkit.Fail(toolkit.InvalidInput, "Cannot specify both head and tail parameters simultaneously")
	}
	data, err := toolkit.ReadForEdit(b.d.Policy(), abs, b.opt.MaxFileSize)
	if err != nil {
		return nil, err
	}
	b.saw(abs)
	text := decodeText(data)
	switch {
	case tail != 0:
		return fsResult(tailLines(text, tail)), nil
	case head != 0:
		return fsResult(headLines(text, head)), nil
	}
	return fsResult(text), nil
}

// lineCount reads head or tail: JavaScript compares a fractional count
// with the number of lines taken, so 2.5 takes 3 lines from the head and,
// through slice's truncation, 2 from the tail; the head's rounding up is
// applied in headLines.
func lineCount(n *float64) float64 {
	if n == nil || math.IsNaN(*n) {
		return 0
	}
	return *n
}

// headLines returns the first n lines of text joined by "\n", with no
// final newline; only "\n" ends a line (a CR stays at the end of its line).
func headLines(text string, n float64) string {
	if n < 0 {
		return ""
	}
	want := int(math.Min(math.Ceil(n), math.MaxInt32))
	lines := strings.SplitAfter(text, "\n")
	var out []string
	for _, l := range lines {
		if len(out) >= want || l == "" {
			break
		}
		out = append(out, strings.TrimSuffix(l, "\n"))
	}
	return strings.Join(out, "\n")
}

// tailLines returns the last n of the "\n"-separated pieces of text with
// CRLF read as LF. A final newline leaves an empty last piece, so the last
// line of such a file is "" (server-filesystem's behaviour, kept).
func tailLines(text string, n float64) string {
	pieces := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	k := int(math.Min(math.Trunc(n), math.MaxInt32))
	switch {
	case n < 0:
		return "" // server-filesystem reads nothing then
	case k >= len(pieces) || k == 0:
		return strings.Join(pieces, "\n")
	}
	return strings.Join(pieces[len(pieces)-k:], "\n")
}

type fsReadMultipleParams struct {
	fsArgs
	Paths []string `json:"paths" jsonschema:"Array of file paths to read. Each path must be a string pointing to a valid file within allowed directories."`
}

// fsReadMultipleFiles implements read_multiple_files: each file's text
// under its path, separated by "---"; a file that cannot be read shows its
// error in its place.
func (b *tools) fsReadMultipleFiles(_ context.Context, _ *mcp.CallToolRequest, p fsReadMultipleParams) (*mcp.CallToolResult, error) {
	if len(p.Paths) == 0 {
		return nil, toolkit.Fail(toolkit.InvalidInput, "paths: At least one file path must be provided")
	}
	parts := make([]string, len(p.Paths))
	for i, path := range p.Paths {
		data, err := b.fsReadOne(p.WorkspaceID, path)
		if err != nil {
			parts[i] = path + ": Error - " + toolkit.Classify(err).Error()
			continue
		}
		parts[i] = path + ":\n" + decodeText(data) + "\n"
	}
	return fsResult(strings.Join(parts, "\n---\n")), nil
}

// fsReadOne resolves and reads one file of read_multiple_files.
func (b *tools) fsReadOne(workspaceID, path string) ([]byte, error) {
	abs, _, err := b.fsResolve(workspaceID, path)
	if err != nil {
		return nil, err
	}
	data, err := toolkit.ReadForEdit(b.d.Policy(), abs, b.opt.MaxFileSize)
	if err == nil {
		b.saw(abs)
	}
	return data, err
}

type fsPathParams struct {
	fsArgs
	Path string `json:"path" jsonschema:"the file or directory"`
}

// mediaTypes are read_media_file's types by extension; others are
// application/octet-stream.
var mediaTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".bmp": "image/bmp", ".svg": "image/svg+xml",
	".mp3": "audio/mpeg", ".wav": "audio/wav", ".ogg": "audio/ogg", ".flac": "audio/flac",
}

// fsReadMediaFile implements read_media_file: an image or audio content
// block, or an embedded blob resource for any other type, each also as
// structuredContent.
func (b *tools) fsReadMediaFile(_ context.Context, _ *mcp.CallToolRequest, p fsPathParams) (*mcp.CallToolResult, error) {
	abs, _, err := b.fsResolve(p.WorkspaceID, p.Path)
	if err != nil {
		return nil, err
	}
	data, err := toolkit.ReadForEdit(b.d.Policy(), abs, b.opt.MaxFileSize)
	if err != nil {
		return nil, err
	}
	mime := mediaTypes[strings.ToLower(filepath.Ext(abs))]
	if mime == "" {
		mime = "application/octet-stream"
	}
	var block mcp.Content
	switch {
	case strings.HasPrefix(mime, "image/"):
		block = &mcp.ImageContent{Data: data, MIMEType: mime}
	case strings.HasPrefix(mime, "audio/"):
		block = &mcp.AudioContent{Data: data, MIMEType: mime}
	default:
		uri := (&url.URL{Scheme: "file", Path: abs}).String()
		block = &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: uri, MIMEType: mime, Blob: data}}
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{block},
		StructuredContent: map[string]any{"content": []mcp.Content{block}},
	}, nil
}
