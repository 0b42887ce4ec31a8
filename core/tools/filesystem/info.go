package filesystem

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/scope"
)

type fsSearchParams struct {
	fsArgs
	Path            string   `json:"path" jsonschema:"the directory to search under"`
	Pattern         string   `json:"pattern" jsonschema:"glob pattern matched against paths relative to path"`
	ExcludePatterns []string `json:"excludePatterns,omitempty" jsonschema:"glob patterns of relative paths to leave out"`
}

// maxSearchResults bounds search_files' answer.
const maxSearchResults = 100_000

// fsSearchFiles implements search_files: every file and directory under
// path whose path relative to it matches pattern (a glob: "*" within a
// directory, "**" across), depth first in name order, as full paths.
// Excluded paths are neither shown nor entered; entries it may not show
// (searchable) are left out.
func (b *tools) fsSearchFiles(_ context.Context, _ *mcp.CallToolRequest, p fsSearchParams) (*mcp.CallToolResult, error) {
	root, _, err := b.fsResolve(p.WorkspaceID, p.Path)
	if err != nil {
		return nil, err
	}
	if _, err := b.fsReadDir(root); err != nil {
		return nil, err
	}
	var found []string
	b.searchDir(root, "", p, &found)
	if len(found) == 0 {
		return fsResult("No matches found"), nil
	}
	return fsResult(strings.Join(found, "\n")), nil
}

// searchDir walks dir (rel below the search's root).
func (b *tools) searchDir(dir, rel string, p fsSearchParams, found *[]string) {
	infos, err := b.fsReadDir(dir)
	if err != nil {
		return // a directory that cannot be read is skipped, as server-filesystem skips it
	}
	for _, fi := range infos {
		if len(*found) >= maxSearchResults {
			return
		}
		full := filepath.Join(dir, fi.Name())
		if !b.searchable(full, fi) {
			continue
		}
		relPath := joinRel(rel, fi.Name())
		if anyGlob(p.ExcludePatterns, relPath) {
			continue
		}
		if globMatch(p.Pattern, relPath) {
			*found = append(*found, full)
		}
		if fi.IsDir() {
			b.searchDir(full, relPath, p, found)
		}
	}
}

// searchable reports whether search_files shows an entry: as
// server-filesystem, which validates each entry's path and skips those it
// refuses, not one the policy refuses (a symlink leading out, a denied
// file), nor a symlink whose target does not exist, nor a name that is
// not UTF-8 (which Node cannot name again once decoded).
func (b *tools) searchable(full string, fi fs.FileInfo) bool {
	if !utf8.ValidString(fi.Name()) {
		return false
	}
	res, err := b.d.Policy().Resolve("/", full)
	if err != nil {
		return false
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if _, err := os.Lstat(res); err != nil {
			return false
		}
	}
	return true
}

// globMatch matches a slash-separated relative path against a glob
// pattern as minimatch does with {dot: true} for the patterns agents use:
// "*", "?", "[...]", "{a,b}" and "**". A malformed pattern matches nothing.
// Where doublestar and minimatch differ, minimatch is followed:
//   - a "**" that ends the pattern stands for one or more path segments,
//     not zero: "src/**" matches what is inside src, not src itself
//     ("**/lib/**" does not match "a/lib");
//   - a pattern ending in "/" matches only paths ending in "/", which
//     relative paths never do.
func globMatch(pattern, rel string) bool {
	switch {
	case strings.HasSuffix(pattern, "/"):
		return false
	case strings.HasSuffix(pattern, "/**"):
		pattern += "/*" // at least one more segment; doublestar's "*" matches dot files too
	}
	ok, err := doublestar.Match(pattern, rel)
	return err == nil && ok
}

func anyGlob(patterns []string, rel string) bool {
	for _, pat := range patterns {
		if globMatch(pat, rel) {
			return true
		}
	}
	return false
}

// fsGetFileInfo implements get_file_info: size, creation, modification
// and access times (JavaScript's Date text), type and permission bits of
// what path names (a symlink's target).
func (b *tools) fsGetFileInfo(_ context.Context, _ *mcp.CallToolRequest, p fsPathParams) (*mcp.CallToolResult, error) {
	abs, _, err := b.fsResolve(p.WorkspaceID, p.Path)
	if err != nil {
		return nil, err
	}
	f, fi, err := b.d.Policy().OpenStat(abs)
	if err != nil {
		return nil, err
	}
	birth, ok := scope.BirthTime(f)
	f.Close()
	if !ok {
		birth = time.Unix(0, 0)
	}
	lines := []string{
		fmt.Sprintf("size: %d", fi.Size()),
		"created: " + jsDate(birth),
		"modified: " + jsDate(fi.ModTime()),
		"accessed: " + jsDate(accessTime(fi)),
		fmt.Sprintf("isDirectory: %t", fi.IsDir()),
		fmt.Sprintf("isFile: %t", fi.Mode().IsRegular()),
		fmt.Sprintf("permissions: %03o", fi.Mode().Perm()),
	}
	return fsResult(strings.Join(lines, "\n")), nil
}

// jsDate renders t as JavaScript's Date.prototype.toString does in the
// local time zone, e.g. "Mon Nov 23 2026 22:54:31 GMT+0000 (Coordinated
// Universal Time)". JavaScript names the zone in full from ICU's data;
// Go knows UTC's full name and otherwise only the abbreviation.
func jsDate(t time.Time) string {
	t = t.Local()
	name, _ := t.Zone()
	if name == "UTC" {
		name = "Coordinated Universal Time"
	}
	return t.Format("Mon Jan 02 2006 15:04:05 GMT-0700") + " (" + name + ")"
}

// fsListAllowed implements list_allowed_directories; with a workspaceId,
// the workspace's directory.
func (b *tools) fsListAllowed(_ context.Context, _ *mcp.CallToolRequest, p fsArgs) (*mcp.CallToolResult, error) {
	if p.WorkspaceID != "" {
		ws, err := b.d.Workspaces().Get(p.WorkspaceID)
		if err != nil {
			return nil, err
		}
		return fsResult("Allowed directories:\n" + ws.Dir), nil
	}
	allowed := b.d.Policy().Allowed()
	if len(allowed) == 0 {
		return fsResult("Allowed directories:\n/ (no --allow-dir was given and the client set no roots: every path on the file system is allowed" + b.deniedNote() + ")"), nil
	}
	return fsResult("Allowed directories:\n" + strings.Join(allowed, "\n")), nil
}

// deniedNote names the --deny-dir rules, for list_allowed_directories.
func (b *tools) deniedNote() string {
	if denied := b.d.Policy().Denied(); len(denied) > 0 {
		return " except " + strings.Join(denied, ", ")
	}
	return ""
}

// accessTime is fi's last access time where the platform records it.
func accessTime(fi fs.FileInfo) time.Time {
	if t, ok := atime(fi); ok {
		return t
	}
	return fi.ModTime()
}
