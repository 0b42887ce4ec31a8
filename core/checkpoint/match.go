package checkpoint

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
)

// recordedBefore reports whether the tree has a checkpoint already: read
// in process where the shadow's HEAD is a loose ref, else asked of git.
func (s *Store) recordedBefore(ctx context.Context) bool {
	if _, _, err := s.readHead(); err == nil {
		return true
	}
	return s.HasCheckpoints(ctx)
}

// Bounds of matchesHead: a larger tree is left to git's status, which
// compares its index's file times rather than every file's bytes.
const (
	maxMatchFiles = 2000
	maxMatchBytes = 32 << 20
)

// matchesHead reports whether the tree holds exactly what the latest
// checkpoint records, read in process: every file and link on disk is
// an entry of it with the same mode and bytes, and every entry is on
// disk. Whatever it cannot tell so (no checkpoint yet, objects not
// loose, a file the checkpoint lacks, which .gitignore or the policy may
// leave out, a nested repository, a tree over its bounds) is false: git
// decides.
func (s *Store) matchesHead() bool {
	_, head, err := s.readHead()
	if err != nil {
		return false
	}
	root, err := s.commitTree(head)
	if err != nil {
		return false
	}
	want := map[string]treeEntry{}
	if !s.headEntries(root, "", want) {
		return false
	}
	stateRel := s.stateRel()
	var bytes int64
	err = filepath.WalkDir(s.opts.Tree, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(s.opts.Tree, p)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".":
			return nil
		case d.IsDir() && d.Name() == ".git" && !strings.Contains(rel, "/"):
			return filepath.SkipDir // the tree's own repository: never recorded
		case d.IsDir() && stateRel != "" && rel == stateRel:
			return filepath.SkipDir
		case d.IsDir() && d.Name() == ".git":
			return errNotFile // a nested repository: a reference git makes
		case d.IsDir():
			return nil
		}
		e, ok := want[rel]
		if !ok {
			return errNotFile
		}
		mode, data, err := s.readTreeFile(p, maxCompare)
		if bytes += int64(len(data)); err != nil || bytes > maxMatchBytes || mode != e.mode || hashObject("blob", data) != e.id {
			return errNotFile
		}
		delete(want, rel)
		return nil
	})
	return err == nil && len(want) == 0
}

// headEntries adds the files and links of tree below prefix to into;
// false when it cannot (an object not loose, a nested repository's
// reference, more than maxMatchFiles).
func (s *Store) headEntries(tree oid, prefix string, into map[string]treeEntry) bool {
	data, err := s.readObject(tree, "tree")
	if err != nil {
		return false
	}
	es, err := parseTree(data)
	if err != nil {
		return false
	}
	for _, e := range es {
		rel := prefix + e.name
		switch e.mode {
		case modeTree:
			if !s.headEntries(e.id, rel+"/", into) {
				return false
			}
		case modeFile, modeExec, modeSymlink:
			if into[rel] = e; len(into) > maxMatchFiles {
				return false
			}
		default:
			return false
		}
	}
	return true
}
