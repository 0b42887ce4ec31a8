package checkpoint

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/mjkoo/boris/internal/gitenv"
	"github.com/mjkoo/boris/internal/safefile"
)

// shadow is the shadow repository of one working tree and the git run on
// it: its git directory, opened without following links; the lock every
// operation holds; the files Boris keeps there (config, excludes,
// attributes, counters), put back before any git reads them; the
// confined git (git.go), the index (index.go), the loose objects read
// and written in process (objects.go) and the packs of many new files
// (pack_linux.go). It knows nothing of what a
// checkpoint means: Store builds checkpoints on it.
type shadow struct {
	dir     string        // the shadow's git directory
	root    *safefile.Dir // the shadow's git directory, open
	lock    *os.File
	mu      sync.Mutex // with the file lock: one operation at a time
	git     string     // the git binary
	env     []string   // git's environment
	workDir string     // the working tree, where git runs
	// packLimit is the largest file packFiles packs: the capture limit,
	// or Options.MaxFileSize when lower.
	packLimit int64
	log       *slog.Logger
	// How git starts and is confined: Options.Start, Done, Confine, Spawn.
	start   func(*exec.Cmd) error
	done    func(pid int)
	confine func(argv []string) []string
	spawn   func(shadow *os.File, argv []string, dir string, env []string, files [3]*os.File) (int, <-chan syscall.WaitStatus, error)
}

// openShadow opens the shadow repository of opts.Tree with the git
// binary at gitPath, creating it if need be, and rewrites its files,
// info/exclude to exclude.
func openShadow(opts Options, gitPath, exclude string) (*shadow, error) {
	s := &shadow{dir: ShadowDir(opts.StateDir, opts.Tree), git: gitPath, workDir: opts.Tree, log: opts.Log,
		start: opts.Start, done: opts.Done, confine: opts.Confine, spawn: opts.Spawn}
	s.packLimit = maxCaptureFile
	if opts.MaxFileSize > 0 {
		s.packLimit = min(s.packLimit, opts.MaxFileSize)
	}
	s.env = gitenv.Env(opts.Environ, "GIT_DIR="+s.dir, "GIT_WORK_TREE="+opts.Tree, "GIT_INDEX_FILE="+filepath.Join(s.dir, "index"))
	var err error
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
	if err := s.init(exclude); err != nil {
		s.closeFiles()
		return nil, err
	}
	return s, nil
}

// shadowConfig is the shadow's config, rewritten at every Open: whatever
// was written there before (by a command that could reach the state
// directory) is gone before git reads it.
const shadowConfig = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = false\n"

// init makes the shadow repository if it is not there and rewrites the
// files Boris keeps in it: config, excludes and attributes.
func (s *shadow) init(exclude string) error {
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
		{"info/exclude", exclude},
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
func (s *shadow) create() error {
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
// directory when it lies inside the tree (stateRel, "" when not: so the
// shadow never records itself), and the deny patterns.
func excludes(stateRel string, patterns []string) string {
	var sb strings.Builder
	sb.WriteString("# Written by boris; rewritten at every start.\n.git\n")
	if stateRel != "" {
		fmt.Fprintf(&sb, "/%s/\n", stateRel)
	}
	for _, p := range patterns {
		sb.WriteString(p + "\n")
	}
	return sb.String()
}

// locked runs fn holding the lock, with the shadow's own files checked
// first (guard).
func (s *shadow) locked(fn func() error) error {
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
func (s *shadow) guard() error {
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
		s.log.Warn("the shadow repository's file had been changed; restored", "file", f.name, "dir", s.dir)
	}
	for _, name := range []string{"commondir", "objects/info/alternates", "objects/info/http-alternates", "info/grafts", "index.lock", "HEAD.lock"} {
		if err := s.root.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("clean shadow %s: %w", name, err)
		}
	}
	return nil
}

// readInt reads a small counter file of the shadow (0 when absent).
func (s *shadow) readInt(name string) int {
	b, err := s.root.ReadFile(name, 64)
	if err != nil {
		return 0
	}
	var n int
	_, _ = fmt.Sscan(string(b), &n)
	return n
}

func (s *shadow) writeInt(name string, n int) error {
	return s.root.Overwrite(name, []byte(fmt.Sprintln(n)), 0o600)
}

// closeFiles closes the lock and the shadow directory.
func (s *shadow) closeFiles() {
	s.lock.Close()
	s.root.Close()
}

// lockedFiles is locked without the guard: a recording in process runs
// no git, so what the guard keeps from git (config, attributes,
// alternates) does not reach it, and what it reads of the shadow
// (objects, refs) it checks itself.
func (s *shadow) lockedFiles(fn func() error) error {
	unlock, err := s.acquire()
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}
