//go:build unix

package scope

import (
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// ReadFlags are added to O_RDONLY for every file opened for reading.
// O_NONBLOCK makes opening a FIFO return at once instead of waiting for a
// writer (the file is then refused by its type); O_NOCTTY keeps a terminal
// device from becoming the process's controlling terminal. Neither changes
// anything for a regular file or a directory.
const ReadFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY

// setBlocking clears O_NONBLOCK on an accepted file, so reads behave as
// they do on any file (some network and FUSE file systems honour the flag).
// The file was opened with no other flag F_SETFL changes, so setting none
// clears it in one call.
func setBlocking(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { _, serr = unix.FcntlInt(fd, unix.F_SETFL, 0) }); err != nil {
		return err
	}
	return serr
}

// readDirTypes lists the open directory f with the types the directory
// records for its entries. os.File.ReadDir lstats every entry of a
// directory opened through an os.Root (ten thousand system calls for a
// tree of ten thousand files); a duplicate of its descriptor opened as a
// plain file is read without them. Where the file system records no type,
// ReadDir lstats the entry relative to the same descriptor.
func readDirTypes(f *os.File) ([]fs.DirEntry, error) {
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "dup", Path: f.Name(), Err: err}
	}
	d := os.NewFile(uintptr(fd), f.Name())
	defer d.Close()
	return d.ReadDir(-1)
}
