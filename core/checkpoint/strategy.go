package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// strategy is how a recording through git finds what changed in the
// tree. Each entry point says which it takes (Store.strategyFor,
// Capture.strategy, RecordStart); staging.stage runs it. The fourth way
// to record, in process with no git, has an entry point of its own:
// RecordFiles (fast.go), which falls back to named (ErrSlow).
type strategy int

const (
	// named: the caller names the paths it changed (a file tool, an
	// undo): those are added or removed as they are, and nothing else is
	// looked at.
	named strategy = iota + 1
	// watched: the watcher names what may have changed since the last
	// recording (or named it when the call ended: a Capture); what it
	// names is compared in process with the latest checkpoint, and git
	// status looks at what may differ. When the watcher cannot say, the
	// whole tree.
	watched
	// wholeTree: git status compares the whole tree with the latest
	// checkpoint (no watcher; the start).
	wholeTree
)

// strategyFor is how a recording of paths finds what changed: the paths
// themselves when there are any; else what the watcher saw or, without
// one, the whole tree.
func (s *Store) strategyFor(paths []string) strategy {
	switch {
	case len(paths) > 0:
		return named
	case s.watch != nil:
		return watched
	}
	return wholeTree
}

// staging stages what a recording takes in an index, by the recording's
// strategy. It is made for one recording, under the lock (Store.staging):
// watch is the watcher then.
type staging struct {
	repo  *shadow
	tree  worktree
	watch *watcher // nil: no watcher
}

// staging is the staging of a recording made now.
func (s *Store) staging() staging {
	return staging{repo: s.shadow, tree: s.worktree, watch: s.watch}
}

// stage adds to the shadow's index what changed, found by how: at paths
// (named), or as c captured it when c is not nil. It returns the paths it
// added.
func (st staging) stage(ctx context.Context, how strategy, paths []string, c *Capture) ([]string, error) {
	switch how {
	case named:
		return st.named(ctx, st.tree.inside(paths), c)
	case watched:
		specs, all := st.dirty(c)
		if !all && len(specs) == 0 {
			return nil, nil // nothing may have changed
		}
		return st.scan(ctx, specs, c)
	case wholeTree:
		return st.scan(ctx, nil, c)
	}
	return nil, fmt.Errorf("record checkpoint: no recording strategy %d", how)
}

// named stages the paths the caller named (specs, tree-relative) as they
// are: no scan. With a capture, what the watcher says about them since is
// read after git has added them (keepCaptured).
func (st staging) named(ctx context.Context, specs []string, c *Capture) ([]string, error) {
	if c == nil {
		st.watched(specs)
	}
	var add, gone []string
	for _, r := range specs {
		// A path inside a nested repository is recorded as that
		// repository (a reference), as a scan would find it.
		if repo, ok := st.tree.nestedRepo(r); ok {
			r = repo + "/"
		}
		_, err := os.Lstat(filepath.Join(st.tree.treeDir, filepath.FromSlash(r)))
		if !st.tree.recordable(r, err != nil) || slices.Contains(add, r) || slices.Contains(gone, r) {
			continue
		}
		if err != nil {
			gone = append(gone, r)
		} else {
			add = append(add, r)
		}
	}
	if len(add)+len(gone) > 0 {
		if err := st.repo.flush(ctx); err != nil {
			return nil, err
		}
	}
	if err := st.repo.forget(ctx, gone); err != nil {
		return nil, err
	}
	added, err := st.repo.add(ctx, nil, add)
	if err != nil {
		return append(added, gone...), err
	}
	kept, err := st.keepCaptured(ctx, c)
	return append(append(added, gone...), kept...), err
}

// dirty is what the watched strategy scans: what the capture named when
// the call ended (c, unless late) or the watcher names now, each path
// inside a nested repository named as that repository, less those a
// comparison in process finds unchanged since the latest checkpoint. all
// is true when it cannot say: the whole tree is scanned.
func (st staging) dirty(c *Capture) (specs []string, all bool) {
	var changed []string
	switch {
	case c != nil && !c.late:
		changed, all = c.seen, c.all
	case st.watch != nil:
		changed, all = st.watch.changes()
	default:
		all = true
	}
	if c != nil && len(c.skip) > 0 {
		changed = slices.DeleteFunc(changed, func(p string) bool { return c.skip[p] })
	}
	if all || len(changed) == 0 {
		return nil, all
	}
	for _, r := range changed {
		if repo, ok := st.tree.nestedRepo(r); ok {
			r = repo
		}
		if !slices.Contains(specs, r) {
			specs = append(specs, r)
		}
	}
	// Most of what the watcher names is unchanged since the latest
	// checkpoint (a file rewritten with the same bytes, a temporary file
	// come and gone): told in process, no git.
	if c == nil || len(c.entries) == 0 {
		specs = st.dropUnchanged(specs)
	}
	return specs, false
}

// scan stages in the shadow's index what git status finds changed at
// specs (the whole tree with none), then what c kept of the call's.
func (st staging) scan(ctx context.Context, specs []string, c *Capture) ([]string, error) {
	// git compares the tree with the index: bring it up to the latest
	// checkpoint first.
	if err := st.repo.flush(ctx); err != nil {
		return nil, err
	}
	listed, err := st.status(ctx, nil, specs)
	if err != nil {
		return nil, err
	}
	if c != nil && len(c.skip) > 0 {
		listed = slices.DeleteFunc(listed, func(p string) bool { return c.skip[p] })
	}
	added, err := st.repo.addListed(ctx, nil, listed)
	if err != nil {
		return added, err
	}
	kept, err := st.keepCaptured(ctx, c)
	return append(added, kept...), err
}

// scanInto stages what changed at paths (the whole tree with none) in
// the index indexEnv names instead of the shadow's, which it leaves as it
// is: the whole-tree strategy for a diff of what is not recorded yet.
func (st staging) scanInto(ctx context.Context, indexEnv []string, paths []string) ([]string, error) {
	specs := st.tree.inside(paths)
	if len(paths) > 0 && len(specs) == 0 {
		return nil, nil // outside the tree: not recorded
	}
	listed, err := st.status(ctx, indexEnv, specs)
	if err != nil {
		return nil, err
	}
	return st.repo.addListed(ctx, indexEnv, listed)
}

// status lists the recordable paths git status finds changed at specs
// (the whole tree with none), against the index indexEnv names (nil: the
// shadow's).
func (st staging) status(ctx context.Context, indexEnv []string, specs []string) ([]string, error) {
	args := []string{"status", "--porcelain", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=all"}
	if len(specs) > 0 {
		args = append(append(args, "--"), specs...)
	}
	out, err := st.repo.run(ctx, nil, indexEnv, args...)
	if err != nil {
		return nil, fmt.Errorf("find changes: %w", err)
	}
	return parseStatus(out, st.tree.recordable), nil
}

// watched tells the watcher that paths have just been recorded, so the
// next recording without paths need not look at them again.
func (st staging) watched(paths []string) {
	if st.watch == nil {
		return
	}
	st.watch.drain()
	st.watch.forgetPending(paths)
}

// maxCompare bounds the files dropUnchanged reads to compare: a larger
// one is left to git.
const maxCompare = 8 << 20

// dropUnchanged returns the paths (tree-relative) that may differ from the
// latest checkpoint, dropping, in process, those that do not: a file or
// link with the recorded mode and bytes, a path absent from both. It
// keeps whatever it cannot tell (directories, large files, objects not
// stored loose), for git to compare.
func (st staging) dropUnchanged(rels []string) []string {
	_, head, err := st.repo.readHead()
	if err != nil {
		return rels
	}
	root, err := st.repo.commitTree(head)
	if err != nil {
		return rels
	}
	keep := rels[:0:0]
	for _, rel := range rels {
		if !st.unchanged(root, rel) {
			keep = append(keep, rel)
		}
	}
	return keep
}

// unchanged reports whether rel on disk is exactly what tree records.
func (st staging) unchanged(tree oid, rel string) bool {
	e, found, err := st.repo.lookup(tree, strings.Split(rel, "/"))
	if err != nil {
		return false
	}
	abs := filepath.Join(st.tree.treeDir, filepath.FromSlash(rel))
	mode, data, err := st.tree.readTreeFile(abs, maxCompare)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return !found
	case errors.Is(err, errNotFile) && !found:
		// git records no directory that holds no file: one made where the
		// checkpoint has nothing (another session's private temporary
		// directory, a mkdir) changes nothing it records.
		return noFileBelow(abs)
	}
	return err == nil && found && e.mode == mode && hashObject("blob", data) == e.id
}

// maxEmptyWalk bounds the entries noFileBelow reads before it leaves the
// directory to git.
const maxEmptyWalk = 64

// noFileBelow reports whether abs is a directory with nothing but
// directories below it (at most maxEmptyWalk of them), links not
// followed: what git would record there is nothing.
func noFileBelow(abs string) bool {
	seen := 0
	err := filepath.WalkDir(abs, func(_ string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case !d.IsDir():
			return errNotFile
		}
		if seen++; seen > maxEmptyWalk {
			return errNotFile
		}
		return nil
	})
	return err == nil
}
