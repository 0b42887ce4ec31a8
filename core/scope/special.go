package scope

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrSpecialFile is wrapped by the refusal of anything that is neither a
// regular file nor a directory: FIFOs, sockets, devices. Reading one can
// block forever (a FIFO without a writer, /dev/ptmx) or never end
// (/dev/zero), and writing one is not what a file tool means to do.
var ErrSpecialFile = errors.New("not a regular file or directory")

// SpecialFileError is the refusal of a special file; it names the path and
// its type, and matches ErrSpecialFile with errors.Is.
type SpecialFileError struct {
	Path string
	Mode fs.FileMode
}

func (e *SpecialFileError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file", e.Path, KindName(e.Mode))
}

// Is makes errors.Is(err, ErrSpecialFile) hold.
func (e *SpecialFileError) Is(target error) bool { return target == ErrSpecialFile }

// KindName names the type of a file mode with its article, for messages:
// "a FIFO (named pipe)", "a character device", ...
func KindName(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "a special file"
}

// openable reports whether Open accepts a file of this mode.
func openable(m fs.FileMode) bool { return m.IsRegular() || m.IsDir() }

// preflight refuses a special file before it is opened, by its path. It is
// only a first line: opening some devices acts (opening /dev/ptmx allocates
// a pseudo-terminal), so they are best never opened; the descriptor's own
// fstat after the open is what decides. A final symlink (which Resolve never
// returns, so it was swapped in) is left for the open to judge.
func preflight(abs string) error {
	fi, err := os.Lstat(abs)
	if err != nil || fi.Mode()&fs.ModeSymlink != 0 || openable(fi.Mode()) {
		return nil
	}
	return &SpecialFileError{Path: abs, Mode: fi.Mode()}
}

// checkOpened refuses a descriptor that is not a regular file or a
// directory, and returns the FileInfo of one it accepts. Both ways of
// opening (openNoLinks, openRead) open without blocking, so that a FIFO
// swapped in cannot hang the open, and put the file back into blocking
// mode before anything is read.
func checkOpened(f *os.File, abs string) (fs.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", abs, err)
	}
	if !openable(fi.Mode()) {
		return nil, &SpecialFileError{Path: abs, Mode: fi.Mode()}
	}
	return fi, nil
}
