//go:build !unix

package board

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// locate checks the board at path with Lstat, component by component, and
// creates it with create. Without openat and O_NOFOLLOW a link swapped in
// after the check is not caught: boards on such systems are a single
// user's.
func locate(path string, create bool) (place, error) {
	dir := filepath.Dir(path)
	if create {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return place{}, fmt.Errorf("open task database %s: %w", path, err)
		}
	}
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		if fi, err := os.Lstat(d); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return place{}, linkError(path, d)
		}
	}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && create:
		f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return place{}, fmt.Errorf("open task database %s: %w", path, err)
		}
		if f != nil {
			f.Close()
		}
	case errors.Is(err, fs.ErrNotExist):
		return place{}, fmt.Errorf("open task database %s: %w", path, ErrNoBoard)
	case err != nil:
		return place{}, fmt.Errorf("open task database %s: %w", path, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return place{}, linkError(path, path)
	case !fi.Mode().IsRegular():
		return place{}, notRegular(path, "special file")
	}
	return place{name: path, release: func() error { return nil }}, nil
}
