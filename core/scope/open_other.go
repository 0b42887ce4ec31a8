//go:build !unix

package scope

import (
	"io/fs"
	"os"
)

// ReadFlags are added to O_RDONLY for every file opened for reading; there
// are none outside Unix, where FIFOs and devices are not files.
const ReadFlags = 0

// setBlocking has nothing to undo outside Unix.
func setBlocking(*os.File) error { return nil }

// readDirTypes lists the open directory f.
func readDirTypes(f *os.File) ([]fs.DirEntry, error) { return f.ReadDir(-1) }
