//go:build linux

package scope

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames srcName in srcDir to dstName in dstDir with
// renameat2(2) and RENAME_NOREPLACE: the kernel refuses with EEXIST when
// dstName exists, in the same step as the rename, so nothing created
// meanwhile can be overwritten. Neither final component is followed if it
// is a symlink. File systems without the flag get the same refusal from a
// check just before a plain renameat, which a racing creator could beat.
func renameNoReplace(srcDir *os.File, srcName string, dstDir *os.File, dstName string) error {
	err := renameat2(srcDir, srcName, dstDir, dstName, unix.RENAME_NOREPLACE)
	if !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOSYS) {
		return err
	}
	var st unix.Stat_t
	serr := fdCall(dstDir, func(fd int) error { return unix.Fstatat(fd, dstName, &st, unix.AT_SYMLINK_NOFOLLOW) })
	switch {
	case serr == nil:
		return unix.EEXIST
	case !errors.Is(serr, unix.ENOENT):
		return serr
	}
	return renameat2(srcDir, srcName, dstDir, dstName, 0)
}

// renameat2 calls renameat2(2) on the two directories' descriptors.
func renameat2(srcDir *os.File, srcName string, dstDir *os.File, dstName string, flags uint) error {
	return fdCall(srcDir, func(sfd int) error {
		return fdCall(dstDir, func(dfd int) error {
			for {
				err := unix.Renameat2(sfd, srcName, dfd, dstName, flags)
				if err != unix.EINTR {
					return err
				}
			}
		})
	})
}

// fdCall runs fn with f's descriptor, keeping f alive meanwhile.
func fdCall(f *os.File, fn func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}
