//go:build unix && !linux

package scope

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// renameNoReplace refuses an existing destination by checking just before
// a plain renameat: without renameat2 a creator racing the check could
// have its file replaced. Both steps act on the verified directories'
// descriptors, so the race cannot lead outside them.
func renameNoReplace(srcDir *os.File, srcName string, dstDir *os.File, dstName string) error {
	var st unix.Stat_t
	err := unix.Fstatat(int(dstDir.Fd()), dstName, &st, unix.AT_SYMLINK_NOFOLLOW)
	switch {
	case err == nil:
		return unix.EEXIST
	case !errors.Is(err, unix.ENOENT):
		return err
	}
	return unix.Renameat(int(srcDir.Fd()), srcName, int(dstDir.Fd()), dstName)
}
