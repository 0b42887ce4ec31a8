package filesystem

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"math/big"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/text/collate"
	"golang.org/x/text/language"

	"github.com/mjkoo/boris/core/scope"
	"github.com/mjkoo/boris/core/toolkit"
)

// fsListDirectory implements list_directory: "[DIR] name" or "[FILE] name"
// per entry, by name. A symlink is a [FILE], as server-filesystem (which
// looks at the entry, not its target) shows it.
func (b *tools) fsListDirectory(_ context.Context, _ *mcp.CallToolRequest, p fsPathParams) (*mcp.CallToolResult, error) {
	abs, _, err := b.fsResolve(p.WorkspaceID, p.Path)
	if err != nil {
		return nil, err
	}
	entries, err := b.fsReadDirEntries(abs)
	if err != nil {
		return nil, err
	}
	lines := make([]string, len(entries))
	for i, e := range entries {
		lines[i] = entryTag(e.IsDir()) + " " + e.Name()
	}
	return fsResult(strings.Join(lines, "\n")), nil
}

// fsReadDir lists a directory through the policy; a file is refused as
// server-filesystem's readdir refuses it.
func (b *tools) fsReadDir(abs string) ([]fs.FileInfo, error) {
	infos, err := b.d.Policy().ReadDirInfo(abs)
	if err != nil && strings.Contains(err.Error(), "not a directory") {
		return nil, toolkit.Fail(toolkit.InvalidInput, "%s is not a directory", abs)
	}
	return infos, err
}

// fsReadDirEntries is fsReadDir for listings that need only names and
// types: no stat per entry.
func (b *tools) fsReadDirEntries(abs string) ([]fs.DirEntry, error) {
	d, err := b.fsOpenDir(abs)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Entries()
}

// fsOpenDir opens a directory to list through the policy; a file is
// refused as server-filesystem's readdir refuses it.
func (b *tools) fsOpenDir(abs string) (*scope.Dir, error) {
	d, err := b.d.Policy().OpenDir(abs)
	if err != nil && strings.Contains(err.Error(), "not a directory") {
		return nil, toolkit.Fail(toolkit.InvalidInput, "%s is not a directory", abs)
	}
	return d, err
}

func entryTag(dir bool) string {
	if dir {
		return "[DIR]"
	}
	return "[FILE]"
}

type fsListSizesParams struct {
	fsArgs
	Path   string `json:"path" jsonschema:"the directory to list"`
	SortBy string `json:"sortBy,omitempty" jsonschema:"Sort entries by name or size"`
}

// sizedEntry is one line of list_directory_with_sizes.
type sizedEntry struct {
	name string
	dir  bool
	size int64
}

// fsListDirectoryWithSizes implements list_directory_with_sizes: entries
// with the size of what they name (a symlink's target), sorted by name
// (locale order, as JavaScript's localeCompare) or by size, largest
// first, then totals.
func (b *tools) fsListDirectoryWithSizes(_ context.Context, _ *mcp.CallToolRequest, p fsListSizesParams) (*mcp.CallToolResult, error) {
	if p.SortBy != "" && p.SortBy != "name" && p.SortBy != "size" {
		return nil, toolkit.Fail(toolkit.InvalidInput, "sortBy %q: want \"name\" or \"size\"", p.SortBy)
	}
	abs, _, err := b.fsResolve(p.WorkspaceID, p.Path)
	if err != nil {
		return nil, err
	}
	infos, err := b.fsReadDir(abs)
	if err != nil {
		return nil, err
	}
	entries := make([]sizedEntry, len(infos))
	for i, fi := range infos {
		entries[i] = sizedEntry{name: fi.Name(), dir: fi.IsDir(), size: b.targetSize(filepath.Join(abs, fi.Name()), fi)}
		if !utf8.ValidString(fi.Name()) {
			// Node has the name decoded, and stats what that names:
			// nothing, so server-filesystem shows 0 B.
			entries[i].name, entries[i].size = decodeString(fi.Name()), 0
		}
	}
	return fsResult(formatSized(entries, p.SortBy == "size")), nil
}

// targetSize is the size of what an entry names: a symlink's target when
// the policy allows it (else 0, as server-filesystem shows an entry it
// cannot stat).
func (b *tools) targetSize(abs string, fi fs.FileInfo) int64 {
	if fi.Mode()&fs.ModeSymlink == 0 {
		return fi.Size()
	}
	res, err := b.d.Policy().Resolve("/", abs)
	if err != nil {
		return 0
	}
	target, err := b.d.Policy().Lstat(res)
	if err != nil {
		return 0
	}
	return target.Size()
}

// formatSized lays out list_directory_with_sizes.
func formatSized(entries []sizedEntry, bySize bool) string {
	sorted := slices.Clone(entries)
	if bySize {
		slices.SortStableFunc(sorted, func(a, b sizedEntry) int { return cmpInt64(b.size, a.size) })
	} else {
		c := collate.New(language.Und)
		slices.SortStableFunc(sorted, func(a, b sizedEntry) int { return c.CompareString(a.name, b.name) })
	}
	var lines []string
	files, dirs, total := 0, 0, int64(0)
	for _, e := range sorted {
		size := ""
		if !e.dir {
			size = padStart(formatSize(e.size), 10)
			files++
			total += e.size
		} else {
			dirs++
		}
		lines = append(lines, fmt.Sprintf("%s %s %s", entryTag(e.dir), padEnd(e.name, 30), size))
	}
	lines = append(lines, "", fmt.Sprintf("Total: %d files, %d directories", files, dirs), "Combined size: "+formatSize(total))
	return strings.Join(lines, "\n")
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// jsLen is a string's length in JavaScript (UTF-16 code units).
func jsLen(s string) int { return len(utf16.Encode([]rune(s))) }

func padEnd(s string, n int) string   { return s + strings.Repeat(" ", max(0, n-jsLen(s))) }
func padStart(s string, n int) string { return strings.Repeat(" ", max(0, n-jsLen(s))) + s }

// formatSize renders a byte count as server-filesystem does: "0 B",
// "512 B", "1.50 KB", ... up to TB, two decimals rounded as JavaScript's
// toFixed rounds (a tie goes up).
func formatSize(n int64) string {
	units := []string{"B", "KB", "MB", "GB", "TB"}
	if n <= 0 {
		return "0 B"
	}
	i := int(math.Floor(math.Log(float64(n)) / math.Log(1024)))
	if i <= 0 {
		return fmt.Sprintf("%d B", n)
	}
	i = min(i, len(units)-1)
	return toFixed2(float64(n)/math.Pow(1024, float64(i))) + " " + units[i]
}

// toFixed2 is JavaScript's x.toFixed(2) for x >= 0: the exact value of x
// rounded to hundredths, a tie rounded up (Go's %.2f rounds it to even).
func toFixed2(x float64) string {
	v := new(big.Float).SetPrec(256).SetFloat64(x)
	v.Mul(v, big.NewFloat(100))
	v.Add(v, big.NewFloat(0.5))
	hundredths, _ := v.Int(nil) // truncates toward zero: floor for x >= 0
	s := fmt.Sprintf("%03d", hundredths)
	return s[:len(s)-2] + "." + s[len(s)-2:]
}

type fsTreeParams struct {
	fsArgs
	Path            string   `json:"path" jsonschema:"the directory at the top of the tree"`
	ExcludePatterns []string `json:"excludePatterns,omitempty" jsonschema:"glob patterns of paths (relative to path) to leave out"`
}

// fsDirectoryTree implements directory_tree: the tree under path as
// server-filesystem writes it, JSON.stringify(tree, null, 2) of
// {name, type, children} nodes; directories always have children, files
// none; symlinks are files and are not followed.
func (b *tools) fsDirectoryTree(_ context.Context, _ *mcp.CallToolRequest, p fsTreeParams) (*mcp.CallToolResult, error) {
	abs, _, err := b.fsResolve(p.WorkspaceID, p.Path)
	if err != nil {
		return nil, err
	}
	d, err := b.fsOpenDir(abs)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	t := treeWriter{exclude: p.ExcludePatterns}
	if err := t.list(d, "", 0); err != nil {
		return nil, err
	}
	return fsResult(string(t.out)), nil
}

// maxTreeEntries bounds directory_tree, whose JSON would otherwise grow
// with the tree however large.
const maxTreeEntries = 100_000

// treeWriter writes directory_tree's JSON as it walks the tree.
type treeWriter struct {
	exclude []string
	count   int
	out     []byte
}

// list writes the array of dir's entries (rel below the tree's top),
// nested depth arrays deep, recursively.
func (t *treeWriter) list(dir *scope.Dir, rel string, depth int) error {
	entries, err := dir.Entries()
	if err != nil {
		return err
	}
	t.out = append(t.out, '[')
	empty := true
	for _, e := range entries {
		relPath := joinRel(rel, e.Name())
		if excludedFromTree(relPath, t.exclude) {
			continue
		}
		if t.count++; t.count > maxTreeEntries {
			return toolkit.Fail(toolkit.InvalidInput, "the tree has more than %d entries: ask for a subdirectory, or add excludePatterns", maxTreeEntries)
		}
		if !empty {
			t.out = append(t.out, ',')
		}
		empty = false
		t.newline(2*depth + 1)
		t.out = append(t.out, '{')
		t.newline(2*depth + 2)
		t.out = append(t.out, `"name": `...)
		t.out = appendJSString(t.out, e.Name())
		t.out = append(t.out, ',')
		t.newline(2*depth + 2)
		if e.IsDir() {
			t.out = append(t.out, `"type": "directory",`...)
			t.newline(2*depth + 2)
			t.out = append(t.out, `"children": `...)
			sub, err := dir.Sub(e.Name())
			if err != nil {
				return err
			}
			err = t.list(sub, relPath, depth+1)
			sub.Close()
			if err != nil {
				return err
			}
		} else {
			t.out = append(t.out, `"type": "file"`...)
		}
		t.newline(2*depth + 1)
		t.out = append(t.out, '}')
	}
	if !empty {
		t.newline(2 * depth)
	}
	t.out = append(t.out, ']')
	return nil
}

// newline starts a line indented by level steps of two spaces.
func (t *treeWriter) newline(level int) {
	t.out = append(t.out, '\n')
	for range level {
		t.out = append(t.out, ' ', ' ')
	}
}

// appendJSString appends s as a JSON string the way JavaScript's
// JSON.stringify writes it (and so server-filesystem): only '"', '\\' and
// control characters escaped, the short escapes where JSON has them,
// lowercase hex otherwise; bytes that are not UTF-8 become U+FFFD, one
// per maximal subpart, as Node's decoding of a file name makes them.
func appendJSString(out []byte, s string) []byte {
	const hex = "0123456789abcdef"
	out = append(out, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			size, valid := nextPiece(s[i:])
			if valid {
				out = append(out, s[i:i+size]...)
			} else {
				out = utf8.AppendRune(out, utf8.RuneError)
			}
			i += size
			continue
		}
		switch {
		case c == '"' || c == '\\':
			out = append(out, '\\', c)
		case c == '\b':
			out = append(out, '\\', 'b')
		case c == '\f':
			out = append(out, '\\', 'f')
		case c == '\n':
			out = append(out, '\\', 'n')
		case c == '\r':
			out = append(out, '\\', 'r')
		case c == '\t':
			out = append(out, '\\', 't')
		case c < 0x20:
			out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			out = append(out, c)
		}
		i++
	}
	return append(out, '"')
}

// joinRel joins a name to a slash-separated relative path.
func joinRel(rel, name string) string {
	if rel == "" {
		return name
	}
	return rel + "/" + name
}

// excludedFromTree applies directory_tree's excludePatterns: a pattern
// with "*" must match the relative path; one without also matches that
// name anywhere, or anything beneath it.
func excludedFromTree(rel string, patterns []string) bool {
	for _, pat := range patterns {
		if globMatch(pat, rel) {
			return true
		}
		if !strings.Contains(pat, "*") && (globMatch("**/"+pat, rel) || globMatch("**/"+pat+"/**", rel)) {
			return true
		}
	}
	return false
}
