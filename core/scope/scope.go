// Package scope provides path scoping for Boris's file tools: it turns a
// tool's path argument into a checked absolute path, decides whether that
// path is inside the --allow-dir set and outside every --deny-dir rule, and
// performs the actual file-system access (read, readlink, atomic write)
// through *os.Root handles so that a symlink swapped in between the check and
// the use cannot redirect the operation outside the allowed directories.
//
// The policy is checked twice for every tool path: once on the lexical
// absolute path (so a symlink that lives inside a denied directory cannot be
// used as a door to an allowed file) and once on the fully resolved path (so
// a symlink inside an allowed directory cannot point outside it). File
// descriptors are re-checked after opening (Linux: via /proc/self/fd) to
// catch a race that redirects into a denied place inside the same root.
// On Linux a path that holds no symlink is opened with openat2 and
// RESOLVE_NO_SYMLINKS instead, which opens exactly the path checked (a
// symlink swapped in makes it fail, and the open then takes the os.Root
// way). Only regular files and directories are opened for reading: FIFOs,
// sockets and devices are refused without blocking on them.
package scope

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// ErrDenied is wrapped by every refusal made by this package, so callers can
// map it to the ACCESS_DENIED tool error with errors.Is.
var ErrDenied = errors.New("access denied")

// ErrEmptyPath is Resolve's error for an empty path: the caller's input
// is missing, which tools report as INVALID_INPUT.
var ErrEmptyPath = errors.New("path is required")

// Policy is a set of allow and deny rules plus the *os.Root handles used
// to access files under them. The deny rules are fixed; the allow set can
// be replaced as a whole (SetAllowed, for MCP roots). It is safe for
// concurrent use.
type Policy struct {
	allowMu sync.RWMutex
	allow   []allowDir // empty = whole file system allowed; replaced, never changed in place
	retired []allowDir // replaced allow dirs, open until Close for calls under way
	// all is the root used when there are no allow directories.
	all *os.Root

	denyRaw   []string // deny entries as given, for display
	denyPaths []denyPath
	denyPats  []denyPattern
	// unresolved indexes the protected entries of denyPaths whose resolved
	// forms resolveOnce adds (Protect).
	unresolved  []int
	resolveOnce sync.Once
	resolved    atomic.Bool // resolveOnce has run

	closeOnce sync.Once
	closeErr  error

	// beforeRename, when set (tests only), runs between writing the temp
	// file and renaming it, to exercise the cleanup of a failed rename.
	beforeRename func()
}

// allowDir is one --allow-dir entry. Both spellings are kept because tool
// paths are checked lexically as well as resolved: a user who allowed
// /tmp/work (a symlink to /private/tmp/work) must be able to name files as
// /tmp/work/x.
type allowDir struct {
	lexical  string
	resolved string
	root     *os.Root // opened on resolved
}

// New builds a policy. base is the directory relative allow/deny entries are
// resolved against (empty = the process working directory).
//
// allow entries are directories; each is made absolute, cleaned and
// symlink-resolved, and must exist and be a directory. No entries means the
// whole file system is allowed.
//
// deny entries are plain paths (denying the path and everything beneath it)
// or doublestar patterns (any entry containing one of *?[{), which deny a
// path when they match it or any of its ancestors. Entries are cleaned like
// paths ("./x/*", "x//*" and "y/../x/*" are "x/*"), ** kept. Relative
// patterns starting with ** match anywhere; other relative patterns are
// anchored at base. An entry that can never match (empty, or whose ".."
// lead above "/" or follow a wildcard) is an error. Deny always beats
// allow.
func New(base string, allow, deny []string) (*Policy, error) {
	base, err := filepath.Abs(base)
	if err != nil {
		return nil, fmt.Errorf("scope: base directory %q: %w", base, err)
	}
	p := &Policy{denyRaw: append([]string(nil), deny...)}
	if err := p.addDeny(base, deny); err != nil {
		return nil, err
	}
	if err := p.openAllow(base, allow); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// openAllow resolves every allow entry and opens its root. With no entries a
// single root on "/" serves every path, so Open and WriteFile still go
// through os.Root.
func (p *Policy) openAllow(base string, allow []string) error {
	if len(allow) == 0 {
		r, err := os.OpenRoot(string(filepath.Separator))
		if err != nil {
			return fmt.Errorf("scope: opening file-system root: %w", err)
		}
		p.all = r
		return nil
	}
	for _, a := range allow {
		d, err := openAllowDir(base, a)
		if err != nil {
			return err
		}
		p.allow = append(p.allow, d)
	}
	return nil
}

// openAllowDir validates one allow entry and opens an *os.Root on it.
func openAllowDir(base, entry string) (allowDir, error) {
	if entry == "" {
		return allowDir{}, errors.New("scope: empty allow directory")
	}
	lex := absFrom(base, entry)
	res, err := filepath.EvalSymlinks(lex)
	if err != nil {
		return allowDir{}, fmt.Errorf("scope: allow directory %q: %w", entry, err)
	}
	fi, err := os.Stat(res)
	if err != nil {
		return allowDir{}, fmt.Errorf("scope: allow directory %q: %w", entry, err)
	}
	if !fi.IsDir() {
		return allowDir{}, fmt.Errorf("scope: allow directory %q: not a directory", entry)
	}
	r, err := os.OpenRoot(res)
	if err != nil {
		return allowDir{}, fmt.Errorf("scope: allow directory %q: %w", entry, err)
	}
	return allowDir{lexical: lex, resolved: res, root: r}, nil
}

// absFrom makes p absolute relative to base and cleans it.
func absFrom(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// Close releases the *os.Root handles. The policy must not be used
// afterwards. Calling Close more than once is harmless.
func (p *Policy) Close() error {
	p.closeOnce.Do(func() {
		var errs []error
		p.allowMu.Lock()
		for _, d := range slices.Concat(p.allow, p.retired) {
			errs = append(errs, d.root.Close())
		}
		p.allowMu.Unlock()
		if p.all != nil {
			errs = append(errs, p.all.Close())
		}
		p.closeErr = errors.Join(errs...)
	})
	return p.closeErr
}

// Allowed returns the resolved allow directories for display; nil means the
// whole file system is allowed.
func (p *Policy) Allowed() []string {
	allow := p.allowSet()
	if len(allow) == 0 {
		return nil
	}
	out := make([]string, len(allow))
	for i, d := range allow {
		out[i] = d.resolved
	}
	return out
}

// allowSet is the current allow set (never changed in place).
func (p *Policy) allowSet() []allowDir {
	p.allowMu.RLock()
	defer p.allowMu.RUnlock()
	return p.allow
}

// SetAllowed replaces the allow directories with dirs (absolute, each an
// existing directory, symlinks resolved as New does). With none, or when
// one is invalid, it fails and the policy is unchanged: a policy can be
// narrowed to directories or moved between them, never opened to the
// whole file system. Calls under way finish on the directories they
// started with.
func (p *Policy) SetAllowed(dirs []string) error {
	if len(dirs) == 0 {
		return errors.New("scope: no allow directories given")
	}
	var next []allowDir
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			for _, n := range next {
				n.root.Close()
			}
			return fmt.Errorf("scope: allow directory %q: not an absolute path", d)
		}
		a, err := openAllowDir("/", d)
		if err != nil {
			for _, n := range next {
				n.root.Close()
			}
			return err
		}
		next = append(next, a)
	}
	p.allowMu.Lock()
	defer p.allowMu.Unlock()
	p.retired = append(p.retired, p.allow...)
	p.allow = next
	return nil
}

// Denied returns the deny entries exactly as given to New, for display.
func (p *Policy) Denied() []string {
	if len(p.denyRaw) == 0 {
		return nil
	}
	return append([]string(nil), p.denyRaw...)
}

// Resolve turns a tool's path argument into a checked absolute path.
// Relative paths are joined to cwd; the result is cleaned and its symlinks
// are resolved for the longest existing prefix (missing trailing components
// are appended lexically so new files can be created). The policy is checked
// on both the lexical and the resolved path; the resolved path is returned.
func (p *Policy) Resolve(cwd, path string) (string, error) {
	if path == "" {
		return "", ErrEmptyPath
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	lex, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if reason := p.refusal(lex); reason != "" {
		return "", denied(lex, reason)
	}
	res, err := resolvePath(lex)
	if err != nil {
		// The error itself may describe what lies outside (a file where a
		// directory was expected, behind a link leading out): refuse first
		// when the part of the path that resolves is not allowed.
		if reason, at := p.ancestorRefusal(lex); reason != "" {
			return "", denied(fmt.Sprintf("%s (through %s)", lex, at), reason)
		}
		return "", fmt.Errorf("%s: %w", lex, err)
	}
	if reason := p.refusal(res); reason != "" {
		return "", denied(fmt.Sprintf("%s (resolves to %s)", lex, res), reason)
	}
	return res, nil
}

// Check reports whether an absolute, already-resolved path is allowed. It
// returns an error wrapping ErrDenied, or nil. Walkers use it to skip denied
// entries without opening them; it never touches the file system.
func (p *Policy) Check(abs string) error {
	if !filepath.IsAbs(abs) {
		return denied(abs, "not an absolute path")
	}
	abs = filepath.Clean(abs)
	if reason := p.refusal(abs); reason != "" {
		return denied(abs, reason)
	}
	return nil
}

// denied builds the refusal error: the message names the path and the
// reason, and wraps ErrDenied.
func denied(what, reason string) error {
	return fmt.Errorf("%w: %s: %s", ErrDenied, what, reason)
}

// refusal returns why a clean absolute path is refused, or "" when it is
// allowed. Deny is checked first because it beats allow.
func (p *Policy) refusal(abs string) string {
	if reason := p.denyReason(abs); reason != "" {
		return reason
	}
	allow := p.allowSet()
	if len(allow) == 0 {
		return ""
	}
	for _, d := range allow {
		if within(abs, d.resolved) || within(abs, d.lexical) {
			return ""
		}
	}
	return "outside allowed directories (" + strings.Join(p.Allowed(), ", ") + ")"
}

// ancestorRefusal resolves the nearest ancestor of lex that resolves and
// returns the policy's refusal of where it leads ("" when allowed or when
// none resolves), with that resolved path.
func (p *Policy) ancestorRefusal(lex string) (string, string) {
	for dir := filepath.Dir(lex); ; dir = filepath.Dir(dir) {
		if res, err := filepath.EvalSymlinks(dir); err == nil {
			return p.refusal(res), res
		}
		if dir == filepath.Dir(dir) {
			return "", ""
		}
	}
}

// within reports whether clean absolute path is dir or lies beneath it.
func within(path, dir string) bool {
	if path == dir {
		return true
	}
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(path, dir)
}
