package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mjkoo/boris/internal/safefile"
)

// Checkpoint is one recorded change.
type Checkpoint struct {
	ID      string   // "cp_" and a sequence number, stable across pruning
	Tool    string   // the tool whose call made the change
	Summary string   // one line: what the call was
	Time    int64    // Unix seconds
	Files   []Change // what changed, by path relative to the tree
	// Mixed marks a change recorded when a call that ran alongside others
	// ended (a background task): it may hold changes made outside Boris
	// while it ran, which no watcher can tell apart.
	Mixed bool
	// Session names the session that recorded it ("" for checkpoints
	// recorded before sessions were named).
	Session string
	commit  string
}

// Change is one path a checkpoint changed: A(dded), M(odified), D(eleted),
// T (type changed).
type Change struct {
	Status string
	Path   string
}

// idPrefix starts every checkpoint id; it keeps ids unlike task ids.
const idPrefix = "cp_"

// Trailers in a checkpoint's commit message.
const (
	seqTrailer     = "Boris-Checkpoint: "
	toolTrailer    = "Boris-Tool: "
	mixedTrailer   = "Boris-Mixed: yes"
	sessionTrailer = "Boris-Session: "
)

// message is the commit message of checkpoint seq: a subject line, then
// the trailers history reads back.
func (s *Store) message(tool, summary string, seq int, mixed bool) string {
	msg := fmt.Sprintf("%s: %s\n\n%s%d\n%s%s\n", tool, oneLine(summary), seqTrailer, seq, toolTrailer, tool)
	if mixed {
		msg += mixedTrailer + "\n"
	}
	if s.opts.Session != "" {
		msg += sessionTrailer + s.opts.Session + "\n"
	}
	return msg
}

// Record records what changed in the tree since the last checkpoint, at
// paths (relative or absolute, within the tree) or, with none, anywhere in
// the tree. It returns nil when nothing changed. Paths the policy refuses,
// ignored paths and files over the size limit are left out.
func (s *Store) Record(ctx context.Context, tool, summary string, paths ...string) (*Checkpoint, error) {
	var cp *Checkpoint
	err := s.locked(func() (err error) {
		cp, err = s.recordWith(ctx, tool, summary, paths, nil)
		return err
	})
	return cp, err
}

// recordWith records what changed at paths (everywhere with none), or
// what c captured when it is not nil.
func (s *Store) recordWith(ctx context.Context, tool, summary string, paths []string, c *Capture) (*Checkpoint, error) {
	changed, err := s.stage(ctx, nil, paths, c)
	if err != nil || len(changed) == 0 {
		return nil, err
	}
	seq := s.readInt("seq") + 1
	mixed := c != nil && c.Mixed
	msg := s.message(tool, summary, seq, mixed)
	committed, err := s.commit(ctx, msg)
	if err != nil || !committed {
		return nil, err // nothing changed but over-large or refused files
	}
	if err := s.writeInt("seq", seq); err != nil {
		return nil, err
	}
	if err := s.countAndPrune(ctx); err != nil {
		s.opts.Log.Warn("pruning old checkpoints", "err", err)
	}
	return &Checkpoint{ID: idPrefix + strconv.Itoa(seq), Tool: tool, Summary: oneLine(summary), Mixed: mixed}, nil
}

// stage adds what changed at paths (everything with none), or what c
// captured, to the index (indexEnv nil: the shadow's own) and returns the
// paths it added.
func (s *Store) stage(ctx context.Context, indexEnv []string, paths []string, c *Capture) ([]string, error) {
	var specs []string
	for _, p := range paths {
		if r := s.rel(p); r != ".." && !strings.HasPrefix(r, "../") {
			specs = append(specs, r)
		}
	}
	switch {
	case indexEnv == nil && len(paths) > 0:
		// The caller knows what it changed: no scan, just those paths.
		// (With a capture, what the watcher says about them since is read
		// after git has added them: keepCaptured.)
		if c == nil {
			s.watched(specs)
		}
		var add, gone []string
		for _, r := range specs {
			// A path inside a nested repository is recorded as that
			// repository (a reference), as a scan would find it.
			if repo, ok := s.nestedRepo(r); ok {
				r = repo + "/"
			}
			_, err := os.Lstat(filepath.Join(s.opts.Tree, filepath.FromSlash(r)))
			if !s.recordable(r, err != nil) || slices.Contains(add, r) || slices.Contains(gone, r) {
				continue
			}
			if err != nil {
				gone = append(gone, r)
			} else {
				add = append(add, r)
			}
		}
		if len(add)+len(gone) > 0 {
			if err := s.flush(ctx); err != nil {
				return nil, err
			}
		}
		if err := s.forget(ctx, gone); err != nil {
			return nil, err
		}
		added, err := s.add(ctx, nil, add)
		if err != nil {
			return append(added, gone...), err
		}
		kept, err := s.keepCaptured(ctx, c)
		return append(append(added, gone...), kept...), err
	case len(paths) > 0 && len(specs) == 0:
		return nil, nil // outside the tree: not recorded
	case indexEnv == nil && (s.watch != nil || c != nil):
		// The watcher knows what may have changed (or knew, when the
		// call ended: c): a scan of just that.
		var changed []string
		var all bool
		switch {
		case c != nil && !c.late:
			changed, all = c.seen, c.all
		case s.watch != nil:
			changed, all = s.watch.changes()
		default:
			all = true
		}
		if c != nil && len(c.skip) > 0 {
			changed = slices.DeleteFunc(changed, func(p string) bool { return c.skip[p] })
		}
		if !all && len(changed) == 0 {
			return nil, nil
		}
		if !all {
			specs = specs[:0]
			for _, r := range changed {
				if repo, ok := s.nestedRepo(r); ok {
					r = repo
				}
				if !slices.Contains(specs, r) {
					specs = append(specs, r)
				}
			}
			// Most of what the watcher names is unchanged since the
			// latest checkpoint (a file rewritten with the same bytes, a
			// temporary file come and gone): told in process, no git.
			if c == nil || len(c.entries) == 0 {
				if specs = s.dropUnchanged(specs); len(specs) == 0 {
					return nil, nil
				}
			}
		}
	}
	if indexEnv == nil {
		// git compares the tree with the index: bring it up to the
		// latest checkpoint first.
		if err := s.flush(ctx); err != nil {
			return nil, err
		}
	}
	args := []string{"status", "--porcelain", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=all"}
	if len(specs) > 0 {
		args = append(append(args, "--"), specs...)
	}
	out, err := s.run(ctx, nil, indexEnv, args...)
	if err != nil {
		return nil, fmt.Errorf("find changes: %w", err)
	}
	listed := parseStatus(out, s.recordable)
	if c != nil && len(c.skip) > 0 {
		listed = slices.DeleteFunc(listed, func(p string) bool { return c.skip[p] })
	}
	added, err := s.addListed(ctx, indexEnv, listed)
	if err != nil || indexEnv != nil {
		return added, err
	}
	kept, err := s.keepCaptured(ctx, c)
	return append(added, kept...), err
}

// parseStatus lists the recordable paths of status -z output.
func parseStatus(out []byte, recordable func(string, bool) bool) []string {
	var add []string
	for _, entry := range bytes.Split(out, []byte{0}) {
		if len(entry) < 4 {
			continue
		}
		rel := string(entry[3:])
		if recordable(rel, entry[0] == 'D' || entry[1] == 'D') {
			add = append(add, rel)
		}
	}
	return add
}

// addListed adds paths status listed (none ignored) to the index and
// returns them. Files go through update-index, which takes each path as
// it is: git add with a pathspec per path matches every path of the tree
// against every pathspec, quadratic in the tree's size (minutes on a
// tree of 80,000 files). Nested repositories ("dir/") go through add,
// which records them as references; so does everything again when
// update-index refuses a path (one that became a directory since).
func (s *Store) addListed(ctx context.Context, indexEnv []string, paths []string) ([]string, error) {
	var files, repos []string
	for _, p := range paths {
		if strings.HasSuffix(p, "/") {
			repos = append(repos, p)
		} else {
			files = append(files, p)
		}
	}
	if len(files) > 0 {
		s.packFiles(ctx, indexEnv, files)
		list := []byte(strings.Join(files, "\x00") + "\x00")
		if _, err := s.run(ctx, list, indexEnv, "update-index", "--add", "--remove", "-z", "--stdin"); err != nil {
			s.opts.Log.Debug("update-index refused a path; adding with git add", "err", err)
			return s.add(ctx, indexEnv, paths)
		}
	}
	if _, err := s.add(ctx, indexEnv, repos); err != nil {
		return paths, err
	}
	return paths, nil
}

// add adds paths (changed or not) to the index and returns them.
func (s *Store) add(ctx context.Context, indexEnv []string, add []string) ([]string, error) {
	if len(add) == 0 {
		return nil, nil
	}
	list := []byte(strings.Join(add, "\x00"))
	if _, err := s.run(ctx, list, indexEnv, "add", "-A", "--ignore-errors", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
		var ge *gitError
		if errors.As(err, &ge) && strings.Contains(ge.stderr, "ignored by one of your .gitignore") {
			return add, nil // an ignored path named by a file tool: not recorded
		}
		if errors.As(err, &ge) && strings.Contains(ge.stderr, "did not match any files") && indexEnv == nil {
			return s.addAgain(ctx, add) // a file vanished since it was found
		}
		return add, fmt.Errorf("add changes: %w", err)
	}
	return add, nil
}

// addAgain adds paths once more after some vanished while they were
// being recorded: those still there are added, the rest leave the index.
func (s *Store) addAgain(ctx context.Context, paths []string) ([]string, error) {
	var here, gone []string
	for _, p := range paths {
		if _, err := os.Lstat(filepath.Join(s.opts.Tree, filepath.FromSlash(strings.TrimSuffix(p, "/")))); err == nil {
			here = append(here, p)
		} else {
			gone = append(gone, p)
		}
	}
	if err := s.forget(ctx, gone); err != nil {
		return paths, err
	}
	if len(here) == 0 {
		return paths, nil
	}
	list := []byte(strings.Join(here, "\x00"))
	if _, err := s.run(ctx, list, nil, "add", "-A", "--ignore-errors", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
		return paths, fmt.Errorf("add changes: %w", err)
	}
	return paths, nil
}

// forget removes paths that no longer exist from the index, those it
// holds (a path named by a tool may never have been recorded: git add
// would refuse it).
func (s *Store) forget(ctx context.Context, gone []string) error {
	if len(gone) == 0 {
		return nil
	}
	list := []byte(strings.Join(gone, "\x00"))
	if _, err := s.run(ctx, list, nil, "rm", "-r", "-q", "--cached", "--ignore-unmatch", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
		return fmt.Errorf("record removals: %w", err)
	}
	return nil
}

// recordable says whether a changed path may go into the shadow: allowed
// by the policy and, unless deleted, not over the size limit.
func (s *Store) recordable(rel string, deleted bool) bool {
	abs := filepath.Join(s.opts.Tree, filepath.FromSlash(strings.TrimSuffix(rel, "/")))
	if s.opts.Allowed != nil && !s.opts.Allowed(abs) {
		return false
	}
	if strings.HasSuffix(rel, "/") && !deleted && !hasCommit(abs) {
		// A nested repository is recorded as a reference to its commit;
		// one without any (git init, a fresh workspace) has nothing to
		// refer to, and git refuses to add it.
		return false
	}
	if deleted || s.opts.MaxFileSize <= 0 {
		return true
	}
	fi, err := os.Lstat(abs)
	return err != nil || !fi.Mode().IsRegular() || fi.Size() <= s.opts.MaxFileSize
}

// nestedRepo returns the nested repository (a directory below the tree
// holding .git) that rel lies inside, relative to the tree.
func (s *Store) nestedRepo(rel string) (string, bool) {
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		dir := strings.Join(parts[:i], "/")
		if _, err := os.Lstat(filepath.Join(s.opts.Tree, filepath.FromSlash(dir), ".git")); err == nil {
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

// rel turns a path into a pathspec relative to the tree.
func (s *Store) rel(p string) string {
	if !filepath.IsAbs(p) {
		return filepath.ToSlash(p)
	}
	r, err := filepath.Rel(s.opts.Tree, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(r)
}

// oneLine is the first non-empty line of s, at most 120 characters.
func oneLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			if r := []rune(line); len(r) > 120 {
				return string(r[:120]) + "…"
			}
			return line
		}
	}
	return ""
}

// commit writes the index as a tree and, if it differs from the latest
// checkpoint's, commits it with msg and moves HEAD. Plumbing, not git
// commit: no refresh of the whole index, no hooks, three fewer scans.
func (s *Store) commit(ctx context.Context, msg string) (bool, error) {
	out, err := s.run(ctx, nil, nil, "write-tree")
	if err != nil {
		return false, fmt.Errorf("record checkpoint: %w", err)
	}
	tree := strings.TrimSpace(string(out))
	args := []string{"commit-tree", tree}
	if head, err := s.run(ctx, nil, nil, "rev-parse", "HEAD", "HEAD^{tree}"); err == nil {
		f := strings.Fields(string(head))
		if len(f) == 2 && f[1] == tree {
			return false, nil
		}
		args = append(args, "-p", f[0])
	}
	c, err := s.run(ctx, []byte(msg), nil, args...)
	if err != nil {
		return false, fmt.Errorf("record checkpoint: %w", err)
	}
	if _, err := s.run(ctx, nil, nil, "update-ref", "HEAD", strings.TrimSpace(string(c))); err != nil {
		return false, fmt.Errorf("record checkpoint: %w", err)
	}
	return true, nil
}
