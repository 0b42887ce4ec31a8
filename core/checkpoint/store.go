// Package checkpoint provides Boris's checkpoints (docs/reference/core.md#checkpoints): a shadow git
// repository per working tree, kept outside the tree, into which every
// change a tool call makes is recorded, so that it can be listed, diffed
// and undone. The user's own repository (.git, index, hooks, config,
// history) is never read or written: the shadow has its own git directory
// and index and is driven by the git binary with a controlled environment.
package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/mjkoo/boris/internal/gitenv"
	"github.com/mjkoo/boris/internal/safefile"
)

// ErrNotFound is wrapped by every error about a checkpoint id that names
// no kept checkpoint.
var ErrNotFound = errors.New("checkpoint not found")

// ErrUnavailable is returned by Open when the git binary is missing.
var ErrUnavailable = errors.New("checkpoints need the git binary, which is not on PATH")

// Options configure Open. The zero value of each field is documented.
type Options struct {
	// Tree is the working tree's real (symlink-free) absolute path.
	Tree string
	// StateDir is Boris's state directory; the shadow repositories live in
	// its checkpoints directory, one per tree, named for the SHA-256 of
	// the tree's path. StateDir itself is trusted (its links are
	// followed); nothing below it is: no link is followed there, and the
	// files Boris keeps there are rewritten at every Open.
	StateDir string
	// Keep is how many checkpoints are kept; older ones are pruned. 0 means 200.
	Keep int
	// MaxFileSize: larger files are not recorded. 0 means no limit.
	MaxFileSize int64
	// Allowed reports whether a path of the tree may be recorded (the path
	// policy: deny-listed paths are never copied). nil allows every path.
	Allowed func(abs string) bool
	// Exclude holds extra gitignore patterns for the shadow's info/exclude.
	Exclude []string
	// Start and Done run git processes (the core's subreaper); nil means
	// cmd.Start and nothing.
	Start func(*exec.Cmd) error
	Done  func(pid int)
	// Confine returns the argv that runs git's argv confined (the
	// sandbox's helper), or nil to run git as it is. git starts with the
	// shadow repository's directory open as file descriptor 3, so the
	// rules can grant it by /proc/self/fd/3, which no link swapped in
	// since can redirect.
	Confine func(argv []string) []string
	// Spawn, if set, starts git (argv, in dir, with env and the three
	// standard files) in a process group of its own, under the same rules
	// as Confine, from a confined process that forks it (a helper's
	// start costs a Go runtime each time), and reports its wait status.
	// shadow is the shadow repository's directory, to be granted as
	// Confine grants it. When it fails, git starts through Confine.
	Spawn func(shadow *os.File, argv []string, dir string, env []string, files [3]*os.File) (int, <-chan syscall.WaitStatus, error)
	// Environ is the environment git's PATH comes from; nil means os.Environ().
	Environ []string
	// Session names the session recording (a Boris-Session trailer on
	// each checkpoint), so that an undo can tell the checkpoints of
	// another session on the same tree from its own; "" names none.
	Session string
	// Log receives warnings; nil discards them.
	Log *slog.Logger
}

// Store is the checkpoints of one working tree, kept in its shadow
// repository. Its methods are safe for concurrent use, also by several
// processes on one tree: every operation holds an exclusive lock on a
// file in the shadow.
//
// A Store composes four roles, each a type of its own:
//   - shadow: the shadow repository, the confined git run on it, its
//     index and loose objects (shadow.go, git.go, index.go, objects.go);
//   - worktree: the tree as the checkpoints see it, which of its paths
//     may be recorded and how a file of it is read (tree.go);
//   - staging: the recording strategies, how a recording finds what
//     changed (a strategy: the paths named, what the watcher saw, the
//     whole tree) and stages it (strategy.go); the in-process recording
//     of files a tool has just written is RecordFiles (fast.go);
//   - history: the checkpoints read back, what undoing one restores, and
//     pruning (history.go, undo.go, prune.go).
//
// Store itself holds what ties them together: the options, the watcher,
// and the entry points that take the lock and build a checkpoint.
type Store struct {
	*shadow
	worktree
	opts  Options
	watch *watcher // nil: every recording without paths scans the tree
	hist  history
}

// DefaultKeep is how many checkpoints are kept when Options.Keep is 0.
const DefaultKeep = 200

// ShadowDir is where the shadow repository of tree lives under stateDir.
func ShadowDir(stateDir, tree string) string {
	return filepath.Join(stateDir, shadowRel(tree))
}

// OpenShadowDir opens the directory of tree's shadow repository under
// stateDir, made if missing, without following links: what git may write,
// granted to git by this descriptor before the store opens the repository
// (sandbox.GitDomain).
func OpenShadowDir(stateDir, tree string) (*os.File, error) {
	d, err := safefile.OpenDir(stateDir, shadowRel(tree), true, 0o700)
	if err != nil {
		return nil, err
	}
	return d.File(), nil
}

// shadowRel is ShadowDir relative to the state directory.
func shadowRel(tree string) string {
	sum := sha256.Sum256([]byte(tree))
	return "checkpoints/" + hex.EncodeToString(sum[:16])
}

// Open opens the shadow repository of opts.Tree, creating it if needed. It
// fails with ErrUnavailable when git is not on PATH.
func Open(ctx context.Context, opts Options) (*Store, error) {
	if opts.Keep <= 0 {
		opts.Keep = DefaultKeep
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ()
	}
	gitPath, err := gitenv.Look(opts.Environ)
	if err != nil {
		return nil, ErrUnavailable
	}
	tree := worktree{treeDir: opts.Tree, stateDir: opts.StateDir, allowed: opts.Allowed, maxFileSize: opts.MaxFileSize}
	sh, err := openShadow(opts, gitPath, excludes(tree.stateRel(), opts.Exclude))
	if err != nil {
		return nil, err
	}
	hist := history{repo: sh, tree: tree, keep: opts.Keep, session: opts.Session}
	return &Store{shadow: sh, worktree: tree, opts: opts, hist: hist}, nil
}

// Available reports whether checkpoints can be kept with environ's PATH:
// ErrUnavailable when git is not on it.
func Available(environ []string) error {
	if _, err := gitenv.Look(environ); err != nil {
		return ErrUnavailable
	}
	return nil
}

// Tree returns the working tree's path.
func (s *Store) Tree() string { return s.opts.Tree }

// Dir returns the shadow repository's git directory.
func (s *Store) Dir() string { return s.dir }

// Close stops watching and releases the lock file.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.watch != nil {
		s.watch.close()
		s.watch = nil
	}
	s.closeFiles()
	return nil
}

// Watch starts tracking which paths of the tree change (inotify), so that
// recordings without paths scan just those, and one after a command that
// changed nothing runs no git at all. Call it before the first recording:
// changes made before it are found by that recording's full scan. When
// it fails, recordings scan the whole tree, as before.
func (s *Store) Watch() error { return s.watchSince(nil) }

// watchSince is Watch with since, which says when a command started
// before the watches were all added, if one did: what it changed where
// no watch was yet is found by change times.
func (s *Store) watchSince(since func() (time.Time, bool)) error {
	stateRel := s.stateRel()
	w, err := newWatcherSince(s.opts.Tree, func(rel string) bool { return stateRel != "" && rel == stateRel }, since)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.watch != nil {
		s.watch.close()
	}
	s.watch = w
	return nil
}

// watchBroken is why the watcher stopped naming what changes (a
// directory made since could not be watched); nil while it names it, or
// when there is none.
func (s *Store) watchBroken() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.watch == nil {
		return nil
	}
	return s.watch.brokenBy()
}
