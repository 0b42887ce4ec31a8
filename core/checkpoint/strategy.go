package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

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

// maxCompare bounds the files dropUnchanged reads to compare: a larger
// one is left to git.
const maxCompare = 8 << 20

// dropUnchanged returns the paths (tree-relative) that may differ from the
// latest checkpoint, dropping, in process, those that do not: a file or
// link with the recorded mode and bytes, a path absent from both. It
// keeps whatever it cannot tell (directories, large files, objects not
// stored loose), for git to compare.
func (s *Store) dropUnchanged(rels []string) []string {
	_, head, err := s.readHead()
	if err != nil {
		return rels
	}
	root, err := s.commitTree(head)
	if err != nil {
		return rels
	}
	keep := rels[:0:0]
	for _, rel := range rels {
		if !s.unchanged(root, rel) {
			keep = append(keep, rel)
		}
	}
	return keep
}

// unchanged reports whether rel on disk is exactly what tree records.
func (s *Store) unchanged(tree oid, rel string) bool {
	e, found, err := s.lookup(tree, strings.Split(rel, "/"))
	if err != nil {
		return false
	}
	mode, data, err := s.readTreeFile(filepath.Join(s.opts.Tree, filepath.FromSlash(rel)), maxCompare)
	if errors.Is(err, os.ErrNotExist) {
		return !found
	}
	return err == nil && found && e.mode == mode && hashObject("blob", data) == e.id
}
