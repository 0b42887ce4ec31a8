package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

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
func (s *shadow) addListed(ctx context.Context, indexEnv []string, paths []string) ([]string, error) {
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
			s.log.Debug("update-index refused a path; adding with git add", "err", err)
			return s.add(ctx, indexEnv, paths)
		}
	}
	if _, err := s.add(ctx, indexEnv, repos); err != nil {
		return paths, err
	}
	return paths, nil
}

// add adds paths (changed or not) to the index and returns them.
func (s *shadow) add(ctx context.Context, indexEnv []string, add []string) ([]string, error) {
	if len(add) == 0 {
		return nil, nil
	}
	list := []byte(strings.Join(add, "\x00"))
	if _, err := s.run(ctx, list, indexEnv, "add", "-A", "--ignore-errors", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
		var ge *gitError
		if errors.As(err, &ge) && strings.Contains(ge.stderr, "ignored by one of your .gitignore") {
			return add, nil // an ignored path named by a file tool: not recorded
		}
		if errors.As(err, &ge) && indexEnv == nil &&
			(strings.Contains(ge.stderr, "did not match any files") || strings.Contains(ge.stderr, "is beyond a symbolic link")) {
			// A file vanished since it was found, or a directory it was in
			// became a link.
			return s.addAgain(ctx, add)
		}
		return add, fmt.Errorf("add changes: %w", err)
	}
	return add, nil
}

// addAgain adds paths once more after some vanished while they were
// being recorded: those still there are added, the rest leave the index.
func (s *shadow) addAgain(ctx context.Context, paths []string) ([]string, error) {
	var here, gone []string
	for _, p := range paths {
		if s.present(strings.TrimSuffix(p, "/")) {
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

// present reports whether rel is in the tree as git sees it: something
// there, under directories only (a path under a link to a directory is
// not in the tree, whatever the link leads to).
func (s *shadow) present(rel string) bool {
	p := s.workDir
	parts := strings.Split(rel, "/")
	for i, part := range parts {
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		if err != nil || i < len(parts)-1 && !fi.IsDir() {
			return false
		}
	}
	return true
}

// forget removes paths that no longer exist from the index, those it
// holds (a path named by a tool may never have been recorded: git add
// would refuse it).
func (s *shadow) forget(ctx context.Context, gone []string) error {
	if len(gone) == 0 {
		return nil
	}
	list := []byte(strings.Join(gone, "\x00"))
	if _, err := s.run(ctx, list, nil, "rm", "-r", "-q", "--cached", "--ignore-unmatch", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
		return fmt.Errorf("record removals: %w", err)
	}
	return nil
}

// commit writes the index as a tree and, if it differs from the latest
// checkpoint's, commits it with msg and moves HEAD. Plumbing, not git
// commit: no refresh of the whole index, no hooks, three fewer scans.
// Where HEAD and its commit are loose files (every recording but the
// first, unless the shadow's refs were packed by hand), the commit object and the ref are
// written in process, as the file tools' recordings write them: two git
// processes fewer per recording.
func (s *shadow) commit(ctx context.Context, msg string) (bool, error) {
	out, err := s.run(ctx, nil, nil, "write-tree")
	if err != nil {
		return false, fmt.Errorf("record checkpoint: %w", err)
	}
	tree := strings.TrimSpace(string(out))
	if done, committed, err := s.commitLoose(tree, msg); done {
		return committed, err
	}
	args := []string{"commit-tree", tree}
	if head, headTree, err := s.headAndTree(ctx); err == nil {
		if headTree == tree {
			return false, nil
		}
		args = append(args, "-p", head)
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

// commitLoose commits tree with msg in process when HEAD names a loose
// ref holding a loose commit, or no ref yet in a shadow without packed
// refs (the first checkpoint); done is false otherwise (git's to do
// then).
func (s *shadow) commitLoose(tree, msg string) (done, committed bool, err error) {
	treeID, err := parseOID(tree)
	if err != nil {
		return false, false, nil
	}
	ref, head, err := s.readHead()
	switch {
	case errors.Is(err, errNoHead):
		// The first checkpoint: a commit with no parent, and the ref
		// created (renamed into place, as git's update-ref does).
		c, err := s.writeObject("commit", commitBody(treeID, oid{}, msg, time.Now()))
		if err == nil {
			err = s.root.WriteFile(ref, []byte(c.String()+"\n"), 0o644)
		}
		if err != nil {
			return true, false, fmt.Errorf("record checkpoint: %w", err)
		}
		return true, true, nil
	case err != nil:
		return false, false, nil
	}
	headTree, err := s.commitTree(head)
	if err != nil {
		return false, false, nil
	}
	if headTree == treeID {
		return true, false, nil
	}
	c, err := s.writeObject("commit", commitBody(treeID, head, msg, time.Now()))
	if err != nil {
		return true, false, fmt.Errorf("record checkpoint: %w", err)
	}
	// In place, as recordFiles: a ref is always 41 bytes, and only
	// Boris, holding the lock, reads or writes it.
	if err := s.root.Overwrite(ref, []byte(c.String()+"\n"), 0o644); err != nil {
		return true, false, fmt.Errorf("record checkpoint: %w", err)
	}
	return true, true, nil
}

// pendingIndex is the shadow file that lists index entries a recording in
// process has committed but not yet put into the shadow's index, in the
// input format of git update-index -z --index-info. Every operation under
// the lock that runs git applies it first (flush), so git's view of the
// index always matches the latest checkpoint.
const pendingIndex = "index-pending"

// addPending appends entries to the pending index entries.
func (s *shadow) addPending(entries []fileEntry) error {
	var buf bytes.Buffer
	for _, e := range entries {
		fmt.Fprintf(&buf, "%s %s\t%s\x00", e.mode, e.id, e.rel)
	}
	f, err := s.root.OpenFile(pendingIndex, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("record checkpoint: %w", err)
	}
	_, err = f.Write(buf.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("record checkpoint: %w", err)
	}
	return nil
}

// flush puts the pending index entries into the shadow's index. When
// that fails, the index is made the latest checkpoint's tree again (its
// cached file times are lost, so the next scan hashes every file): an
// index behind the checkpoints would record an old file back.
func (s *shadow) flush(ctx context.Context) error {
	data, err := s.root.ReadFile(pendingIndex, 0)
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(data) == 0) {
		return nil
	}
	if err == nil && len(data) > 0 {
		_, err = s.run(ctx, data, nil, "update-index", "-z", "--index-info")
	}
	if err != nil {
		s.log.Warn("updating the shadow index failed; reading it from the latest checkpoint", "err", err)
		if _, rerr := s.run(ctx, nil, nil, "read-tree", "HEAD"); rerr != nil {
			return fmt.Errorf("update shadow index: %w", rerr)
		}
	}
	// Emptied, not removed: the next recording appends without creating
	// a file.
	return s.root.Overwrite(pendingIndex, nil, 0o600)
}

// ignored reports which of rels (relative to the tree; a directory with a
// trailing slash) the shadow leaves out: .gitignore, the state directory,
// the board's files and the deny patterns.
func (s *shadow) ignored(ctx context.Context, rels []string) (map[string]bool, error) {
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
