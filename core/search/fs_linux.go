//go:build linux

package search

import (
	"encoding/binary"
	"io"
	"os"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/mjkoo/boris/core/scope"
)

// On Linux the walk holds a raw descriptor per directory and opens every
// entry with openat(2) relative to it, with O_NOFOLLOW. The root is opened
// through the policy (os.Root plus the /proc re-check), and each step down
// refuses symlinks, so every descriptor refers to the very entry whose path
// was checked: a symlink swapped in after the check makes the open fail
// instead of leading elsewhere. One syscall per entry, where opening each
// file through scope.Policy.Open would cost one per path component.

// openFlags are used for every file and directory opened during a walk.
// scope.ReadFlags (O_NONBLOCK, O_NOCTTY) keep a FIFO or terminal swapped in
// for a regular file from blocking the open or becoming the controlling
// terminal; the walk then checks the descriptor's type before reading. They
// change nothing for regular files.
const openFlags = unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_CLOEXEC | scope.ReadFlags

// dirHandle is an open directory.
type dirHandle struct {
	fd   int
	keep *os.File // the root's file from Policy.Open, owning fd
}

// openRootDir opens the walk's root directory through the policy.
func openRootDir(p *scope.Policy, abs string) (*dirHandle, error) {
	f, err := p.Open(abs)
	if err != nil {
		return nil, err
	}
	return &dirHandle{fd: int(f.Fd()), keep: f}, nil
}

// openDir opens the subdirectory name; a symlink is refused.
func (d *dirHandle) openDir(name string) (*dirHandle, error) {
	fd, err := openat(d.fd, name, openFlags|unix.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	return &dirHandle{fd: fd}, nil
}

// close releases the directory's descriptor.
func (d *dirHandle) close() {
	if d.keep != nil {
		d.keep.Close()
		return
	}
	unix.Close(d.fd)
}

// openFile opens the file name in d for reading; a symlink is refused.
func (d *dirHandle) openFile(name string) (*file, error) {
	fd, err := openat(d.fd, name, openFlags)
	if err != nil {
		return nil, err
	}
	return &file{fd: fd}, nil
}

// lstat describes name in d without following a symlink.
func (d *dirHandle) lstat(name string) (fileInfo, error) {
	var st unix.Stat_t
	for {
		err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			if err != nil {
				return fileInfo{}, err
			}
			return infoOf(&st), nil
		}
	}
}

// direntBufs holds getdents buffers: a walk lists thousands of
// directories, and a fresh buffer each time costs its zeroing.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// readDir lists d's entries (without "." and "..") with their types as the
// file system reports them; kindUnknown when it does not.
func (d *dirHandle) readDir() ([]dirent, error) {
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	var out []dirent
	for {
		n, err := unix.Getdents(d.fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return out, err
		}
		if n <= 0 {
			return out, nil
		}
		out = parseDirents(buf[:n], out)
	}
}

// parseDirents decodes linux_dirent64 records: d_ino (8 bytes), d_off (8),
// d_reclen (2), d_type (1), then the NUL-terminated name.
func parseDirents(b []byte, out []dirent) []dirent {
	for len(b) >= 19 {
		reclen := int(binary.NativeEndian.Uint16(b[16:18]))
		if reclen < 19 || reclen > len(b) {
			break
		}
		ino, typ, name := binary.NativeEndian.Uint64(b[0:8]), b[18], b[19:reclen]
		b = b[reclen:]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		if ino == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		out = append(out, dirent{name: string(name), kind: direntKind(typ)})
	}
	return out
}

// direntKind maps a d_type value onto an entry kind.
func direntKind(t byte) kind {
	switch t {
	case unix.DT_REG:
		return kindFile
	case unix.DT_DIR:
		return kindDir
	case unix.DT_LNK:
		return kindLink
	case unix.DT_UNKNOWN:
		return kindUnknown
	}
	return kindOther
}

// file is a file open for reading.
type file struct{ fd int }

// openPath opens an absolute path through the policy, for single-file
// searches and symlink targets.
func openPath(p *scope.Policy, abs string) (*file, error) {
	f, err := p.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fd, err := unix.Dup(int(f.Fd()))
	if err != nil {
		return nil, err
	}
	unix.CloseOnExec(fd)
	return &file{fd: fd}, nil
}

// stat describes the open file.
func (f *file) stat() (fileInfo, error) {
	var st unix.Stat_t
	for {
		err := unix.Fstat(f.fd, &st)
		if err != unix.EINTR {
			if err != nil {
				return fileInfo{}, err
			}
			return infoOf(&st), nil
		}
	}
}

// Read implements io.Reader.
func (f *file) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(f.fd, p)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// Close releases the descriptor.
func (f *file) Close() error { return unix.Close(f.fd) }

// openat retries openat(2) on EINTR.
func openat(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// infoOf converts a stat result.
func infoOf(st *unix.Stat_t) fileInfo {
	fi := fileInfo{size: st.Size, mtime: st.Mtim.Nano()}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		fi.kind = kindFile
	case unix.S_IFDIR:
		fi.kind = kindDir
	case unix.S_IFLNK:
		fi.kind = kindLink
	default:
		fi.kind = kindOther
	}
	return fi
}
