package board

import (
	"errors"
	"fmt"
)

// A board may lie in a directory a principal writes (under the gateway's
// --workdir-template it is ~/.boris/boris.db in the principal's own
// directory), and the core and the gateway open it with more rights than
// the principal's commands have. docs/reference/security.md: "Whatever the core or gateway
// must open inside a principal's tree is hostile input: no links followed,
// regular files only, non-blocking, bounded in time." So a board's path is
// walked one directory at a time, each opened relative to the last with
// O_NOFOLLOW: no symbolic link is followed anywhere on it, and none swapped
// in meanwhile can be. The file must be a regular one, which is checked on
// a descriptor opened with O_NONBLOCK (a FIFO does not hang the check).
// SQLite then reaches the board's files (the database, its -wal and -shm)
// through the directory held open (on Linux, /proc/self/fd/N/NAME), so
// that a directory of the path replaced by a link after the walk leads
// nowhere else, and through a file system layer of ours (vfs.go) that
// refuses any of them that is not a regular file.
//
// The path must therefore be the board's real path: ExpandPath resolves
// the links of the part that is the operator's (HOME, or the directory of
// an explicit path) once, and no link is followed below it.

// Errors of opening a board whose path is not what a board may be.
var (
	// ErrLink is wrapped when a symbolic link is on the board's path.
	ErrLink = errors.New("task boards are opened without following symbolic links: give the board's real path")
	// ErrNotRegular is wrapped when the board, or one of its -wal and
	// -shm files, is a FIFO, a device, a socket or a directory.
	ErrNotRegular = errors.New("a task board must be a regular file")
)

// place is where SQLite opens a board: name is the database file as it
// opens it (through the board's directory held open where the system
// allows), and release lets the directory go once the board is closed.
type place struct {
	name    string
	release func() error
}

// linkError reports the symbolic link link on the way to the board at path.
func linkError(path, link string) error {
	return fmt.Errorf("open task database %s: %s is a symbolic link: %w", path, link, ErrLink)
}

// notRegular reports that what is at path is a kind (FIFO, device, ...) of
// file a board cannot be.
func notRegular(path, kind string) error {
	return fmt.Errorf("open task database %s: it is a %s: %w", path, kind, ErrNotRegular)
}
