//go:build !linux

package filesystem

import (
	"io/fs"
	"time"
)

// atime is not read on this platform; the modification time stands in.
func atime(fs.FileInfo) (time.Time, bool) { return time.Time{}, false }
