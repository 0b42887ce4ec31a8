//go:build unix && !linux

package board

import "golang.org/x/sys/unix"

// dirFlags open a directory to walk through it.
const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC

// pinned is path: without Linux's /proc/self/fd, SQLite opens the board by
// its path, each file checked by the board's file system layer.
func pinned(_ int, path string) string { return path }
