package extension

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// OpenInside opens the regular file at path for reading, refusing it with
// ErrOutside unless its real path lies in root. It resolves symlinks
// first, opens the resolved path without following a final symlink, and
// where /proc shows it checks the opened file's path again, so a link
// swapped in between never leads out.
func OpenInside(root, path string) (*os.File, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	if !within(root, real) {
		return nil, fmt.Errorf("%s %w", path, ErrOutside)
	}
	f, err := os.OpenFile(real, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if opened, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd()))); err == nil && !within(root, opened) {
		f.Close()
		return nil, fmt.Errorf("%s %w", path, ErrOutside)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return f, nil
}

// readAllLimit reads r to its end, refusing more than limit bytes (a file
// may grow after it was measured).
func readAllLimit(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("over the %d byte limit", limit)
	}
	return data, nil
}

// ReadFileURI reads the file a file:// URI names in root (see
// ResolveFileURI), refusing a file over limit bytes.
func ReadFileURI(root, uri string, limit int64) ([]byte, error) {
	path, err := ResolveFileURI(root, uri)
	if err != nil {
		return nil, err
	}
	return readBounded(root, path, limit)
}
