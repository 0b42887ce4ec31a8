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
	root, rootDir, rel, err := p.locate(abs)
	if err != nil {
		return nil, err
	}
	abs = filepath.Clean(abs)
	dir, real, err := p.openDir(root, rootDir, rel, abs)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	f, err := dir.Open(".")
	if err != nil {
		return nil, p.rootErr("open", abs, err)
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: abs, Err: unwrapPath(err)}
	}
	slices.Sort(names)
	infos := make([]fs.FileInfo, 0, len(names))
	for _, name := range names {
		if p.Check(filepath.Join(real, name)) != nil || p.Check(filepath.Join(abs, name)) != nil {
			continue
		}
		fi, err := dir.Lstat(name)
		if err != nil {
			continue // removed since it was listed
		}
		infos = append(infos, fi)
	}
	return infos, nil
}

// ReadDirEntries is ReadDirInfo without a stat per entry: names and types
// as the directory read returns them (a symlink is a symlink, not
// followed), for listings that need no size or time.
func (p *Policy) ReadDirEntries(abs string) ([]fs.DirEntry, error) {
	root, rootDir, rel, err := p.locate(abs)
	if err != nil {
		return nil, err
	}
	abs = filepath.Clean(abs)
	dir, real, err := p.openDir(root, rootDir, rel, abs)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	f, err := dir.Open(".")
	if err != nil {
		return nil, p.rootErr("open", abs, err)
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: abs, Err: unwrapPath(err)}
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	if !p.hasDeny() {
		// The directory itself passed the policy, and with no deny rule
		// nothing inside an allowed directory can be refused.
		return entries, nil
	}
	out := entries[:0]
	for _, e := range entries {
		if p.Check(filepath.Join(real, e.Name())) == nil && p.Check(filepath.Join(abs, e.Name())) == nil {
			out = append(out, e)
		}
	}
	return out, nil
}

// hasDeny reports whether the policy has any deny rule.
func (p *Policy) hasDeny() bool { return len(p.denyPaths) > 0 || len(p.denyPats) > 0 }
