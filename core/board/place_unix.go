//go:build unix

package board

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// locate walks to the board at the clean absolute path without following
// a link, creating its directories (0700) and the empty file (0600) when
// create is set, and checks that the file is a regular one. A board that
// does not exist, without create, is ErrNoBoard.
func locate(path string, create bool) (place, error) {
	dfd, err := openDir(path, filepath.Dir(path), create)
	if err != nil {
		return place{}, err
	}
	base := filepath.Base(path)
	if err := checkFile(dfd, path, base, create); err != nil {
		unix.Close(dfd)
		return place{}, err
	}
	return place{name: pinned(dfd, path), release: func() error { return unix.Close(dfd) }}, nil
}

// openDir opens the directory dir of the board at path one name at a time
// from the root, each relative to the last and with O_NOFOLLOW, creating
// the missing ones with create.
func openDir(path, dir string, create bool) (int, error) {
	fd, err := unix.Open("/", dirFlags, 0)
	if err != nil {
		return -1, fmt.Errorf("open task database %s: open /: %w", path, err)
	}
	walked := "/"
	for _, name := range components(dir) {
		walked = filepath.Join(walked, name)
		next, err := openat(fd, name, dirFlags, 0)
		if errors.Is(err, unix.ENOENT) && create {
			if err = unix.Mkdirat(fd, name, 0o700); err == nil || errors.Is(err, unix.EEXIST) {
				next, err = openat(fd, name, dirFlags, 0)
			}
		}
		if err != nil {
			err = dirError(fd, path, walked, name, err)
		}
		unix.Close(fd)
		if err != nil {
			return -1, err
		}
		fd = next
	}
	return fd, nil
}

// dirError says why name, in the directory open at fd (walked being its
// path), could not be walked through.
func dirError(fd int, path, walked, name string, err error) error {
	var st unix.Stat_t
	switch {
	case unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && uint32(st.Mode)&unix.S_IFMT == unix.S_IFLNK:
		return linkError(path, walked)
	case errors.Is(err, unix.ENOENT):
		return fmt.Errorf("open task database %s: %w", path, ErrNoBoard)
	}
	return fmt.Errorf("open task database %s: %s: %w", path, walked, err)
}

// checkFile opens the board's file base in the directory open at dfd,
// creating it with create, without following a link and without blocking
// (O_NONBLOCK: a FIFO opens at once), and checks that it is a regular file.
func checkFile(dfd int, path, base string, create bool) error {
	flags := unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_NOCTTY | unix.O_CLOEXEC
	if create {
		flags |= unix.O_CREAT
	}
	fd, err := openat(dfd, base, flags, 0o600)
	switch {
	case errors.Is(err, unix.ENOENT):
		return fmt.Errorf("open task database %s: %w", path, ErrNoBoard)
	case errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EMLINK):
		return linkError(path, path)
	case errors.Is(err, unix.EISDIR):
		return notRegular(path, "directory")
	case err != nil:
		return fmt.Errorf("open task database %s: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("open task database %s: %w", path, err)
	}
	if kind := fileKind(uint32(st.Mode)); kind != "" {
		return notRegular(path, kind)
	}
	return nil
}

// fileKind names a file type a board cannot be, or is "" for a regular file.
func fileKind(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return ""
	case unix.S_IFIFO:
		return "FIFO"
	case unix.S_IFCHR:
		return "character device"
	case unix.S_IFBLK:
		return "block device"
	case unix.S_IFSOCK:
		return "socket"
	case unix.S_IFDIR:
		return "directory"
	case unix.S_IFLNK:
		return "symbolic link"
	}
	return "special file"
}

// openat is openat(2), tried again when a signal interrupts it.
func openat(dirfd int, name string, flags int, mode uint32) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, mode)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// components splits the clean absolute directory dir into its names.
func components(dir string) []string {
	var out []string
	for name := range strings.SplitSeq(strings.TrimPrefix(filepath.Clean(dir), "/"), "/") {
		if name != "" {
			out = append(out, name)
		}
	}
	return out
}
