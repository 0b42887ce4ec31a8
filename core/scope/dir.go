package scope

import (
	"io/fs"
	"os"
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
	err := p.listDir(abs, func(entries []fs.DirEntry) {
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
	d, err := p.OpenDir(abs)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Entries()
}

// listDir reads the directory abs through the policy and hands use its
// entries, each with its lstat information (read relative to the
// directory), sorted by name, the ones the policy refuses left out.
func (p *Policy) listDir(abs string, use func(entries []fs.DirEntry)) error {
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
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return &fs.PathError{Op: "readdir", Path: abs, Err: unwrapPath(err)}
	}
	entries = p.listable(entries, abs, real)
	use(entries)
	return nil
}

// listable sorts the entries of the directory abs (really real) by name
// and leaves out those the policy refuses.
func (p *Policy) listable(entries []fs.DirEntry, abs, real string) []fs.DirEntry {
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	if p.hasDeny() {
		// Without a deny rule nothing inside an allowed directory (which
		// the directory itself was checked to be) can be refused.
		entries = slices.DeleteFunc(entries, func(e fs.DirEntry) bool {
			return p.Check(filepath.Join(real, e.Name())) != nil || p.Check(filepath.Join(abs, e.Name())) != nil
		})
	}
	return entries
}

// Dir is an open directory of a tree being listed: its subdirectories are
// opened relative to it, so listing a tree costs one open and one check
// of the real path per directory, where ReadDirEntries walks to each from
// its allowed directory, checking every directory on the way.
type Dir struct {
	p         *Policy
	root      *os.Root
	abs, real string
}

// OpenDir opens the directory abs (a path Resolve returned) as
// ReadDirEntries reaches it.
func (p *Policy) OpenDir(abs string) (*Dir, error) {
	root, rootDir, rel, err := p.locate(abs)
	if err != nil {
		return nil, err
	}
	abs = filepath.Clean(abs)
	r, real, err := p.openDir(root, rootDir, rel, abs)
	if err != nil {
		return nil, err
	}
	return &Dir{p: p, root: r, abs: abs, real: real}, nil
}

// Entries lists the directory as ReadDirEntries does.
func (d *Dir) Entries() ([]fs.DirEntry, error) {
	f, err := d.root.Open(".")
	if err != nil {
		return nil, d.p.rootErr("open", d.abs, err)
	}
	entries, err := readDirTypes(f)
	f.Close()
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: d.abs, Err: unwrapPath(err)}
	}
	return d.p.listable(entries, d.abs, d.real), nil
}

// Sub opens the subdirectory name, an entry Entries returned. It cannot
// lead outside the directory (os.Root), and its real path is checked
// against the policy as every directory openDir enters is.
func (d *Dir) Sub(name string) (*Dir, error) {
	abs := filepath.Join(d.abs, name)
	r, err := d.root.OpenRoot(name)
	if err != nil {
		return nil, d.p.rootErr("open", abs, err)
	}
	real, err := d.p.verifyRoot(r, filepath.Join(d.real, name), abs)
	if err != nil {
		r.Close()
		return nil, err
	}
	return &Dir{p: d.p, root: r, abs: abs, real: real}, nil
}

// Close closes the directory.
func (d *Dir) Close() error { return d.root.Close() }

// hasDeny reports whether the policy has any deny rule.
func (p *Policy) hasDeny() bool { return len(p.denyPaths) > 0 || len(p.denyPats) > 0 }
