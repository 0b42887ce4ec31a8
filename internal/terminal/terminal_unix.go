//go:build linux || darwin

package terminal

import (
	"os"

	"golang.org/x/sys/unix"
)

// Is reports whether f is a terminal (a tty): its terminal attributes can
// be read. /dev/null, pipes and files are not.
func Is(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	is := false
	_ = rc.Control(func(fd uintptr) {
		_, err := unix.IoctlGetTermios(int(fd), getTermios)
		is = err == nil
	})
	return is
}
