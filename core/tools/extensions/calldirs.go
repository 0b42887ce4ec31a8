package extensions

import (
	"os"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/mjkoo/boris/internal/safefile"
)

// Each extension call gets a directory of its own for the files of the
// SDK's contract (progress, log, the questions and their answers, the
// cancellation mark, mcp_fail's error). Making one and removing it are
// metadata changes that wait for the filesystem's journal: on a busy disk
// that took milliseconds a call, more than the rest of the core's part. So
// a call's directory is kept for the next call when the call left it as it
// found it (the two empty stream files, nothing else), which most calls
// do; any other is removed.
//
// Every directory is made, checked and removed through the open directory
// of the Set (safefile), by name, following no link: whatever a tool left
// there (a link to another tree in place of a file or a directory) is
// removed as what it is, never followed.

// extCallDirsMax bounds the directories kept: enough for the calls one
// session runs at once, usually one.
const extCallDirsMax = 8

// extCallDirs holds the names of the directories kept for reuse.
type extCallDirs struct {
	mu   sync.Mutex
	free []string
}

// extCallFiles are the files a call directory starts with, empty.
var extCallFiles = [...]string{"progress", "log"}

// get returns the name of a call directory in base holding only the empty
// stream files: a kept one, or a new one.
func (d *extCallDirs) get(base *safefile.Dir) (string, error) {
	d.mu.Lock()
	if n := len(d.free); n > 0 {
		name := d.free[n-1]
		d.free = d.free[:n-1]
		d.mu.Unlock()
		return name, nil
	}
	d.mu.Unlock()
	dir, name, err := base.MkdirTemp("call-", 0o700)
	if err != nil {
		return "", err
	}
	defer dir.Close()
	for _, f := range extCallFiles {
		fh, err := dir.OpenFile(f, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			_ = base.RemoveAll(name)
			return "", err
		}
		fh.Close()
	}
	return name, nil
}

// put takes back a finished call's directory: kept when it holds just the
// empty stream files, as get made them, else removed.
func (d *extCallDirs) put(base *safefile.Dir, name string) {
	if extCallDirClean(base, name) {
		d.mu.Lock()
		if len(d.free) < extCallDirsMax {
			d.free = append(d.free, name)
			d.mu.Unlock()
			return
		}
		d.mu.Unlock()
	}
	_ = base.RemoveAll(name)
}

// extCallDirClean reports whether name in base is as get made it: a
// directory of mode 0700 (not a link), holding exactly the stream files,
// empty regular files of mode 0600.
func extCallDirClean(base *safefile.Dir, name string) bool {
	dir, err := base.Sub(name, false, 0)
	if err != nil {
		return false
	}
	defer dir.Close()
	fi, err := dir.File().Stat()
	if err != nil || fi.Mode().Perm() != 0o700 {
		return false
	}
	names, err := dir.File().Readdirnames(len(extCallFiles) + 1)
	if err != nil || len(names) != len(extCallFiles) {
		return false
	}
	fd := int(dir.File().Fd())
	for _, f := range extCallFiles {
		var st unix.Stat_t
		if unix.Fstatat(fd, f, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Mode&0o777 != 0o600 || st.Size != 0 {
			return false
		}
	}
	return true
}
