//go:build linux

package scope

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// BirthTime returns the creation time of the open file f, from statx(2).
// ok is false when the kernel or file system does not record it.
func BirthTime(f *os.File) (t time.Time, ok bool) {
	var stx unix.Statx_t
	err := fdCall(f, func(fd int) error {
		return unix.Statx(fd, "", unix.AT_EMPTY_PATH, unix.STATX_BTIME, &stx)
	})
	if err != nil || stx.Mask&unix.STATX_BTIME == 0 {
		return time.Time{}, false
	}
	return time.Unix(stx.Btime.Sec, int64(stx.Btime.Nsec)), true
}
