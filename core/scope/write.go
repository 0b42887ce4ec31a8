package scope

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// WriteFile atomically replaces or creates abs with data. Missing parent
// directories are created (0755) one level at a time, each through an
// *os.Root on its verified parent, so a directory swapped for a symlink
// cannot make us create anything outside the allowed, non-denied tree. The
// data goes to a temporary file in the target's directory, is fsynced and
// renamed over the target. An existing target keeps its permission bits;
// perm (subject to umask) applies only to new files. The temporary file is
// removed on any failure.
func (p *Policy) WriteFile(abs string, data []byte, perm fs.FileMode) error {
	root, rootDir, rel, err := p.locate(abs)
	if err != nil {
		return err
	}
	abs = filepath.Clean(abs)
	if rel == "." {
		return &fs.PathError{Op: "write", Path: abs, Err: errors.New("is a directory")}
	}
	dir, dirReal, err := p.openParent(root, rootDir, filepath.Dir(rel), abs)
	if err != nil {
		return err
	}
	defer dir.Close()
	name := filepath.Base(rel)
	if err := p.Check(filepath.Join(dirReal, name)); err != nil {
		return err
	}
	mode, preserve, err := targetMode(dir, abs, name, perm)
	if err != nil {
		return err
	}
	return p.writeAtomic(dir, abs, name, data, mode, preserve)
}

// verifyRoot returns the real path of the directory r is open on and checks
// it against the policy. Where the real path cannot be read, expect (the
// lexical path we meant to open) is returned instead.
func (p *Policy) verifyRoot(r *os.Root, expect, abs string) (string, error) {
	f, err := r.Open(".")
	if err != nil {
		return "", p.rootErr("open", abs, err)
	}
	defer f.Close()
	real, ok, err := realPath(f)
	if err != nil {
		return "", denied(abs, "cannot verify the real path of its directory: "+err.Error())
	}
	if !ok {
		return expect, nil
	}
	if reason := p.refusal(real); reason != "" {
		return "", denied(abs+" (directory is really "+real+")", reason)
	}
	return real, nil
}

// targetMode decides the mode of the replacement file: the existing
// target's bits when there is one, else perm. A directory target is an
// error; a symlink target is refused because Resolve never returns one, so
// it must have been swapped in; a FIFO, socket or device is refused rather
// than replaced.
func targetMode(dir *os.Root, abs, name string, perm fs.FileMode) (fs.FileMode, bool, error) {
	fi, err := dir.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return perm.Perm(), false, nil
	case err != nil:
		return 0, false, &fs.PathError{Op: "lstat", Path: abs, Err: unwrapPath(err)}
	case fi.IsDir():
		return 0, false, &fs.PathError{Op: "write", Path: abs, Err: errors.New("is a directory")}
	case fi.Mode()&fs.ModeSymlink != 0:
		return 0, false, denied(abs, "target became a symlink after it was resolved")
	case !fi.Mode().IsRegular():
		return 0, false, &SpecialFileError{Path: abs, Mode: fi.Mode()}
	}
	keep := fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky
	return fi.Mode() & keep, true, nil
}

// unwrapPath strips a *fs.PathError so it can be re-reported against abs.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// A write's temporary file is named ".NAME.boris-XXXXXXXXXXXX.tmp"
// (XXXXXXXXXXXX base32), beside NAME.
const (
	tempMark = ".boris-"
	tempRand = 12
)

// IsTemp reports whether base (a file's name, without its directory) has
// the shape of a write's temporary file: one that exists only while a
// write runs, so the checkpoints never name it as a change of their own.
func IsTemp(base string) bool {
	_, ok := TempTarget(base)
	return ok
}

// TempTarget returns the name of the file a write's temporary file base
// is written for (NAME in ".NAME.boris-XXXXXXXXXXXX.tmp", in the same
// directory); false when base does not have that shape.
func TempTarget(base string) (string, bool) {
	rest, ok := strings.CutSuffix(base, ".tmp")
	if !ok || !strings.HasPrefix(rest, ".") {
		return "", false
	}
	i := strings.LastIndex(rest, tempMark)
	if i < 2 {
		return "", false
	}
	suffix := rest[i+len(tempMark):]
	if len(suffix) != tempRand {
		return "", false
	}
	for _, c := range suffix {
		if !(c >= 'A' && c <= 'Z' || c >= '2' && c <= '7') {
			return "", false
		}
	}
	return rest[1:i], true
}

// writeAtomic writes data to a fresh temporary file in dir and renames it
// over name. O_EXCL guarantees the temp name is ours (never a planted
// symlink); the deferred cleanup removes it unless the rename happened.
func (p *Policy) writeAtomic(dir *os.Root, abs, name string, data []byte, mode fs.FileMode, preserve bool) (err error) {
	tmp := "." + name + tempMark + rand.Text()[:tempRand] + ".tmp"
	f, err := dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return &fs.PathError{Op: "create temp", Path: abs, Err: unwrapPath(err)}
	}
	defer func() {
		if err != nil {
			f.Close()
			dir.Remove(tmp)
		}
	}()
	if err := fillTemp(f, data, mode, preserve); err != nil {
		return &fs.PathError{Op: "write", Path: abs, Err: unwrapPath(err)}
	}
	if err := f.Close(); err != nil {
		return &fs.PathError{Op: "close", Path: abs, Err: unwrapPath(err)}
	}
	if p.beforeRename != nil {
		p.beforeRename()
	}
	if err := dir.Rename(tmp, name); err != nil {
		return &fs.PathError{Op: "rename", Path: abs, Err: unwrapPath(err)}
	}
	syncDir(dir)
	return nil
}

// fillTemp writes and fsyncs the temp file. Preserved modes are applied
// with fchmod because OpenFile's mode is filtered by the umask.
func fillTemp(f *os.File, data []byte, mode fs.FileMode, preserve bool) error {
	if _, err := f.Write(data); err != nil {
		return err
	}
	if preserve {
		if err := f.Chmod(mode); err != nil {
			return fmt.Errorf("preserving mode %v: %w", mode, err)
		}
	}
	return f.Sync()
}

// syncDir fsyncs the directory so the rename survives a crash. Errors are
// ignored: the data is already in place and some file systems refuse
// directory fsync.
func syncDir(dir *os.Root) {
	if d, err := dir.Open("."); err == nil {
		d.Sync()
		d.Close()
	}
}
