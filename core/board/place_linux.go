package board

import (
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// dirFlags open a directory only to walk through it: O_PATH needs no
// permission to read it and opens nothing else.
const dirFlags = unix.O_PATH | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC

// pinned is the name SQLite opens the board's file by: through the
// directory open at dfd, /proc/self/fd/DFD/NAME, when /proc shows that
// directory there; else path.
func pinned(dfd int, path string) string {
	dir := "/proc/self/fd/" + strconv.Itoa(dfd)
	var a, b unix.Stat_t
	if unix.Fstat(dfd, &a) != nil || unix.Stat(dir, &b) != nil || a.Dev != b.Dev || a.Ino != b.Ino {
		return path
	}
	return dir + "/" + filepath.Base(path)
}
