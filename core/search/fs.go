package search

import (
	"io/fs"
	"time"
)

// kind is the type of a directory entry.
type kind uint8

const (
	kindUnknown kind = iota // the file system did not say; lstat to find out
	kindFile                // a regular file
	kindDir                 // a directory
	kindLink                // a symbolic link
	kindOther               // a FIFO, socket or device
)

// dirent is one entry of a directory listing.
type dirent struct {
	name string
	kind kind
}

// fileInfo is what the walk needs to know of a file.
type fileInfo struct {
	kind  kind
	size  int64
	mtime int64 // Unix nanoseconds
}

// modTime returns the modification time.
func (fi fileInfo) modTime() time.Time { return time.Unix(0, fi.mtime) }

// statInfo converts an fs.FileInfo.
func statInfo(fi fs.FileInfo) fileInfo {
	return fileInfo{kind: modeKind(fi.Mode().Type()), size: fi.Size(), mtime: fi.ModTime().UnixNano()}
}

// modeKind maps a file mode type onto an entry kind.
func modeKind(t fs.FileMode) kind {
	switch {
	case t.IsRegular():
		return kindFile
	case t&fs.ModeDir != 0:
		return kindDir
	case t&fs.ModeSymlink != 0:
		return kindLink
	}
	return kindOther
}
