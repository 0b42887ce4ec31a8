package filesystem

//lint:file-ignore SA1019 myers.ComputeEdits gives the hunks jsdiff (server-filesystem's diff) gives; its replacement, udiff.Lines, gives others (the differential test compares them)

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	udiff "github.com/aymanbagabas/go-udiff"
	"github.com/aymanbagabas/go-udiff/myers"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/editmiss"
	"github.com/mjkoo/boris/core/toolkit"
	"github.com/mjkoo/boris/internal/plural"
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
// write the result unless dryRun. The file is edited as text, decoded as
// server-filesystem decodes it (decodeText); bytes that are not UTF-8
// outside the edited part are written back as they were
// (keepUndecodable). A CRLF file stays CRLF.
func (b *tools) fsEditFile(ctx context.Context, _ *mcp.CallToolRequest, p fsEditParams) (*mcp.CallToolResult, error) {
	abs, ws, err := b.fsResolve(p.WorkspaceID, p.Path)
	if err != nil {
		return nil, err
	}
	data, err := toolkit.ReadForEdit(b.d.Policy(), abs, b.opt.MaxFileSize)
	if err != nil {
		return nil, err
	}
	raw := string(data)
	text := decodeString(raw) // what server-filesystem edits
	before := lfOnly(text)
	after, err := applyFsEdits(before, p.Edits)
	if err != nil {
		return nil, b.staleMiss(ctx, abs, err)
	}
	// The diff is of the texts with CRLF as LF, the result included, as
	// server-filesystem's createUnifiedDiff normalizes both: an edit whose
	// newText ends in a CR before the line's LF shows "+x", not "+x\r",
	// though the CR is written.
	diff := fencedDiff(unifiedPatch(abs, before, lfOnly(after)))
	if p.DryRun {
		return fsResult(diff), nil
	}
	if isCRLF(raw) {
		after = strings.ReplaceAll(after, "\n", "\r\n")
	}
	b.d.Recorder().BeforeWrite(ctx, abs)
	toolkit.Editing(ctx, abs) // diagnostics compare against the file as it was
	if err := b.d.Policy().WriteFile(abs, []byte(keepUndecodable(raw, text, after)), 0o644); err != nil {
		return nil, err
	}
	b.saw(abs)
	b.d.Recorder().RecordFiles("edit_file", b.d.Recorder().Rel(abs), abs)
	return b.fsCommitted(ctx, ws, "edit_file", "Update", diff, abs)
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
	for i, e := range edits {
		oldText, newText := lfOnly(e.OldText), lfOnly(e.NewText)
		if strings.Contains(content, oldText) {
			content = strings.Replace(content, oldText, newText, 1)
			continue
		}
		next, ok := replaceLoose(content, oldText, newText)
		if !ok {
			return "", toolkit.Fail(toolkit.NotFoundInFile, "Could not find exact match for edit:\n%s\n%s", e.OldText, missHint(content, oldText, i))
		}
		content = next
	}
	return content, nil
}

// missHint says where the text closest to a missed edit's is and why it
// differs, in content as the edits before it (index i) left it; nothing
// is written when an edit misses.
func missHint(content, oldText string, i int) string {
	hint := editmiss.Diagnose([]byte(content), oldText, editmiss.Limits{}).String()
	if i > 0 {
		hint = fmt.Sprintf("(Lines are numbered as the %s before it left the file.)\n%s", plural.S(i, "edit"), hint)
	}
	return hint + "\nNothing was changed."
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

// maxMyersInput bounds the texts whose diff is computed with the classic
// Myers algorithm, which places ambiguous lines as the diff package does
// (so hunks match server-filesystem's byte for byte) but whose cost grows
// with the square of the differences; larger texts use go-udiff's own
// algorithm, which may attribute an unchanged line such as a lone "}"
// differently while describing the same change.
const maxMyersInput = 256 << 10

// lineEdits is the line diff of before and after. Myers' algorithm (and
// the diff package's) follows the lines both texts start with before
// anything else, so the diff of what follows them is the same diff, found
// without splitting, hashing and comparing them; a common end has no such
// property (an ambiguous line could be placed differently) and stays.
func lineEdits(before, after string) []udiff.Edit {
	p := commonLinesPrefix(before, after)
	var edits []udiff.Edit
	if len(before)+len(after)-2*p <= maxMyersInput {
		edits = myers.ComputeEdits(before[p:], after[p:])
	} else {
		edits = udiff.Lines(before[p:], after[p:])
	}
	for i := range edits {
		edits[i].Start += p
		edits[i].End += p
	}
	return edits
}

// commonLinesPrefix is the length of the whole lines a and b start with.
func commonLinesPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return strings.LastIndexByte(a[:i], '\n') + 1
}

// unifiedPatch is the git-style diff of before and after that
// server-filesystem gives (the diff package's createTwoFilesPatch with
// headers "original" and "modified"): the hunks come from go-udiff, laid
// out as that package lays them out (counts always shown, the start of an
// empty side one lower, "\ No newline at end of file"). go-udiff splits
// all the text it is given into lines, so it is given only the lines the
// hunks can hold: from diffContext lines before the first change to
// diffContext lines after the last.
func unifiedPatch(name, before, after string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Index: %s\n%s\n--- %s\toriginal\n+++ %s\tmodified\n", name, diffRule, name, name)
	edits := lineEdits(before, after)
	if len(edits) == 0 {
		return sb.String()
	}
	from, to := linesAround(before, edits[0].Start, edits[len(edits)-1].End, diffContext)
	for i := range edits {
		edits[i].Start -= from
		edits[i].End -= from
	}
	u, err := udiff.ToUnifiedDiff(name, name, before[from:to], edits, diffContext)
	if err != nil {
		panic(fmt.Sprintf("diff of %s: %v", name, err)) // edits from udiff.Lines are consistent
	}
	skipped := strings.Count(before[:from], "\n") // the same lines in after: they precede every change
	for _, h := range u.Hunks {
		h.FromLine += skipped
		h.ToLine += skipped
		writeHunk(&sb, h)
	}
	return sb.String()
}

// linesAround returns the bounds of the lines of s from n lines before the
// one holding byte start to n lines after the one holding byte end (or
// starting there), whole lines, clamped to s.
func linesAround(s string, start, end, n int) (from, to int) {
	from = strings.LastIndexByte(s[:start], '\n') + 1
	for range n {
		if from == 0 {
			break
		}
		from = strings.LastIndexByte(s[:from-1], '\n') + 1
	}
	to = end
	if to > 0 && to < len(s) && s[to-1] != '\n' {
		n++ // end is inside a line: finish it first
	}
	for range n {
		i := strings.IndexByte(s[to:], '\n')
		if i < 0 {
			return from, len(s)
		}
		to += i + 1
	}
	return from, to
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
