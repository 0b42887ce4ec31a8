package scope

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// ReadDirInfo lists the directory abs (a path Resolve returned) with the
// lstat information of every entry, sorted by name, leaving out the
// entries the policy refuses. The directory is reached as openDir reaches
// one (every directory entered is re-checked against the policy) and each
// entry is stat'ed relative to it, so a symlink swapped in cannot redirect
// the listing outside the allowed, non-denied tree. A symlink entry is
// described, not followed.
func (p *Policy) ReadDirInfo(abs string) ([]fs.FileInfo, error) {
	var infos []fs.FileInfo
	err := p.listDir(abs, true, func(entries []fs.DirEntry) {
		infos = make([]fs.FileInfo, 0, len(entries))
		for _, e := range entries {
			// Read through the os.Root, each entry was lstat'ed relative
			// to the directory while it was listed; Info returns that.
			if fi, err := e.Info(); err == nil { // else removed since it was listed
				infos = append(infos, fi)
			}
		}
	})
	return infos, err
}

// ReadDirEntries is ReadDirInfo without a stat per entry: names and types
// as the directory read returns them (a symlink is a symlink, not
// followed), for listings that need no size or time.
func (p *Policy) ReadDirEntries(abs string) ([]fs.DirEntry, error) {
	var out []fs.DirEntry
	err := p.listDir(abs, false, func(entries []fs.DirEntry) { out = entries })
	return out, err
}

// listDir reads the directory abs through the policy and hands use its
// entries, sorted by name, the ones the policy refuses left out. With
// withInfo every entry's lstat information is read too (relative to the
// directory); without, the entries carry only the types the directory
// itself records.
func (p *Policy) listDir(abs string, withInfo bool, use func(entries []fs.DirEntry)) error {
	root, rootDir, rel, err := p.locate(abs)
	if err != nil {
		return err
	}
	abs = filepath.Clean(abs)
	dir, real, err := p.openDir(root, rootDir, rel, abs)
	if err != nil {
		return err
	}
	defer dir.Close()
	f, err := dir.Open(".")
	if err != nil {
		return p.rootErr("open", abs, err)
	}
	var entries []fs.DirEntry
	if withInfo {
		entries, err = f.ReadDir(-1)
	} else {
		entries, err = readDirTypes(f)
	}
	f.Close()
	if err != nil {
		return &fs.PathError{Op: "readdir", Path: abs, Err: unwrapPath(err)}
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	if p.hasDeny() {
		// Without a deny rule nothing inside an allowed directory (which
		// the directory itself was checked to be) can be refused.
		entries = slices.DeleteFunc(entries, func(e fs.DirEntry) bool {
			return p.Check(filepath.Join(real, e.Name())) != nil || p.Check(filepath.Join(abs, e.Name())) != nil
		})
	}
	use(entries)
	return nil
}

// hasDeny reports whether the policy has any deny rule.
func (p *Policy) hasDeny() bool { return len(p.denyPaths) > 0 || len(p.denyPats) > 0 }
