package toolkit

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/mjkoo/boris/core/scope"
	"github.com/mjkoo/boris/internal/flagenv"
)

// Files is what a toolset that acts on the working tree needs: the path
// policy every file access goes through and the working directory
// relative paths resolve against.
type Files interface {
	Policy() *scope.Policy
	Dir() string
}

// Within reports whether abs is dir or lies under it.
func Within(abs, dir string) bool {
	return abs == dir || strings.HasPrefix(abs, dir+string(filepath.Separator))
}

// ReadForEdit reads, through policy, the whole of a regular file an
// editing tool will rewrite, refusing directories and files over max
// bytes (--max-file-size).
func ReadForEdit(policy *scope.Policy, abs string, max flagenv.Size) ([]byte, error) {
	f, fi, err := policy.OpenStat(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	switch {
	case fi.IsDir():
		return nil, Fail(IsDirectory, "%s is a directory, not a file", abs)
	case fi.Size() > int64(max):
		return nil, Fail(FileTooLarge, "%s is %d bytes, over the %s limit", abs, fi.Size(), max)
	}
	// Sized from the stat, so the file is read into one buffer instead of
	// one that doubles as it fills; the limit still holds if it grew since.
	var buf bytes.Buffer
	buf.Grow(int(fi.Size()) + bytes.MinRead)
	if _, err := buf.ReadFrom(io.LimitReader(f, int64(max)+1)); err != nil {
		return nil, fmt.Errorf("read %s: %w", abs, err)
	}
	return buf.Bytes(), nil
}
