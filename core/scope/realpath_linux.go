//go:build linux

package scope

import (
	"os"
	"strconv"
	"sync"
)

// procAvailable reports whether /proc/self/fd can be read. Without /proc
// (some minimal containers) the post-open check is skipped rather than
// making every open fail; when /proc exists a failing readlink fails closed.
var procAvailable = sync.OnceValue(func() bool {
	fi, err := os.Stat("/proc/self/fd")
	return err == nil && fi.IsDir()
})

// realPath returns the path the kernel currently associates with f's
// descriptor. ok is false when the platform cannot tell.
func realPath(f *os.File) (string, bool, error) {
	if !procAvailable() {
		return "", false, nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return "", false, err
	}
	var real string
	var lerr error
	// Control (rather than f.Fd) keeps the descriptor's blocking mode as is.
	cerr := rc.Control(func(fd uintptr) {
		real, lerr = os.Readlink("/proc/self/fd/" + strconv.FormatUint(uint64(fd), 10))
	})
	if cerr != nil {
		return "", false, cerr
	}
	if lerr != nil {
		return "", false, lerr
	}
	return real, true, nil
}
