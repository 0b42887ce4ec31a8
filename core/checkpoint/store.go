// Package checkpoint provides Boris's checkpoints (docs/reference/core.md#checkpoints): a shadow git
// repository per working tree, kept outside the tree, into which every
// change a tool call makes is recorded, so that it can be listed, diffed
// and undone. The user's own repository (.git, index, hooks, config,
// history) is never read or written: the shadow has its own git directory
// and index and is driven by the git binary with a controlled environment.
package checkpoint

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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

// Store is the shadow repository of one working tree. Its methods are safe
// for concurrent use, also by several processes on one tree: every
// operation holds an exclusive lock on a file in the shadow.
type Store struct {
	opts  Options
	dir   string        // the shadow's git directory
	root  *safefile.Dir // the shadow's git directory, open
	git   string        // the git binary
	env   []string
	mu    sync.Mutex // with the file lock: one operation at a time
	lock  *os.File
	watch *watcher // nil: every recording without paths scans the tree
	// startSeq is the sequence number of the latest checkpoint when this
	// session's start was recorded: checkpoints after it by other
	// sessions were recorded while this one ran.
	startSeq int
}

// DefaultKeep is how many checkpoints are kept when Options.Keep is 0.
const DefaultKeep = 200

// ShadowDir is where the shadow repository of tree lives under stateDir.
func ShadowDir(stateDir, tree string) string {
	return filepath.Join(stateDir, shadowRel(tree))
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
	s := &Store{opts: opts, dir: ShadowDir(opts.StateDir, opts.Tree), git: gitPath}
	s.env = gitenv.Env(opts.Environ, "GIT_DIR="+s.dir, "GIT_WORK_TREE="+opts.Tree, "GIT_INDEX_FILE="+filepath.Join(s.dir, "index"))
	if s.root, err = safefile.OpenDir(opts.StateDir, shadowRel(opts.Tree), true, 0o700); err != nil {
		return nil, fmt.Errorf("open shadow repository: %w", err)
	}
	if s.lock, err = s.root.OpenFile("boris.lock", os.O_CREATE|os.O_RDWR, 0o600); err != nil {
		s.root.Close()
		return nil, fmt.Errorf("open shadow lock: %w", err)
	}
	unlock, err := s.acquire()
	if err != nil {
		s.closeFiles()
		return nil, err
	}
	defer unlock()
	if err := s.init(ctx); err != nil {
		s.closeFiles()
		return nil, err
	}
	return s, nil
}

// closeFiles closes the lock and the shadow directory.
func (s *Store) closeFiles() {
	s.lock.Close()
	s.root.Close()
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

// watched tells the watcher that paths have just been recorded, so the
// next recording without paths need not look at them again.
func (s *Store) watched(paths []string) {
	if s.watch == nil {
		return
	}
	s.watch.drain()
	s.watch.forgetPending(paths)
}

// stateRel is the state directory relative to the tree when it lies
// inside it ("" when not): never recorded, never watched.
func (s *Store) stateRel() string {
	rel, err := filepath.Rel(s.opts.Tree, s.opts.StateDir)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return ""
	}
	return filepath.ToSlash(rel)
}

// gitConfig is set on every git command after gitenv.Args: the index
// keeps an untracked cache, no reflogs, paths unquoted, never bare.
var gitConfig = []string{
	"-c", "core.untrackedCache=true", "-c", "core.logAllRefUpdates=false", "-c", "core.quotePath=false",
	"-c", "core.bare=false", "-c", "advice.addIgnoredFile=false", "-c", "gc.auto=0",
}

// run runs git with args and stdin, returning stdout. extraEnv is added to
// the environment. git runs in the tree's top directory (so pathspecs are
// relative to it), confined when Options.Confine says how, with the
// shadow's directory as file descriptor 3.
func (s *Store) run(ctx context.Context, stdin []byte, extraEnv []string, args ...string) ([]byte, error) {
	var in io.Reader
	if stdin != nil {
		in = bytes.NewReader(stdin)
	}
	return s.runEnv(ctx, append(append([]string{}, s.env...), extraEnv...), in, args...)
}

// runEnv is run with the whole environment given.
func (s *Store) runEnv(ctx context.Context, env []string, stdin io.Reader, args ...string) ([]byte, error) {
	argv := append(append(append([]string{s.git}, gitenv.Args...), gitConfig...), args...)
	if s.opts.Spawn != nil {
		stdout, stderr, err := s.spawnRun(ctx, argv, env, stdin)
		var started *startError
		if !errors.As(err, &started) {
			if err != nil {
				return stdout, &gitError{args: args, err: err, stderr: strings.TrimSpace(string(stderr) + "\n" + string(stdout))}
			}
			return stdout, nil
		}
		s.opts.Log.Debug("git starts through the sandbox helper", "err", started.err)
	}
	if s.opts.Confine != nil {
		argv = s.opts.Confine(argv)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Dir = s.opts.Tree
	cmd.ExtraFiles = []*os.File{s.root.File()}
	if stdin != nil {
		cmd.Stdin = stdin
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := s.startWait(cmd); err != nil {
		var started *startError
		if errors.As(err, &started) {
			return nil, fmt.Errorf("git %s: %w", args[0], started.err)
		}
		return stdout.Bytes(), &gitError{args: args, err: err, stderr: strings.TrimSpace(stderr.String() + "\n" + stdout.String())}
	}
	return stdout.Bytes(), nil
}

// spawnRun runs argv through Options.Spawn with stdin, returning its
// output; a *startError when it could not start. A cancelled ctx kills
// its process group.
func (s *Store) spawnRun(ctx context.Context, argv, env []string, stdin io.Reader) (stdout, stderr []byte, err error) {
	var pipes [3][2]*os.File // stdin, stdout, stderr: read end, write end
	for i := range pipes {
		r, w, err := os.Pipe()
		if err != nil {
			closePipes(pipes[:i])
			return nil, nil, &startError{err}
		}
		pipes[i] = [2]*os.File{r, w}
	}
	pid, wait, err := s.opts.Spawn(s.root.File(), argv, s.opts.Tree, env, [3]*os.File{pipes[0][0], pipes[1][1], pipes[2][1]})
	pipes[0][0].Close()
	pipes[1][1].Close()
	pipes[2][1].Close()
	if err != nil {
		pipes[0][1].Close()
		pipes[1][0].Close()
		pipes[2][0].Close()
		return nil, nil, &startError{err}
	}
	go func() {
		if stdin != nil {
			_, _ = io.Copy(pipes[0][1], stdin)
		}
		pipes[0][1].Close()
	}()
	var outBuf, errBuf bytes.Buffer
	var wg sync.WaitGroup
	for i, buf := range []*bytes.Buffer{&outBuf, &errBuf} {
		wg.Go(func() {
			_, _ = buf.ReadFrom(pipes[i+1][0])
			pipes[i+1][0].Close()
		})
	}
	var ws syscall.WaitStatus
	select {
	case ws = <-wait:
	case <-ctx.Done():
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		ws = <-wait
	}
	wg.Wait()
	switch {
	case ctx.Err() != nil:
		return outBuf.Bytes(), errBuf.Bytes(), ctx.Err()
	case ws.Signaled():
		return outBuf.Bytes(), errBuf.Bytes(), fmt.Errorf("signal: %v", ws.Signal())
	case ws.ExitStatus() != 0:
		return outBuf.Bytes(), errBuf.Bytes(), fmt.Errorf("exit status %d", ws.ExitStatus())
	}
	return outBuf.Bytes(), errBuf.Bytes(), nil
}

func closePipes(pipes [][2]*os.File) {
	for _, p := range pipes {
		p[0].Close()
		p[1].Close()
	}
}

// startError is a git that could not be started at all.
type startError struct{ err error }

func (e *startError) Error() string { return e.err.Error() }

// startWait starts cmd through Options.Start (the subreaper's, which must
// know git is its own child, or it would reap it and steal its status)
// and waits for it.
func (s *Store) startWait(cmd *exec.Cmd) error {
	start := cmd.Start
	if s.opts.Start != nil {
		start = func() error { return s.opts.Start(cmd) }
	}
	if err := start(); err != nil {
		return &startError{err}
	}
	err := cmd.Wait()
	if s.opts.Done != nil {
		s.opts.Done(cmd.Process.Pid)
	}
	return err
}

// gitError is a failed git command with what it printed.
type gitError struct {
	args   []string
	err    error
	stderr string
}

func (e *gitError) Error() string {
	return fmt.Sprintf("git %s: %v: %s", e.args[0], e.err, e.stderr)
}

// shadowConfig is the shadow's config, rewritten at every Open: whatever
// was written there before (by a command that could reach the state
// directory) is gone before git reads it.
const shadowConfig = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = false\n"

// init makes the shadow repository if it is not there and rewrites the
// files Boris keeps in it: config, excludes and attributes.
func (s *Store) init(ctx context.Context) error {
	head, err := s.root.OpenFile("HEAD", os.O_RDONLY, 0)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := s.create(); err != nil {
			return fmt.Errorf("create shadow repository %s: %w", s.dir, err)
		}
	case err != nil:
		return fmt.Errorf("open shadow repository: %w", err)
	default:
		head.Close()
	}
	info, err := s.root.Sub("info", true, 0o700)
	if err != nil {
		return fmt.Errorf("create shadow info: %w", err)
	}
	info.Close()
	for _, f := range []struct{ name, data string }{
		{"config", shadowConfig},
		{"info/exclude", s.excludes()},
		{"info/attributes", gitenv.Attributes},
	} {
		if err := s.root.WriteFile(f.name, []byte(f.data), 0o600); err != nil {
			return fmt.Errorf("write shadow %s: %w", f.name, err)
		}
	}
	return nil
}

// emptyRepo is what git init --bare --template= makes, but the config
// init writes next: the directories git looks for, HEAD last (its
// presence is what says the repository is there).
var emptyRepo = []string{"objects/info", "objects/pack", "refs/heads", "refs/tags"}

// create makes an empty shadow repository in process, as git init would
// (gitrepository-layout(5)): no git starts, so the first call of a
// session on a fresh state directory waits for no process. Everything is
// made through the shadow's descriptor, no link followed.
func (s *Store) create() error {
	for _, dir := range emptyRepo {
		d, err := s.root.Sub(dir, true, 0o700)
		if err != nil {
			return err
		}
		d.Close()
	}
	return s.root.WriteFile("HEAD", []byte("ref: refs/heads/main\n"), 0o600)
}

// excludes is the shadow's info/exclude: the user's .git, the state
// directory when it lies inside the tree (so the shadow never records
// itself), and the deny patterns.
func (s *Store) excludes() string {
	var sb strings.Builder
	sb.WriteString("# Written by boris; rewritten at every start.\n.git\n")
	if rel := s.stateRel(); rel != "" {
		fmt.Fprintf(&sb, "/%s/\n", rel)
	}
	for _, p := range s.opts.Exclude {
		sb.WriteString(p + "\n")
	}
	return sb.String()
}

// locked runs fn holding the lock, with the shadow's own files checked
// first (guard).
func (s *Store) locked(fn func() error) error {
	unlock, err := s.acquire()
	if err != nil {
		return err
	}
	defer unlock()
	if err := s.guard(); err != nil {
		return err
	}
	return fn()
}

// guard puts back the files of the shadow that decide what git reads
// and runs, should anything have changed them since Open (a command can
// reach the state directory when an allowed directory holds it): the
// config and attributes Boris wrote, and no commondir or alternates that
// would send git to another repository's configuration or objects. A
// lock file of git's is stale under the store's lock (no git of Boris's
// runs on the shadow without it), and would stop every recording.
func (s *Store) guard() error {
	for _, f := range []struct{ name, data string }{
		{"config", shadowConfig},
		{"info/attributes", gitenv.Attributes},
	} {
		if got, err := s.root.ReadFile(f.name, int64(len(f.data))); err == nil && string(got) == f.data {
			continue
		}
		if err := s.root.WriteFile(f.name, []byte(f.data), 0o600); err != nil {
			return fmt.Errorf("restore shadow %s: %w", f.name, err)
		}
		s.opts.Log.Warn("the shadow repository's file had been changed; restored", "file", f.name, "dir", s.dir)
	}
	for _, name := range []string{"commondir", "objects/info/alternates", "objects/info/http-alternates", "info/grafts", "index.lock", "HEAD.lock"} {
		if err := s.root.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("clean shadow %s: %w", name, err)
		}
	}
	return nil
}

// readInt reads a small counter file of the shadow (0 when absent).
func (s *Store) readInt(name string) int {
	b, err := s.root.ReadFile(name, 64)
	if err != nil {
		return 0
	}
	var n int
	_, _ = fmt.Sscan(string(b), &n)
	return n
}

func (s *Store) writeInt(name string, n int) error {
	return s.root.Overwrite(name, []byte(fmt.Sprintln(n)), 0o600)
}
