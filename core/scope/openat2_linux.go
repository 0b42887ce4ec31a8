//go:build linux

package scope

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// openNoLinks opens the clean absolute path abs for reading with
// openat2(2) and RESOLVE_NO_SYMLINKS: the kernel refuses to follow a
// symbolic link anywhere on the way. When it succeeds, the file opened is
// the one at the literal path abs, which the policy has checked, so neither
// os.Root's component walk nor the re-check of the descriptor's real path
// has anything left to catch; a path that holds a symlink (one swapped in
// since Resolve, or a link the caller opens on purpose) is refused with
// ELOOP. done is false when the open cannot be decided this way (a symlink
// on the way, a kernel without openat2, a seccomp filter refusing it): the
// caller then opens through os.Root and re-checks the real path.
func openNoLinks(abs string) (f *os.File, done bool, err error) {
	how := unix.OpenHow{
		Flags:   uint64(unix.O_RDONLY | unix.O_CLOEXEC | ReadFlags),
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	var fd int
	for {
		fd, err = unix.Openat2(unix.AT_FDCWD, abs, &how)
		if err != unix.EINTR {
			break
		}
	}
	switch {
	case err == nil:
		// Blocking again before it becomes an *os.File: os.NewFile would
		// otherwise try to register the non-blocking descriptor with the
		// runtime's poller, a failing system call for a regular file.
		// Nothing is read before checkOpened has checked the type, so a
		// FIFO swapped in cannot hang anything.
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, 0); err != nil {
			unix.Close(fd)
			return nil, true, &os.PathError{Op: "fcntl", Path: abs, Err: err}
		}
		return os.NewFile(uintptr(fd), abs), true, nil
	case errors.Is(err, unix.ELOOP), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM),
		errors.Is(err, unix.EINVAL), errors.Is(err, unix.EAGAIN), errors.Is(err, unix.EXDEV), errors.Is(err, unix.E2BIG):
		return nil, false, nil
	}
	return nil, true, &os.PathError{Op: "open", Path: abs, Err: err}
}

// hasNoLinks reports whether the clean absolute path abs exists and no
// component of it is a symbolic link, in one openat2(2) with O_PATH (which
// opens nothing: no device acts, no FIFO blocks). false means "not known":
// the caller resolves the path component by component.
func hasNoLinks(abs string) bool {
	how := unix.OpenHow{Flags: uint64(unix.O_PATH | unix.O_CLOEXEC), Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	fd, err := unix.Openat2(unix.AT_FDCWD, abs, &how)
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
}
