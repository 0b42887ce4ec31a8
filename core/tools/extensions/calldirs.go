package extensions

import (
	"os"
	"path/filepath"
	"sync"
)

// Each extension call gets a directory of its own for the files of the
// SDK's contract (progress, log, the cancellation mark, mcp_fail's error).
// Making one and removing it are metadata changes that wait for the
// filesystem's journal: on a busy disk that took milliseconds a call, more
// than the rest of the core's part. So a call's directory is kept for the
// next call when the call left it as it found it (the two empty stream
// files, nothing else), which most calls do; any other is removed.

// extCallDirsMax bounds the directories kept: enough for the calls one
// session runs at once, usually one.
const extCallDirsMax = 8

// extCallDirs holds the directories kept for reuse.
type extCallDirs struct {
	mu   sync.Mutex
	free []string
}

// extCallFiles are the files a call directory starts with, empty.
var extCallFiles = [...]string{"progress", "log"}

// get returns a call directory under base holding only the empty stream
// files: a kept one, or a new one.
func (d *extCallDirs) get(base string) (string, error) {
	d.mu.Lock()
	if n := len(d.free); n > 0 {
		dir := d.free[n-1]
		d.free = d.free[:n-1]
		d.mu.Unlock()
		return dir, nil
	}
	d.mu.Unlock()
	dir, err := os.MkdirTemp(base, "call-")
	if err != nil {
		return "", err
	}
	for _, f := range extCallFiles {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o600); err != nil {
			_ = os.RemoveAll(dir)
			return "", err
		}
	}
	return dir, nil
}

// put takes back a finished call's directory: kept when it holds just the
// empty stream files, as get made them, else removed.
func (d *extCallDirs) put(dir string) {
	if extCallDirClean(dir) {
		d.mu.Lock()
		if len(d.free) < extCallDirsMax {
			d.free = append(d.free, dir)
			d.mu.Unlock()
			return
		}
		d.mu.Unlock()
	}
	_ = os.RemoveAll(dir)
}

// extCallDirClean reports whether dir is as get made it: mode 0700, holding
// exactly the stream files, empty and mode 0600.
func extCallDirClean(dir string) bool {
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		return false
	}
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	names, err := f.Readdirnames(len(extCallFiles) + 1)
	f.Close()
	if err != nil || len(names) != len(extCallFiles) {
		return false
	}
	for _, name := range extCallFiles {
		fi, err := os.Lstat(filepath.Join(dir, name))
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 || fi.Size() != 0 {
			return false
		}
	}
	return true
}
