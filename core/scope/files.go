package scope

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// escapeMsg is the text of os.Root's unexported errPathEscapes. os.Root
// reports a symlink (or ..) leading out of the root only through this error,
// so it is recognised by message to turn it into ErrDenied.
const escapeMsg = "path escapes from parent"

// Open opens a path returned by Resolve for reading: a regular file or a
// directory, nothing else. On Linux it is first opened with symlinks
// refused outright (openat2 RESOLVE_NO_SYMLINKS), which opens exactly the
// path the policy checked. Otherwise, and wherever that cannot decide (the
// path holds a symlink, the kernel is older), the open goes through the
// *os.Root of the allowed directory containing the path, so a symlink
// swapped in since Resolve cannot lead outside it, and the real path of the
// opened descriptor is then re-checked against the policy (Linux only) to
// catch redirection into a denied place inside the root.
//
// FIFOs, sockets and devices are refused with a *SpecialFileError (wrapping
// ErrSpecialFile): by their path before opening when they are plainly there,
// and by the descriptor's type after a non-blocking open, so a FIFO swapped
// in meanwhile cannot hang the call either. A missing file yields an error
// wrapping fs.ErrNotExist.
func (p *Policy) Open(abs string) (*os.File, error) {
	f, _, err := p.OpenStat(abs)
	return f, err
}

// OpenStat is Open returning the opened file's FileInfo too: the stat that
// checks its type, which a caller would otherwise repeat.
func (p *Policy) OpenStat(abs string) (*os.File, fs.FileInfo, error) {
	root, _, rel, err := p.locate(abs)
	if err != nil {
		return nil, nil, err
	}
	if err := preflight(abs); err != nil {
		return nil, nil, err
	}
	f, direct, err := openNoLinks(filepath.Clean(abs))
	if !direct {
		f, err = p.openRead(root, rel, abs)
	}
	if err != nil {
		return nil, nil, p.rootErr("open", abs, err)
	}
	fi, err := checkOpened(f, abs)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !direct {
		if err := p.verifyFile(f, abs); err != nil {
			f.Close()
			return nil, nil, err
		}
	}
	return f, fi, nil
}

// openRead opens rel (abs) in root for reading, without blocking, and
// returns the file in blocking mode, as openNoLinks does. With no allow
// directories the root is "/", which no path can escape: one open by the
// kernel then does what os.Root's walk would do with an open per path
// component, and the checks after the open apply as they do to any root.
func (p *Policy) openRead(root *os.Root, rel, abs string) (*os.File, error) {
	var f *os.File
	var err error
	if root == p.all {
		f, err = os.OpenFile(abs, os.O_RDONLY|ReadFlags, 0)
	} else {
		f, err = root.OpenFile(rel, os.O_RDONLY|ReadFlags, 0)
	}
	if err != nil {
		return nil, err
	}
	// Nothing is read before checkOpened has checked the type.
	if err := setBlocking(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Readlink returns the target of the symlink at abs (which is not itself
// resolved, since the point is to read the link) through the same root as
// Open, for "name -> target" directory listings.
func (p *Policy) Readlink(abs string) (string, error) {
	root, _, rel, err := p.locate(abs)
	if err != nil {
		return "", err
	}
	target, err := root.Readlink(rel)
	if err != nil {
		return "", p.rootErr("readlink", abs, err)
	}
	return target, nil
}

// locate checks abs against the policy and returns the root whose directory
// contains it, that directory (in the spelling abs uses) and abs relative to
// it.
func (p *Policy) locate(abs string) (root *os.Root, dir, rel string, err error) {
	if err := p.Check(abs); err != nil {
		return nil, "", "", err
	}
	abs = filepath.Clean(abs)
	allow := p.allowSet()
	if len(allow) == 0 {
		dir = filepath.VolumeName(abs) + string(filepath.Separator)
		return p.all, dir, relTo(dir, abs), nil
	}
	best, bestDir := -1, ""
	for i, d := range allow {
		for _, dir := range []string{d.resolved, d.lexical} {
			// The longest match wins so nested allow dirs use the
			// innermost root.
			if within(abs, dir) && len(dir) > len(bestDir) {
				best, bestDir = i, dir
			}
		}
	}
	if best < 0 { // unreachable: Check passed, so some allow dir matched
		return nil, "", "", denied(abs, "outside allowed directories")
	}
	return allow[best].root, bestDir, relTo(bestDir, abs), nil
}

// relTo returns abs relative to dir; abs is known to lie within dir.
func relTo(dir, abs string) string {
	rel, err := filepath.Rel(dir, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "." // cannot happen for a path within dir; stay inside the root
	}
	return rel
}

// rootErr translates an os.Root error: escapes become ErrDenied, other path
// errors are reported against abs instead of the root-relative name. A
// failure whose path now resolves to a refused place is also reported as
// ErrDenied, because that is what a swapped symlink looks like.
func (p *Policy) rootErr(op, abs string, err error) error {
	if isEscape(err) {
		return denied(abs, "a symlink leads outside its allowed directory")
	}
	if res, rerr := resolvePath(abs); rerr == nil {
		if reason := p.refusal(res); reason != "" {
			return denied(abs+" (now resolves to "+res+")", reason)
		}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: op, Path: abs, Err: pe.Err}
	}
	return err
}

// isEscape reports whether err is os.Root's "path escapes" refusal.
func isEscape(err error) bool {
	for ; err != nil; err = errors.Unwrap(err) {
		if err.Error() == escapeMsg {
			return true
		}
	}
	return false
}

// verifyFile re-checks the real path of an open descriptor. On platforms
// without a way to read it (realPath reports !ok) the os.Root confinement
// is the only guarantee.
func (p *Policy) verifyFile(f *os.File, abs string) error {
	real, ok, err := realPath(f)
	if err != nil {
		return denied(abs, "cannot verify the real path of the opened file: "+err.Error())
	}
	if !ok {
		return nil
	}
	for _, cand := range realCandidates(real) {
		if reason := p.refusal(cand); reason != "" {
			return denied(abs+" (opened "+real+")", reason)
		}
	}
	return nil
}

// realCandidates returns the paths to check for a descriptor's real path.
// Linux appends " (deleted)" to unlinked files; both spellings are checked
// so the suffix cannot hide a deny match.
func realCandidates(real string) []string {
	const deleted = " (deleted)"
	if trimmed, ok := strings.CutSuffix(real, deleted); ok {
		return []string{real, trimmed}
	}
	return []string{real}
}
