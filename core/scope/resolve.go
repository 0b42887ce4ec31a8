package scope

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// maxLinkHops bounds how many dangling symlinks resolvePath follows, so a
// loop of dangling links cannot spin forever (mirrors the kernel's limit).
const maxLinkHops = 40

// resolvePath resolves symlinks in a clean absolute path. The longest
// existing prefix is resolved by the OS; missing trailing components are
// appended lexically so paths for files about to be created resolve too. A
// dangling symlink is replaced by its target, which is then resolved the
// same way, so a create through such a link is checked where it would land.
func resolvePath(abs string) (string, error) {
	if filepath.Clean(abs) == abs && hasNoLinks(abs) {
		return abs, nil // the common case, in one system call
	}
	return resolveHops(abs, 0)
}

func resolveHops(abs string, hops int) (string, error) {
	res, err := filepath.EvalSymlinks(abs)
	if err == nil {
		return res, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	dir, name := filepath.Split(abs)
	if name == "" {
		return abs, nil // the volume root itself; nothing to resolve
	}
	parent, err := resolveHops(filepath.Clean(dir), hops)
	if err != nil {
		return "", err
	}
	return resolveChild(parent, name, hops)
}

// resolveChild resolves name inside an already-resolved parent directory
// that exists (or is itself being created).
func resolveChild(parent, name string, hops int) (string, error) {
	cand := filepath.Join(parent, name)
	fi, err := os.Lstat(cand)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return cand, nil
	case err != nil:
		return "", err
	case fi.Mode()&fs.ModeSymlink == 0:
		// Appeared since EvalSymlinks failed; resolve it normally.
		return filepath.EvalSymlinks(cand)
	}
	if hops >= maxLinkHops {
		return "", &fs.PathError{Op: "resolve", Path: cand, Err: syscall.ELOOP}
	}
	target, err := os.Readlink(cand)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(parent, target)
	}
	return resolveHops(filepath.Clean(target), hops+1)
}
