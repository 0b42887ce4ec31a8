package scope

import (
	"io/fs"
	"path/filepath"
)

// Remove removes the file or empty directory at abs through the *os.Root
// of its allowed directory, after checking abs against the policy, so a
// symlink swapped in cannot make it remove anything outside.
func (p *Policy) Remove(abs string) error {
	root, _, rel, err := p.locate(abs)
	if err != nil {
		return err
	}
	if err := root.Remove(filepath.Clean(rel)); err != nil {
		return p.rootErr("remove", abs, err)
	}
	return nil
}

// Chmod sets the permission bits of the file at abs, checked and
// confined as Remove is.
func (p *Policy) Chmod(abs string, mode fs.FileMode) error {
	root, _, rel, err := p.locate(abs)
	if err != nil {
		return err
	}
	if err := root.Chmod(filepath.Clean(rel), mode); err != nil {
		return p.rootErr("chmod", abs, err)
	}
	return nil
}

// Symlink creates a symbolic link at abs pointing to target, checked and
// confined as Remove is (the target is not checked: it is only a string
// until something follows it, and every tool resolves it then).
func (p *Policy) Symlink(target, abs string) error {
	root, _, rel, err := p.locate(abs)
	if err != nil {
		return err
	}
	if err := root.Symlink(target, filepath.Clean(rel)); err != nil {
		return p.rootErr("symlink", abs, err)
	}
	return nil
}
