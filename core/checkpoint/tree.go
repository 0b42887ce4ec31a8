package checkpoint

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/mjkoo/boris/internal/safefile"
)

// worktree is the working tree as the checkpoints see it: which of its
// paths may be recorded (the path policy, the size limit, nested
// repositories, the state directory) and how a path is named. It is its
// configuration and nothing more: every answer is read from the disk.
type worktree struct {
	treeDir     string                // the tree's real absolute path
	stateDir    string                // Boris's state directory, never recorded
	allowed     func(abs string) bool // the path policy; nil allows every path
	maxFileSize int64                 // larger files are not recorded; 0: no limit
}

// rel turns a path into a pathspec relative to the tree.
func (w worktree) rel(p string) string {
	if !filepath.IsAbs(p) {
		return filepath.ToSlash(p)
	}
	r, err := filepath.Rel(w.treeDir, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(r)
}

// inside turns paths (relative or absolute) into pathspecs relative to
// the tree, leaving out those outside it.
func (w worktree) inside(paths []string) []string {
	var specs []string
	for _, p := range paths {
		if r := w.rel(p); r != ".." && !strings.HasPrefix(r, "../") {
			specs = append(specs, r)
		}
	}
	return specs
}

// recordable says whether a changed path may go into the shadow: allowed
// by the policy and, unless deleted, not over the size limit.
func (w worktree) recordable(rel string, deleted bool) bool {
	abs := filepath.Join(w.treeDir, filepath.FromSlash(strings.TrimSuffix(rel, "/")))
	if w.allowed != nil && !w.allowed(abs) {
		return false
	}
	if strings.HasSuffix(rel, "/") && !deleted && !hasCommit(abs) {
		// A nested repository is recorded as a reference to its commit;
		// one without any (git init, a fresh workspace) has nothing to
		// refer to, and git refuses to add it.
		return false
	}
	if deleted || w.maxFileSize <= 0 {
		return true
	}
	fi, err := os.Lstat(abs)
	return err != nil || !fi.Mode().IsRegular() || fi.Size() <= w.maxFileSize
}

// nestedRepo returns the nested repository (a directory below the tree
// holding .git) that rel lies inside, relative to the tree.
func (w worktree) nestedRepo(rel string) (string, bool) {
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		dir := strings.Join(parts[:i], "/")
		if _, err := os.Lstat(filepath.Join(w.treeDir, filepath.FromSlash(dir), ".git")); err == nil {
			return dir, true
		}
	}
	return "", false
}

// hasCommit reports whether the repository at dir (its .git a directory)
// has a commit checked out, reading its HEAD and refs as files: no git
// runs on a repository someone else configured.
func hasCommit(dir string) bool {
	gitDir := filepath.Join(dir, ".git")
	if fi, err := os.Lstat(gitDir); err != nil || !fi.IsDir() {
		return false
	}
	d, err := safefile.OpenDir(gitDir, "", false, 0)
	if err != nil {
		return false
	}
	defer d.Close()
	head, err := d.ReadFile("HEAD", 4096)
	if err != nil {
		return false
	}
	ref, isRef := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: ")
	if !isRef {
		return len(strings.TrimSpace(string(head))) >= 40 // a detached commit
	}
	if !strings.HasPrefix(ref, "refs/") || strings.Contains(ref, "..") {
		return false
	}
	if f, err := d.OpenFile(ref, os.O_RDONLY, 0); err == nil {
		f.Close()
		return true
	}
	packed, err := d.ReadFile("packed-refs", 16<<20)
	return err == nil && strings.Contains(string(packed), " "+ref+"\n")
}

// stateRel is the state directory relative to the tree when it lies
// inside it ("" when not): never recorded, never watched.
func (w worktree) stateRel() string {
	rel, err := filepath.Rel(w.treeDir, w.stateDir)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return ""
	}
	return filepath.ToSlash(rel)
}

// capturable says whether rel is a path whose bytes a capture keeps: one
// the checkpoints record as a file (not .git, a nested repository or a
// refused path).
func (w worktree) capturable(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if part == ".git" || part == "" || part == "." || part == ".." {
			return false
		}
	}
	abs := filepath.Join(w.treeDir, filepath.FromSlash(rel))
	if w.allowed != nil && !w.allowed(abs) {
		return false
	}
	_, nested := w.nestedRepo(rel)
	return !nested
}

// errNotFile is returned by readTreeFile for what is neither a file nor
// a link, or is over its limit.
var errNotFile = errors.New("not a file or link the checkpoints take as it is")

// readTreeFile reads the file or link at abs as a checkpoint records it:
// its mode and bytes (a link's target). It fails with an error wrapping
// os.ErrNotExist when nothing is there, and errNotFile for a directory,
// anything else, or a file over limit (0: none).
func (w worktree) readTreeFile(abs string, limit int64) (mode string, data []byte, err error) {
	var st unix.Stat_t
	if err := unix.Lstat(abs, &st); err != nil {
		return "", nil, &os.PathError{Op: "lstat", Path: abs, Err: err}
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		target, err := os.Readlink(abs)
		return modeSymlink, []byte(target), err
	case unix.S_IFREG:
		if limit > 0 && st.Size > limit {
			return "", nil, errNotFile
		}
		mode = modeFile
		if st.Mode&0o100 != 0 {
			mode = modeExec
		}
		data, err = readRegular(abs, st.Size)
		return mode, data, err
	}
	return "", nil, errNotFile
}

// readRegular reads the regular file at abs without following a link
// swapped in or waiting on a FIFO.
func readRegular(abs string, size int64) ([]byte, error) {
	fd, err := unix.Open(abs, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), abs)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, ErrSlow
	}
	var buf bytes.Buffer
	buf.Grow(int(size) + 1)
	_, err = io.Copy(&buf, f)
	return buf.Bytes(), err
}
