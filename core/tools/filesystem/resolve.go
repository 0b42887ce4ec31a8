package filesystem

// How the filesystem toolset turns a path argument into a file, as
// server-filesystem's validatePath does (lib.js): "~" expanded, a Windows
// drive path refused, "" and other relative paths resolved against an
// allowed directory; then, when the path does not name an existing file,
// each component looked up among its directory's entries, so that a name
// spelled in another Unicode normalization form (NFD "cafe\u0301" asked
// for as NFC "caf\u00e9") names the file that exists, and a symlink
// whose target is missing is refused rather than followed.

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/mjkoo/boris/core/toolkit"
	"github.com/mjkoo/boris/core/workspace"
)

// windowsDrive reports whether path is a Windows drive path (a letter, a
// colon, then a separator or nothing), which on a POSIX host would
// otherwise become a file literally named "C:\...".
func windowsDrive(path string) bool {
	if len(path) < 2 || path[1] != ':' {
		return false
	}
	c := path[0] | 0x20 // lower case
	return c >= 'a' && c <= 'z' && (len(path) == 2 || path[2] == '\\' || path[2] == '/')
}

// fsResolve resolves a filesystem tool's path argument, checked by the
// policy (and the workspace, with a workspaceID). A relative path, "" included
// (server-filesystem resolves "" to the allowed directory), resolves
// against the working directory when that is allowed, else against the
// first allowed directory (where server-filesystem resolves it). A path
// that names nothing existing is mapped by fsEquivalent.
func (b *tools) fsResolve(workspaceID, path string) (string, *workspace.Workspace, error) {
	if windowsDrive(path) {
		return "", nil, toolkit.Fail(toolkit.AccessDenied, "Windows-style path received on a POSIX host: %s", path)
	}
	if path == "~" || strings.HasPrefix(path, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			path = filepath.Join(home, path[1:])
		}
	}
	if path == "" {
		path = "."
	}
	if workspaceID == "" && !filepath.IsAbs(path) {
		if allowed := b.d.Policy().Allowed(); len(allowed) > 0 && b.d.Policy().Check(b.d.Dir()) != nil {
			path = filepath.Join(allowed[0], path)
		}
	}
	abs, ws, err := b.d.Workspaces().Resolve(workspaceID, path)
	if err != nil {
		return "", nil, err
	}
	if !utf8.ValidString(abs) {
		// Node decodes the resolved path, then names another file (or
		// none): server-filesystem cannot reach it.
		return "", nil, toolkit.Fail(toolkit.PathNotFound, "%s resolves to %s, which is not UTF-8; the filesystem tools cannot name it", path, decodeString(abs))
	}
	if _, err := os.Lstat(abs); !errors.Is(err, fs.ErrNotExist) {
		return abs, ws, nil // it exists (or the tool meets the error itself)
	}
	base := b.d.Dir()
	if ws != nil {
		base = ws.Dir
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(base, path)
	}
	mapped, err := b.fsEquivalent(filepath.Clean(path))
	if err != nil || mapped == "" {
		return abs, ws, err
	}
	if abs, ws, err = b.d.Workspaces().Resolve(workspaceID, mapped); err == nil && !utf8.ValidString(abs) {
		return "", nil, toolkit.Fail(toolkit.PathNotFound, "%s resolves to %s, which is not UTF-8; the filesystem tools cannot name it", path, decodeString(abs))
	}
	return abs, ws, err
}

// fsEquivalent maps lex, a clean absolute path that names nothing
// existing, as server-filesystem's resolveUnicodeEquivalentPath does:
// from its deepest ancestor that resolves, each further component is the
// entry of that exact name, else the one entry whose NFC form is the
// component's (two such entries are ambiguous: an error); the first that
// has neither, and what follows it, are kept as given (a file to create).
// An entry that is a symlink whose target does not exist is refused: the
// tools neither write through it nor replace it. "" means lex is kept.
func (b *tools) fsEquivalent(lex string) (string, error) {
	dir, tail := lex, []string(nil)
	cur, err := filepath.EvalSymlinks(dir)
	for err != nil {
		if dir == filepath.Dir(dir) {
			return "", nil
		}
		tail = append([]string{filepath.Base(dir)}, tail...)
		dir = filepath.Dir(dir)
		cur, err = filepath.EvalSymlinks(dir)
	}
	for i, name := range tail {
		match, err := b.equivalentEntry(cur, name)
		if err != nil || match == "" {
			return filepath.Join(append([]string{cur}, tail[i:]...)...), err
		}
		next, err := b.d.Policy().Resolve("/", filepath.Join(cur, match))
		if err != nil {
			return "", err
		}
		if _, err := os.Lstat(next); errors.Is(err, fs.ErrNotExist) {
			return "", toolkit.Fail(toolkit.PathNotFound, "%s is a symlink to %s, which does not exist: the filesystem tools do not follow or replace such a link (server-filesystem refuses it too)",
				filepath.Join(cur, match), next)
		}
		cur = next
	}
	return cur, nil
}

// equivalentEntry returns the entry of dir that name means: name itself
// when it is there, else the one entry equal to it in NFC, else "".
func (b *tools) equivalentEntry(dir, name string) (string, error) {
	if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
		return name, nil
	}
	entries, err := b.fsReadDirEntries(dir)
	if err != nil {
		return "", nil // not a directory that can be listed: the tool meets that itself
	}
	want := norm.NFC.String(name)
	var found []string
	for _, e := range entries {
		if !utf8.ValidString(e.Name()) && decodeString(e.Name()) == name {
			// Node lists this entry under its decoded name, then cannot
			// find it by that name: server-filesystem refuses it.
			return "", toolkit.Fail(toolkit.PathNotFound, "%s: the entry of that name is %q, which is not UTF-8; the filesystem tools cannot name it", filepath.Join(dir, name), e.Name())
		}
		if norm.NFC.String(e.Name()) == want {
			found = append(found, e.Name())
		}
	}
	switch len(found) {
	case 0:
		return "", nil
	case 1:
		return found[0], nil
	}
	return "", toolkit.Fail(toolkit.InvalidInput, "Ambiguous Unicode path component: %s names %q, which are the same text in different Unicode normalization forms; give the exact spelling (list_directory shows it)",
		name, found)
}
