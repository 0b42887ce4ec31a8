//go:build unix

// Package safefile provides the opens Boris makes in directories that
// someone else may write: a principal's tree, a session's temporary
// directory, a state directory that a command can reach. Everything it
// opens is hostile input (docs/reference/security.md): below a trusted base directory no
// symbolic link is followed, on any component, and a file is accepted only
// when it is a regular file, checked on the open descriptor (so a link or
// FIFO swapped in after a check is refused, never followed or waited on).
// Opens never block: a FIFO or device at a path is an error, not a hang.
package safefile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// ErrNotRegular is wrapped when a path names something other than a
// regular file (a FIFO, a device, a socket, a directory) where a file was
// expected, or something other than a directory where one was expected.
var ErrNotRegular = errors.New("not a regular file")

// ErrLink is wrapped when a path holds a symbolic link below the base.
var ErrLink = errors.New("a symbolic link is in the way (links are not followed here)")

// Dir is an open directory below which files are opened without following
// links. Its methods take names relative to it, slash-separated; "..",
// absolute names and empty components are refused.
type Dir struct {
	f    *os.File
	path string
}

// OpenDir opens base (trusted: its own links are followed, as the operator
// configured it) and then rel below it, component by component, refusing
// links. With create, missing directories are made with perm.
func OpenDir(base, rel string, create bool, perm os.FileMode) (*Dir, error) {
	if create {
		if err := os.MkdirAll(base, perm); err != nil {
			return nil, err
		}
	}
	fd, err := openRetry(unix.AT_FDCWD, base, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: base, Err: err}
	}
	d := &Dir{f: os.NewFile(uintptr(fd), base), path: base}
	if rel == "" || rel == "." {
		return d, nil
	}
	sub, err := d.Sub(rel, create, perm)
	d.Close()
	return sub, err
}

// Path returns the directory's path as it was opened.
func (d *Dir) Path() string { return d.path }

// File returns the open directory, for passing it to a child process.
func (d *Dir) File() *os.File { return d.f }

// Close closes the directory.
func (d *Dir) Close() error { return d.f.Close() }

// Sub opens the directory rel below d, refusing links; with create,
// missing ones are made with perm.
func (d *Dir) Sub(rel string, create bool, perm os.FileMode) (*Dir, error) {
	parts, err := split(rel)
	if err != nil {
		return nil, err
	}
	fd := int(d.f.Fd())
	owned := -1
	defer func() {
		if owned >= 0 {
			unix.Close(owned)
		}
	}()
	for _, name := range parts {
		next, err := openRetry(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) && create {
			if err = unix.Mkdirat(fd, name, uint32(perm.Perm())); err == nil || errors.Is(err, unix.EEXIST) {
				next, err = openRetry(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			}
		}
		if err != nil {
			return nil, d.pathErr("open", rel, dirErr(fd, name, err))
		}
		if owned >= 0 {
			unix.Close(owned)
		}
		owned, fd = next, next
	}
	sub := &Dir{f: os.NewFile(uintptr(owned), filepath.Join(d.path, rel)), path: filepath.Join(d.path, rel)}
	owned = -1
	return sub, nil
}

// dirErr names why the directory component name of dirfd could not be
// opened (O_DIRECTORY|O_NOFOLLOW on a link fails with ENOTDIR).
func dirErr(dirfd int, name string, err error) error {
	if errors.Is(err, unix.ENOTDIR) {
		var st unix.Stat_t
		if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return ErrLink
		}
		return fmt.Errorf("%w (want a directory)", ErrNotRegular)
	}
	if errors.Is(err, unix.ELOOP) {
		return ErrLink
	}
	return err
}

// split checks rel and returns its components.
func split(rel string) ([]string, error) {
	if rel == "" || strings.HasPrefix(rel, "/") {
		return nil, fmt.Errorf("safefile: bad relative path %q", rel)
	}
	parts := strings.Split(rel, "/")
	for _, p := range parts {
		if p == "" || p == "." || p == ".." {
			return nil, fmt.Errorf("safefile: bad relative path %q", rel)
		}
	}
	return parts, nil
}

// OpenFile opens name below d with flag (os.O_* flags; O_NOFOLLOW and
// O_NONBLOCK are added) and accepts it only if it is a regular file; the
// returned file is blocking again. O_TRUNC is applied only once the file
// is known to be regular.
func (d *Dir) OpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	dir, base := d, name
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		sub, err := d.Sub(name[:i], false, 0)
		if err != nil {
			return nil, err
		}
		defer sub.Close()
		dir, base = sub, name[i+1:]
	}
	if _, err := split(base); err != nil {
		return nil, err
	}
	trunc := flag&os.O_TRUNC != 0
	flags := (flag &^ os.O_TRUNC) | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC
	fd, err := openRetry(int(dir.f.Fd()), base, flags, uint32(perm.Perm()))
	if err != nil {
		switch {
		case errors.Is(err, unix.ELOOP):
			err = ErrLink
		case errors.Is(err, unix.ENXIO), errors.Is(err, unix.ENODEV):
			err = ErrNotRegular // a FIFO without a reader, a device
		}
		return nil, d.pathErr("open", name, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, d.pathErr("stat", name, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, d.pathErr("open", name, ErrNotRegular)
	}
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err == nil {
		_, err = unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl&^unix.O_NONBLOCK) // O_APPEND stays
	}
	if err != nil {
		unix.Close(fd)
		return nil, d.pathErr("fcntl", name, err)
	}
	if trunc {
		if err := unix.Ftruncate(fd, 0); err != nil {
			unix.Close(fd)
			return nil, d.pathErr("truncate", name, err)
		}
	}
	return os.NewFile(uintptr(fd), filepath.Join(d.path, name)), nil
}

// ReadFile reads the regular file name below d, at most limit bytes (an
// error when it holds more); limit <= 0 means no limit.
func (d *Dir) ReadFile(name string, limit int64) ([]byte, error) {
	f, err := d.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if limit > 0 {
		r = io.LimitReader(f, limit+1)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, d.pathErr("read", name, err)
	}
	if limit > 0 && int64(len(data)) > limit {
		return nil, d.pathErr("read", name, fmt.Errorf("larger than %d bytes", limit))
	}
	return data, nil
}

// WriteFile replaces name below d with data: written to a new temporary
// file beside it, then renamed over it, so a link or FIFO planted at name
// is replaced, never written through.
func (d *Dir) WriteFile(name string, data []byte, perm os.FileMode) error {
	dir, base := d, name
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		sub, err := d.Sub(name[:i], false, 0)
		if err != nil {
			return err
		}
		defer sub.Close()
		dir, base = sub, name[i+1:]
	}
	f, tmp, err := dir.CreateTemp(base + ".tmp-")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Fchmodat(int(dir.f.Fd()), tmp, uint32(perm.Perm()), 0)
	}
	if err == nil {
		err = unix.Renameat(int(dir.f.Fd()), tmp, int(dir.f.Fd()), base)
	}
	if err != nil {
		_ = unix.Unlinkat(int(dir.f.Fd()), tmp, 0)
		return d.pathErr("write", name, err)
	}
	return nil
}

// Overwrite writes data over the regular file name below d in place and
// cuts it to data's length, creating it (as WriteFile does) when it is
// missing. For small files Boris alone writes, such as counters: no new
// file, which costs far more than a write on some filesystems; a reader
// may see the file half written.
func (d *Dir) Overwrite(name string, data []byte, perm os.FileMode) error {
	f, err := d.OpenFile(name, os.O_WRONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return d.WriteFile(name, data, perm)
	}
	if err != nil {
		return err
	}
	_, err = f.WriteAt(data, 0)
	if err == nil {
		err = f.Truncate(int64(len(data)))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return d.pathErr("write", name, err)
	}
	return nil
}

// CreateTemp creates a new file in d named prefix and a random suffix,
// exclusively (O_EXCL: never an existing file or link), and returns it
// with its name.
func (d *Dir) CreateTemp(prefix string) (*os.File, string, error) {
	for range 100 {
		name := prefix + randSuffix()
		f, err := d.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", d.pathErr("create", prefix+"*", os.ErrExist)
}

// Remove removes the file (not directory) name below d; a missing one is
// not an error.
func (d *Dir) Remove(name string) error {
	dir, base := d, name
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		sub, err := d.Sub(name[:i], false, 0)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		defer sub.Close()
		dir, base = sub, name[i+1:]
	}
	err := unix.Unlinkat(int(dir.f.Fd()), base, 0)
	if err != nil && !errors.Is(err, unix.ENOENT) {
		return d.pathErr("remove", name, err)
	}
	return nil
}

func (d *Dir) pathErr(op, name string, err error) error {
	return &os.PathError{Op: op, Path: filepath.Join(d.path, name), Err: err}
}

// openRetry is openat(2), retried on EINTR.
func openRetry(dirfd int, name string, flags int, perm uint32) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, perm)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

// randSuffix is 8 random hex digits.
func randSuffix() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// MkdirTemp creates a new directory in d named prefix and a random suffix
// with perm, exclusively (mkdirat: never an existing directory or link),
// and returns it open with its name.
func (d *Dir) MkdirTemp(prefix string, perm os.FileMode) (*Dir, string, error) {
	for range 100 {
		name := prefix + randSuffix()
		err := unix.Mkdirat(int(d.f.Fd()), name, uint32(perm.Perm()))
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return nil, "", d.pathErr("mkdir", name, err)
		}
		sub, err := d.Sub(name, false, 0)
		return sub, name, err
	}
	return nil, "", d.pathErr("mkdir", prefix+"*", os.ErrExist)
}

// RemoveAll removes name below d and, if it is a directory, everything in
// it, following no link: a link is removed, never what it names, and a
// directory swapped for a link during the walk is removed as a link. A
// missing name is not an error.
func (d *Dir) RemoveAll(name string) error {
	if _, err := split(name); err != nil || strings.Contains(name, "/") {
		return fmt.Errorf("safefile: RemoveAll takes one name, not %q", name)
	}
	return removeAllAt(int(d.f.Fd()), name, d.path)
}

// removeAllAt removes name in the directory dirfd, recursively.
func removeAllAt(dirfd int, name, path string) error {
	err := unix.Unlinkat(dirfd, name, 0)
	if err == nil || errors.Is(err, unix.ENOENT) {
		return nil
	}
	if !errors.Is(err, unix.EISDIR) && !errors.Is(err, unix.EPERM) {
		return &os.PathError{Op: "remove", Path: filepath.Join(path, name), Err: err}
	}
	fd, err := openRetry(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: filepath.Join(path, name), Err: dirErr(dirfd, name, err)}
	}
	f := os.NewFile(uintptr(fd), filepath.Join(path, name))
	names, err := f.Readdirnames(-1)
	if err == nil {
		for _, n := range names {
			if err = removeAllAt(fd, n, f.Name()); err != nil {
				break
			}
		}
	}
	f.Close()
	if err != nil {
		return err
	}
	if err := unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR); err != nil && !errors.Is(err, unix.ENOENT) {
		return &os.PathError{Op: "remove", Path: filepath.Join(path, name), Err: err}
	}
	return nil
}
