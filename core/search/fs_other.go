//go:build !linux

package search

import (
	"io/fs"
	"os"

	"github.com/mjkoo/boris/core/scope"
)

// Outside Linux each directory of a walk is an *os.Root opened inside its
// parent's, and entries are opened through it: a symlink swapped in after
// the policy check cannot lead outside the directory being walked.

// dirHandle is an open directory.
type dirHandle struct{ root *os.Root }

// openRootDir checks the walk's root directory against the policy and
// opens it.
func openRootDir(p *scope.Policy, abs string) (*dirHandle, error) {
	if err := p.Check(abs); err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(abs)
	if err != nil {
		return nil, err
	}
	return &dirHandle{root: r}, nil
}

// openDir opens the subdirectory name.
func (d *dirHandle) openDir(name string) (*dirHandle, error) {
	r, err := d.root.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	return &dirHandle{root: r}, nil
}

// close releases the directory.
func (d *dirHandle) close() { d.root.Close() }

// openFile opens the file name in d for reading, without blocking on a
// FIFO (the caller checks the type before reading).
func (d *dirHandle) openFile(name string) (*file, error) {
	f, err := d.root.OpenFile(name, os.O_RDONLY|scope.ReadFlags, 0)
	if err != nil {
		return nil, err
	}
	return &file{f}, nil
}

// lstat describes name in d without following a symlink.
func (d *dirHandle) lstat(name string) (fileInfo, error) {
	fi, err := d.root.Lstat(name)
	if err != nil {
		return fileInfo{}, err
	}
	return infoOf(fi), nil
}

// readDir lists d's entries with their types.
func (d *dirHandle) readDir() ([]dirent, error) {
	f, err := d.root.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	out := make([]dirent, 0, len(ents))
	for _, e := range ents {
		out = append(out, dirent{name: e.Name(), kind: modeKind(e.Type())})
	}
	return out, err
}

// file is a file open for reading.
type file struct{ *os.File }

// openPath opens an absolute path through the policy.
func openPath(p *scope.Policy, abs string) (*file, error) {
	f, err := p.Open(abs)
	if err != nil {
		return nil, err
	}
	return &file{f}, nil
}

// stat describes the open file.
func (f *file) stat() (fileInfo, error) {
	fi, err := f.File.Stat()
	if err != nil {
		return fileInfo{}, err
	}
	return infoOf(fi), nil
}

// infoOf converts an fs.FileInfo.
func infoOf(fi fs.FileInfo) fileInfo { return statInfo(fi) }
