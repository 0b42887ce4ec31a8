package scope

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// MkdirAll creates the directory abs and any missing parents (0755, as
// WriteFile creates parents), like os.MkdirAll but confined: every
// directory is created through an *os.Root on its verified parent and
// entered only once its real path passes the policy, so a directory
// swapped for a symlink cannot make it create anything outside the
// allowed, non-denied tree. An existing directory is not an error; a file
// in the way is.
func (p *Policy) MkdirAll(abs string) error {
	root, rootDir, rel, err := p.locate(abs)
	if err != nil {
		return err
	}
	dir, _, err := p.openParent(root, rootDir, rel, filepath.Clean(abs))
	if err != nil {
		return err
	}
	return dir.Close()
}

// Lstat returns the FileInfo of abs itself (a symlink is not followed),
// through the *os.Root of its allowed directory after walking to its
// parent as openDir does.
func (p *Policy) Lstat(abs string) (fs.FileInfo, error) {
	root, rootDir, rel, err := p.locate(abs)
	if err != nil {
		return nil, err
	}
	abs = filepath.Clean(abs)
	if rel == "." {
		return p.statRoot(root, abs)
	}
	dir, _, err := p.openDir(root, rootDir, filepath.Dir(rel), abs)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	fi, err := dir.Lstat(filepath.Base(rel))
	if err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: abs, Err: unwrapPath(err)}
	}
	return fi, nil
}

// statRoot is Lstat of an allowed directory itself.
func (p *Policy) statRoot(root *os.Root, abs string) (fs.FileInfo, error) {
	fi, err := root.Stat(".")
	if err != nil {
		return nil, p.rootErr("stat", abs, err)
	}
	return fi, nil
}

// errIsRoot refuses to move or replace an allowed directory itself.
var errIsRoot = errors.New("is an allowed directory itself")
