package board

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ncruces/go-sqlite3/vfs"
)

// vfsName is the SQLite file system layer (VFS) boards are opened with.
const vfsName = "boris-board"

func init() {
	vfs.Register(vfsName, boardVFS{vfs.Find("os").(vfs.VFSFilename)})
}

// boardVFS is the driver's own file system layer ("os") with two changes
// for boards (see place.go):
//   - FullPathname keeps the name as it is, where "os" resolves its links:
//     a board is opened by the name locate gave, never by where a link
//     points (and /proc/self/fd/N/NAME stays pinned to its directory).
//   - every file opened (the database, its -wal, its journal) must be a
//     regular file or not exist yet, before the open and after it: a FIFO
//     or a device put in a board's place is refused instead of being
//     opened, and a board whose -shm is not a regular file is refused
//     before SQLite maps it. The open itself is "os"'s, with O_NOFOLLOW.
type boardVFS struct{ vfs.VFSFilename }

// FullPathname returns name made absolute, its links unresolved.
func (boardVFS) FullPathname(name string) (string, error) { return filepath.Abs(name) }

// OpenFilename opens a board's file through "os" when it is a regular
// file or absent, and keeps it only if what was opened is a regular file.
func (v boardVFS) OpenFilename(name *vfs.Filename, flags vfs.OpenFlag) (vfs.File, vfs.OpenFlag, error) {
	if name == nil { // a temporary file of SQLite's own
		return v.VFSFilename.OpenFilename(name, flags)
	}
	path := name.String()
	if err := regularOrAbsent(path); err != nil {
		return nil, flags, err
	}
	if flags&vfs.OPEN_MAIN_DB != 0 {
		if err := regularOrAbsent(path + "-shm"); err != nil {
			return nil, flags, err
		}
	}
	f, out, err := v.VFSFilename.OpenFilename(name, flags)
	if err != nil {
		return nil, out, err
	}
	st, ok := f.(interface{ Stat() (fs.FileInfo, error) })
	if !ok {
		f.Close()
		return nil, out, fmt.Errorf("open %s: cannot tell what kind of file it is: %w", path, ErrNotRegular)
	}
	if fi, err := st.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, out, fmt.Errorf("open %s: %w", path, ErrNotRegular)
	}
	return f, out, nil
}

// regularOrAbsent fails unless path (its last name not followed) is a
// regular file or does not exist.
func regularOrAbsent(path string) error {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode().IsRegular() {
		return nil // absent, or "os" will report it
	}
	return fmt.Errorf("open %s: %w", path, ErrNotRegular)
}
