//go:build linux

package filesystem

import (
	"io/fs"
	"syscall"
	"time"
)

// atime is the last access time stat recorded in fi.
func atime(fi fs.FileInfo) (time.Time, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(st.Atim.Sec, st.Atim.Nsec), true
}
