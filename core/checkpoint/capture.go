package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A change recorded through git is recorded after its call has answered
// (git add reads the files then). A Capture closes the gap: when the call
// ends, before it answers, it takes what changed (the paths a tool names,
// or those the watcher saw) and the bytes of each changed file, as blobs.
// When the recording later finds a path changed again since (the watcher
// says so: a change after the answer, which no Boris call made), the
// checkpoint gets the captured bytes, and the later change stays for the
// next outside checkpoint.

// Capture is what a call changed, read when it ended. Make one with
// Capture and record it with RecordCaptured.
type Capture struct {
	// Mixed is set by the caller when the call ran alongside others (a
	// background task): its checkpoint is marked (Checkpoint.Mixed).
	Mixed bool

	named   []string            // paths the tool named; nil: what the watcher saw
	seen    []string            // what the watcher saw (named nil)
	all     bool                // the watcher could not say: scan everything
	entries map[string]captured // the bytes of the changed files and links
	// late: what changed is what the watcher has seen when it is
	// recorded (a command that ended while the start held the store).
	late bool
	// skip: paths left out (those file tools wrote while the start held
	// the store, which their own recordings take).
	skip map[string]bool
	// exact: the captured bytes are the call's, whatever the watcher saw
	// (a file tool's change made while the start held the store): each is
	// set, and left for the next recording to compare with the disk.
	exact bool
	// seal, when set, gives once the tree has been read the paths to set
	// to a state of their own, whatever the tree holds (RecordStart).
	seal func() map[string]captured
}

// captured is one path as the call left it.
type captured struct {
	mode string // "" when the path was gone
	id   oid
}

// Capture bounds: beyond them, the rest is read when it is recorded.
const (
	maxCaptureFile  = maxCompare
	maxCaptureTotal = 64 << 20
)

// Capture takes what a call that has just ended changed: at paths
// (relative or absolute, within the tree) or, with none, whatever the
// watcher saw change since the last recording.
func (s *Store) Capture(paths ...string) *Capture {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &Capture{entries: map[string]captured{}}
	var rels []string
	if len(paths) > 0 {
		for _, p := range paths {
			if r := s.rel(p); r != ".." && !strings.HasPrefix(r, "../") {
				c.named = append(c.named, r)
			}
		}
		rels = c.named
		if s.watch != nil {
			s.watch.drain()
			s.watch.forgetPending(rels)
		}
	} else if s.watch == nil {
		c.all = true
	} else {
		c.seen, c.all = s.watch.changes()
		rels = c.seen
	}
	if s.watch == nil {
		return c // no way to tell a later change: nothing to keep
	}
	total := int64(0)
	for _, rel := range rels {
		if total > maxCaptureTotal || !s.capturable(rel) {
			continue
		}
		e, n, ok := s.captureOne(rel)
		if ok {
			c.entries[rel] = e
			total += n
		}
	}
	return c
}

// capturable says whether rel is a path whose bytes a capture keeps: one
// the checkpoints record as a file (not .git, a nested repository or a
// refused path).
func (s *Store) capturable(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if part == ".git" || part == "" || part == "." || part == ".." {
			return false
		}
	}
	abs := filepath.Join(s.opts.Tree, filepath.FromSlash(rel))
	if s.opts.Allowed != nil && !s.opts.Allowed(abs) {
		return false
	}
	_, nested := s.nestedRepo(rel)
	return !nested
}

// captureOne reads rel: a file or link as a blob, a missing path as gone.
func (s *Store) captureOne(rel string) (captured, int64, bool) {
	limit := int64(maxCaptureFile)
	if s.opts.MaxFileSize > 0 {
		limit = min(limit, s.opts.MaxFileSize)
	}
	mode, data, err := s.readTreeFile(filepath.Join(s.opts.Tree, filepath.FromSlash(rel)), limit)
	if errors.Is(err, os.ErrNotExist) {
		return captured{}, 0, true
	}
	if err != nil {
		return captured{}, 0, false // a directory: git reads what is in it
	}
	id, err := s.writeObject("blob", data)
	if err != nil {
		return captured{}, 0, false
	}
	return captured{mode: mode, id: id}, int64(len(data)), true
}

// RecordCaptured records a captured change: what changed at its paths,
// with the bytes the call left wherever a path has changed again since.
func (s *Store) RecordCaptured(ctx context.Context, tool, summary string, c *Capture) (*Checkpoint, error) {
	var cp *Checkpoint
	err := s.locked(func() (err error) {
		cp, err = s.recordWith(ctx, tool, summary, c.named, c)
		return err
	})
	return cp, err
}

// keepCaptured runs after git has added what changed from disk: each
// captured path changed again since the capture (the watcher saw it) is
// set in the index to the captured bytes, and left for the watcher to
// hand the next recording, an outside one. A path git left out as
// ignored stays out. It returns the paths it set.
func (s *Store) keepCaptured(ctx context.Context, c *Capture) ([]string, error) {
	if c != nil && c.seal != nil {
		entries := c.seal()
		rels := make([]string, 0, len(entries))
		for rel := range entries {
			rels = append(rels, rel)
		}
		slices.Sort(rels)
		return s.setCaptured(ctx, entries, rels)
	}
	if c == nil || len(c.entries) == 0 {
		return nil, nil
	}
	if c.exact {
		rels := slices.Sorted(maps.Keys(c.entries))
		if s.watch != nil {
			s.watch.markPending(rels) // the disk may hold a later change
		}
		return s.setCaptured(ctx, c.entries, rels)
	}
	if s.watch == nil {
		return nil, nil
	}
	s.watch.drain()
	var raced []string
	for rel := range c.entries {
		if s.watch.isPending(rel) {
			raced = append(raced, rel)
		} else if c.named != nil {
			s.watch.forgetPending([]string{rel})
		}
	}
	return s.setCaptured(ctx, c.entries, raced)
}

// setCaptured sets rels in the index to their captured state, but those
// .gitignore leaves out; it returns the paths it set.
func (s *Store) setCaptured(ctx context.Context, entries map[string]captured, raced []string) ([]string, error) {
	if len(raced) == 0 {
		return nil, nil
	}
	if err := s.flush(ctx); err != nil {
		return nil, err
	}
	ignored, err := s.ignored(ctx, raced)
	if err != nil {
		return nil, fmt.Errorf("check captured paths: %w", err)
	}
	var info bytes.Buffer
	var set []string
	for _, rel := range raced {
		switch e := entries[rel]; {
		case ignored[rel]:
			continue
		case e.mode == "":
			fmt.Fprintf(&info, "0 %s\t%s\x00", oid{}, rel)
		default:
			fmt.Fprintf(&info, "%s %s\t%s\x00", e.mode, e.id, rel)
		}
		set = append(set, rel)
	}
	if len(set) == 0 {
		return nil, nil
	}
	if _, err := s.run(ctx, info.Bytes(), nil, "update-index", "-z", "--index-info"); err != nil {
		return nil, fmt.Errorf("keep captured contents: %w", err)
	}
	return set, nil
}

// ignored reports which of rels (relative to the tree; a directory with a
// trailing slash) the shadow leaves out: .gitignore, the state directory,
// the board's files and the deny patterns.
func (s *Store) ignored(ctx context.Context, rels []string) (map[string]bool, error) {
	ignored := map[string]bool{}
	if len(rels) == 0 {
		return ignored, nil
	}
	// check-ignore takes paths, not pathspecs, and refuses the literal
	// pathspec setting every other command gets.
	env := slices.DeleteFunc(slices.Clone(s.env), func(kv string) bool { return strings.HasPrefix(kv, "GIT_LITERAL_PATHSPECS=") })
	out, err := s.runEnv(ctx, env, strings.NewReader(strings.Join(rels, "\x00")+"\x00"), "check-ignore", "-z", "--stdin")
	var ge *gitError
	if err != nil && !(errors.As(err, &ge) && ge.err.Error() == "exit status 1") { // 1: none ignored
		return nil, err
	}
	for _, p := range bytes.Split(out, []byte{0}) {
		ignored[string(p)] = true
	}
	return ignored, nil
}
