package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/mjkoo/boris/internal/gitenv"
)

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

// closeFiles closes the lock and the shadow directory.
func (s *Store) closeFiles() {
	s.lock.Close()
	s.root.Close()
}

// lockedFiles is locked without the guard: a recording in process runs
// no git, so what the guard keeps from git (config, attributes,
// alternates) does not reach it, and what it reads of the shadow
// (objects, refs) it checks itself.
func (s *Store) lockedFiles(fn func() error) error {
	unlock, err := s.acquire()
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}
