package stdin

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// reopen opens the pipe f again, non-blocking, or returns nil.
func reopen(f *os.File) *os.File {
	rc, err := f.SyscallConn() // unlike Fd, leaves f's mode alone
	if err != nil {
		return nil
	}
	orig := -1
	if rc.Control(func(fd uintptr) { orig = int(fd) }) != nil || orig < 0 {
		return nil
	}
	var st unix.Stat_t
	if err := unix.Fstat(orig, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return nil
	}
	fd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(orig), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil // no /proc, or a named pipe this process may not open
	}
	var again unix.Stat_t
	if err := unix.Fstat(fd, &again); err != nil || again.Dev != st.Dev || again.Ino != st.Ino {
		unix.Close(fd) // not the same pipe: never read another
		return nil
	}
	// NewFile sees O_NONBLOCK and hands the descriptor to the poller.
	return os.NewFile(uintptr(fd), f.Name())
}
