package core

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"math/big"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

// fsListDirectory implements list_directory: "[DIR] name" or "[FILE] name"
// per entry, by name. A symlink is a [FILE], as server-filesystem (which
// looks at the entry, not its target) shows it.
func (b *boris) fsListDirectory(_ context.Context, _ *mcp.CallToolRequest, p fsPathParams) (*mcp.CallToolResult, error) {
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
func (b *boris) fsReadDir(abs string) ([]fs.FileInfo, error) {
	infos, err := b.policy.ReadDirInfo(abs)
	if err != nil && strings.Contains(err.Error(), "not a directory") {
		return nil, fail(InvalidInput, "%s is not a directory", abs)
	}
	return infos, err
}

// fsReadDirEntries is fsReadDir for listings that need only names and
// types: no stat per entry.
func (b *boris) fsReadDirEntries(abs string) ([]fs.DirEntry, error) {
	entries, err := b.policy.ReadDirEntries(abs)
	if err != nil && strings.Contains(err.Error(), "not a directory") {
		return nil, fail(InvalidInput, "%s is not a directory", abs)
	}
	return entries, err
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
func (b *boris) fsListDirectoryWithSizes(_ context.Context, _ *mcp.CallToolRequest, p fsListSizesParams) (*mcp.CallToolResult, error) {
	if p.SortBy != "" && p.SortBy != "name" && p.SortBy != "size" {
		return nil, fail(InvalidInput, "sortBy %q: want \"name\" or \"size\"", p.SortBy)
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
	}
	return fsResult(formatSized(entries, p.SortBy == "size")), nil
}

// targetSize is the size of what an entry names: a symlink's target when
// the policy allows it (else 0, as server-filesystem shows an entry it
// cannot stat).
func (b *boris) targetSize(abs string, fi fs.FileInfo) int64 {
	if fi.Mode()&fs.ModeSymlink == 0 {
		return fi.Size()
	}
	res, err := b.policy.Resolve("/", abs)
	if err != nil {
		return 0
	}
	target, err := b.policy.Lstat(res)
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

// treeEntry is one node of directory_tree's JSON.
type treeEntry struct {
	Name     string       `json:"name"`
	Type     string       `json:"type"`
	Children *[]treeEntry `json:"children,omitempty"`
}

// fsDirectoryTree implements directory_tree: the tree under path as JSON
// with 2-space indentation; directories always have children, files none;
// symlinks are files and are not followed.
func (b *boris) fsDirectoryTree(_ context.Context, _ *mcp.CallToolRequest, p fsTreeParams) (*mcp.CallToolResult, error) {
	abs, _, err := b.fsResolve(p.WorkspaceID, p.Path)
	if err != nil {
		return nil, err
	}
	var count int
	tree, err := b.buildTree(abs, "", p.ExcludePatterns, &count)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(tree); err != nil {
		return nil, fmt.Errorf("encode tree of %s: %w", abs, err)
	}
	return fsResult(strings.TrimSuffix(buf.String(), "\n")), nil
}

// maxTreeEntries bounds directory_tree, whose JSON would otherwise grow
// with the tree however large.
const maxTreeEntries = 100_000

// buildTree lists dir (rel below the tree's top) recursively.
func (b *boris) buildTree(dir, rel string, exclude []string, count *int) ([]treeEntry, error) {
	infos, err := b.fsReadDirEntries(dir)
	if err != nil {
		return nil, err
	}
	out := []treeEntry{}
	for _, fi := range infos {
		relPath := joinRel(rel, fi.Name())
		if excludedFromTree(relPath, exclude) {
			continue
		}
		if *count++; *count > maxTreeEntries {
			return nil, fail(InvalidInput, "the tree has more than %d entries: ask for a subdirectory, or add excludePatterns", maxTreeEntries)
		}
		e := treeEntry{Name: fi.Name(), Type: "file"}
		if fi.IsDir() {
			e.Type = "directory"
			children, err := b.buildTree(filepath.Join(dir, fi.Name()), relPath, exclude, count)
			if err != nil {
				return nil, err
			}
			e.Children = &children
		}
		out = append(out, e)
	}
	return out, nil
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
