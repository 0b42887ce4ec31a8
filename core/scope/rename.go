package scope

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Rename moves the file or directory src to dst, refusing with an error
// wrapping fs.ErrExist when anything (a file, a directory, a symlink) is
// already at dst. Both must be paths Resolve returned. Each parent
// directory is reached as openDir does (nothing is created; every
// directory entered is re-checked against the policy) and the move is made
// relative to the two verified directory descriptors, so a symlink swapped
// into either path cannot redirect it outside the allowed, non-denied
// tree. On Linux the refusal of an existing destination is atomic
// (renameat2 RENAME_NOREPLACE); see renameNoReplace for other systems.
func (p *Policy) Rename(src, dst string) error {
	srcDir, srcName, err := p.parentOf(src)
	if err != nil {
		return err
	}
	defer srcDir.Close()
	dstDir, dstName, err := p.parentOf(dst)
	if err != nil {
		return err
	}
	defer dstDir.Close()
	if err := renameNoReplace(srcDir, srcName, dstDir, dstName); err != nil {
		return &os.LinkError{Op: "rename", Old: filepath.Clean(src), New: filepath.Clean(dst), Err: err}
	}
	syncFile(srcDir)
	syncFile(dstDir)
	return nil
}

// parentOf opens the verified parent directory of abs, re-checks abs as
// it lies in that directory's real path, and returns the directory open
// for use as a dirfd with abs's base name.
func (p *Policy) parentOf(abs string) (*os.File, string, error) {
	root, rootDir, rel, err := p.locate(abs)
	if err != nil {
		return nil, "", err
	}
	abs = filepath.Clean(abs)
	if rel == "." {
		return nil, "", &fs.PathError{Op: "rename", Path: abs, Err: errIsRoot}
	}
	dir, real, err := p.openDir(root, rootDir, filepath.Dir(rel), abs)
	if err != nil {
		return nil, "", err
	}
	defer dir.Close()
	name := filepath.Base(rel)
	if err := p.Check(filepath.Join(real, name)); err != nil {
		return nil, "", err
	}
	f, err := dir.Open(".")
	if err != nil {
		return nil, "", p.rootErr("open", abs, err)
	}
	return f, name, nil
}

// syncFile fsyncs a directory so a rename survives a crash; errors are
// ignored as syncDir's are.
func syncFile(f *os.File) { _ = f.Sync() }
