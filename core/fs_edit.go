package core

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	udiff "github.com/aymanbagabas/go-udiff"
	"github.com/aymanbagabas/go-udiff/myers"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type fsEdit struct {
	OldText string `json:"oldText" jsonschema:"Text to search for - must match exactly"`
	NewText string `json:"newText" jsonschema:"Text to replace with"`
}

type fsEditParams struct {
	fsArgs
	Path   string   `json:"path" jsonschema:"the file to edit"`
	Edits  []fsEdit `json:"edits" jsonschema:"the edits, applied in order"`
	DryRun bool     `json:"dryRun,omitempty" jsonschema:"Preview changes using git-style diff format"`
}

// fsEditFile implements edit_file: apply the edits in order (each to the
// result of the ones before), answer with a fenced git-style diff, and
// write the result unless dryRun. A CRLF file stays CRLF.
func (b *boris) fsEditFile(ctx context.Context, _ *mcp.CallToolRequest, p fsEditParams) (*mcp.CallToolResult, error) {
	abs, ws, err := b.fsResolve(p.WorkspaceID, p.Path)
	if err != nil {
		return nil, err
	}
	data, err := b.readForEdit(abs)
	if err != nil {
		return nil, err
	}
	raw := string(data)
	before := lfOnly(raw)
	after, err := applyFsEdits(before, p.Edits)
	if err != nil {
		return nil, err
	}
	text := fencedDiff(unifiedPatch(abs, before, after))
	if p.DryRun {
		return fsResult(text), nil
	}
	if isCRLF(raw) {
		after = strings.ReplaceAll(after, "\n", "\r\n")
	}
	b.beforeChange(ctx)
	if err := b.policy.WriteFile(abs, []byte(after), 0o644); err != nil {
		return nil, err
	}
	b.record(ctx, "edit_file", b.treeRel(abs), abs)
	return b.fsCommitted(ctx, ws, "edit_file", "Update", text, abs)
}

// lfOnly turns CRLF line ends into LF.
func lfOnly(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// isCRLF reports whether every line of s that ends ends with CRLF (and at
// least one does): such a file is written back with CRLF. A file mixing
// both is written with LF, as server-filesystem writes every file.
func isCRLF(s string) bool {
	n := strings.Count(s, "\n")
	return n > 0 && strings.Count(s, "\r\n") == n
}

// applyFsEdits applies edits to content (LF line ends) in order. Each
// replaces the first exact occurrence of its oldText; when there is none,
// the first run of lines equal to oldText's lines once surrounding
// whitespace is trimmed, re-indented: the first new line takes the
// matched line's indentation, later lines keep their indentation relative
// to oldText's (server-filesystem's algorithm, reproduced exactly,
// including that whitespace is JavaScript's \s).
func applyFsEdits(content string, edits []fsEdit) (string, error) {
	for _, e := range edits {
		oldText, newText := lfOnly(e.OldText), lfOnly(e.NewText)
		if strings.Contains(content, oldText) {
			content = strings.Replace(content, oldText, newText, 1)
			continue
		}
		next, ok := replaceLoose(content, oldText, newText)
		if !ok {
			return "", fail(NotFoundInFile, "Could not find exact match for edit:\n%s", e.OldText)
		}
		content = next
	}
	return content, nil
}

// replaceLoose replaces the first run of lines of content that matches
// oldText's lines whitespace-insensitively at both ends.
func replaceLoose(content, oldText, newText string) (string, bool) {
	oldLines := strings.Split(oldText, "\n")
	lines := strings.Split(content, "\n")
	for i := 0; i+len(oldLines) <= len(lines); i++ {
		if !linesMatch(lines[i:i+len(oldLines)], oldLines) {
			continue
		}
		repl := reindent(strings.Split(newText, "\n"), oldLines, jsIndent(lines[i]))
		out := append(append(append([]string{}, lines[:i]...), repl...), lines[i+len(oldLines):]...)
		return strings.Join(out, "\n"), true
	}
	return content, false
}

// linesMatch compares two runs of lines with surrounding whitespace trimmed.
func linesMatch(got, want []string) bool {
	for j := range want {
		if strings.TrimFunc(got[j], jsSpace) != strings.TrimFunc(want[j], jsSpace) {
			return false
		}
	}
	return true
}

// reindent gives the replacement lines their indentation: the first takes
// indent; a later line whose own and whose oldText counterpart's
// indentation are both non-empty gets indent plus the difference in
// spaces; any other line is kept as written.
func reindent(newLines, oldLines []string, indent string) []string {
	out := make([]string, len(newLines))
	for j, l := range newLines {
		if j == 0 {
			out[j] = indent + strings.TrimLeftFunc(l, jsSpace)
			continue
		}
		var oldIndent string
		if j < len(oldLines) {
			oldIndent = jsIndent(oldLines[j])
		}
		newIndent := jsIndent(l)
		if oldIndent == "" || newIndent == "" {
			out[j] = l
			continue
		}
		// Whitespace characters are all in the BMP, so counting runes
		// counts JavaScript's UTF-16 length.
		rel := max(0, utf8.RuneCountInString(newIndent)-utf8.RuneCountInString(oldIndent))
		out[j] = indent + strings.Repeat(" ", rel) + strings.TrimLeftFunc(l, jsSpace)
	}
	return out
}

// jsIndent is the leading whitespace of s.
func jsIndent(s string) string {
	return s[:len(s)-len(strings.TrimLeftFunc(s, jsSpace))]
}

// jsSpace reports whether r is whitespace to JavaScript (\s, trim): it
// counts U+FEFF and not U+0085, unlike unicode.IsSpace.
func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// diffRule is the line under "Index:" in the diff package's patches.
var diffRule = strings.Repeat("=", 67)

// diffContext is the diff package's default context: 4 lines.
const diffContext = 4

// maxMyersInput bounds the files whose diff is computed with the classic
// Myers algorithm, which places ambiguous lines as the diff package does
// (so hunks match server-filesystem's byte for byte) but whose cost grows
// with the square of the differences; larger files use go-udiff's own
// algorithm, which may attribute an unchanged line such as a lone "}"
// differently while describing the same change.
const maxMyersInput = 256 << 10

// lineEdits is the line diff of before and after.
func lineEdits(before, after string) []udiff.Edit {
	if len(before)+len(after) <= maxMyersInput {
		return myers.ComputeEdits(before, after)
	}
	return udiff.Lines(before, after)
}

// unifiedPatch is the git-style diff of before and after that
// server-filesystem gives (the diff package's createTwoFilesPatch with
// headers "original" and "modified"): the hunks come from go-udiff, laid
// out as that package lays them out (counts always shown, the start of an
// empty side one lower, "\ No newline at end of file").
func unifiedPatch(name, before, after string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Index: %s\n%s\n--- %s\toriginal\n+++ %s\tmodified\n", name, diffRule, name, name)
	u, err := udiff.ToUnifiedDiff(name, name, before, lineEdits(before, after), diffContext)
	if err != nil {
		panic(fmt.Sprintf("diff of %s: %v", name, err)) // edits from udiff.Lines are consistent
	}
	for _, h := range u.Hunks {
		writeHunk(&sb, h)
	}
	return sb.String()
}

// writeHunk writes one hunk in the diff package's layout.
func writeHunk(sb *strings.Builder, h *udiff.Hunk) {
	from, to := 0, 0
	for _, l := range h.Lines {
		if l.Kind != udiff.Insert {
			from++
		}
		if l.Kind != udiff.Delete {
			to++
		}
	}
	fromStart, toStart := h.FromLine, h.ToLine
	if from == 0 {
		fromStart--
	}
	if to == 0 {
		toStart--
	}
	fmt.Fprintf(sb, "@@ -%d,%d +%d,%d @@\n", fromStart, from, toStart, to)
	for _, l := range h.Lines {
		sb.WriteString(map[udiff.OpKind]string{udiff.Delete: "-", udiff.Insert: "+", udiff.Equal: " "}[l.Kind])
		content, full := strings.CutSuffix(l.Content, "\n")
		sb.WriteString(content)
		sb.WriteString("\n")
		if !full {
			sb.WriteString("\\ No newline at end of file\n")
		}
	}
}

// fencedDiff fences a diff in enough backticks that none inside closes it.
func fencedDiff(diff string) string {
	fence := "```"
	for strings.Contains(diff, fence) {
		fence += "`"
	}
	return fence + "diff\n" + diff + fence + "\n\n"
}
