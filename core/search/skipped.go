package search

import (
	"fmt"
	"strings"
)

// Reason says what became of one file a walk offered to its visitor: it
// was searched (or listed), or why it was left out.
type Reason int

// The reasons a file or directory is left out. The zero value, Searched,
// means it was not left out.
const (
	Searched    Reason = iota
	Binary             // a NUL byte in the first 8 KB
	TooLarge           // over the size limit
	Ignored            // matched by a .gitignore or .git/info/exclude rule
	Denied             // refused by the path scoping; never opened
	Unreadable         // could not be opened or read, or a dangling symlink
	GitDir             // a .git directory, never descended into
	SymlinkDir         // a symlink to a directory, not followed
	SpecialFile        // a FIFO, socket or device, never opened
)

// Skipped counts what a walk or search left out, per reason. Files and
// directories both count: a pruned directory is one entry, whatever it
// holds.
type Skipped struct {
	Binary      int // files with a NUL byte in their first 8 KB
	TooLarge    int // files over the size limit
	Ignored     int // files and directories ignored by .gitignore rules
	Denied      int // files and directories refused by the path scoping
	Unreadable  int // entries that could not be opened or read
	GitDirs     int // .git directories
	SymlinkDirs int // symlinks to directories (never followed)
	Special     int // FIFOs, sockets and devices
}

// add counts one entry left out for r.
func (s *Skipped) add(r Reason) {
	switch r {
	case Binary:
		s.Binary++
	case TooLarge:
		s.TooLarge++
	case Ignored:
		s.Ignored++
	case Denied:
		s.Denied++
	case Unreadable:
		s.Unreadable++
	case GitDir:
		s.GitDirs++
	case SymlinkDir:
		s.SymlinkDirs++
	case SpecialFile:
		s.Special++
	}
}

// merge adds o's counts to s.
func (s *Skipped) merge(o Skipped) {
	s.Binary += o.Binary
	s.TooLarge += o.TooLarge
	s.Ignored += o.Ignored
	s.Denied += o.Denied
	s.Unreadable += o.Unreadable
	s.GitDirs += o.GitDirs
	s.SymlinkDirs += o.SymlinkDirs
	s.Special += o.Special
}

// Footer renders the counts as the one-line report every grep and glob
// result ends with, naming only the reasons that occurred, e.g.
// "[Skipped: 2 binary, 340 ignored by .gitignore, 1 over 10MB]", or
// "[Skipped: none]". maxSize is the size limit as the user wrote it.
func (s Skipped) Footer(maxSize string) string {
	parts := []string{}
	add := func(n int, one, many string) {
		switch {
		case n == 1:
			parts = append(parts, "1 "+one)
		case n > 1:
			parts = append(parts, fmt.Sprintf("%d %s", n, many))
		}
	}
	add(s.Binary, "binary", "binary")
	add(s.Ignored, "ignored by .gitignore", "ignored by .gitignore")
	add(s.TooLarge, "over "+maxSize, "over "+maxSize)
	add(s.Denied, "denied by path scoping", "denied by path scoping")
	add(s.Unreadable, "unreadable", "unreadable")
	add(s.GitDirs, ".git directory", ".git directories")
	add(s.SymlinkDirs, "symlinked directory (not followed)", "symlinked directories (not followed)")
	add(s.Special, "special file (FIFO, socket or device)", "special files (FIFOs, sockets or devices)")
	if len(parts) == 0 {
		return "[Skipped: none]"
	}
	return "[Skipped: " + strings.Join(parts, ", ") + "]"
}
