package checkpoint

import (
	"strings"
)

// Undo reads two checkpoints' trees in process where their objects are
// loose files (every checkpoint until a prune packs them): which files
// one changed, and what they held before. Where an object is packed,
// errNotLoose sends the caller to git.

// entryKey is an entry's place in git's order: a tree sorts as if its
// name ended in "/".
func entryKey(e treeEntry) string {
	if e.mode == modeTree {
		return e.name + "/"
	}
	return e.name
}

// treeEntries reads tree's entries; none for the zero oid (a side a
// directory is missing from).
func (s *shadow) treeEntries(tree oid) ([]treeEntry, error) {
	if tree == (oid{}) {
		return nil, nil
	}
	data, err := s.readObject(tree, "tree")
	if err != nil {
		return nil, err
	}
	return parseTree(data)
}

// changedFiles lists the files (and nested repositories' references)
// that differ between trees a and b, at or below rel ("" or "." for
// all), in git's order: what git diff-tree -r --name-only a b -- rel
// lists, rel taken literally.
func (s *shadow) changedFiles(a, b oid, rel string) ([]string, error) {
	if rel == "." {
		rel = ""
	}
	var out []string
	err := s.diffTrees(a, b, "", rel, &out)
	return out, err
}

// diffTrees appends to out the files that differ between trees a and b,
// which sit at prefix ("" or "dir/"), keeping those at or below rel.
func (s *shadow) diffTrees(a, b oid, prefix, rel string, out *[]string) error {
	ea, err := s.treeEntries(a)
	if err != nil {
		return err
	}
	eb, err := s.treeEntries(b)
	if err != nil {
		return err
	}
	for i, j := 0, 0; i < len(ea) || j < len(eb); {
		var x, y *treeEntry
		switch {
		case j == len(eb) || i < len(ea) && entryKey(ea[i]) < entryKey(eb[j]):
			x, i = &ea[i], i+1
		case i == len(ea) || entryKey(eb[j]) < entryKey(ea[i]):
			y, j = &eb[j], j+1
		default:
			x, y, i, j = &ea[i], &eb[j], i+1, j+1
		}
		e := x
		if e == nil {
			e = y
		}
		path := prefix + e.name
		if rel != "" && path != rel && !strings.HasPrefix(rel, path+"/") && !strings.HasPrefix(path, rel+"/") {
			continue // neither at, above nor below rel
		}
		if e.mode != modeTree {
			if x == nil || y == nil || x.id != y.id || x.mode != y.mode {
				*out = append(*out, path)
			}
			continue
		}
		var ta, tb oid
		if x != nil {
			ta = x.id
		}
		if y != nil {
			tb = y.id
		}
		if ta == tb {
			continue
		}
		if err := s.diffTrees(ta, tb, path+"/", rel, out); err != nil {
			return err
		}
	}
	return nil
}

// fileAt reads the file at rel in tree: its entry and contents; found is
// false when tree holds no file there (nothing, a directory or a nested
// repository's reference).
func (s *shadow) fileAt(tree oid, rel string) (e treeEntry, data []byte, found bool, err error) {
	e, found, err = s.lookup(tree, strings.Split(rel, "/"))
	if err != nil || !found || e.mode == modeTree || e.mode == modeGitlink {
		return e, nil, false, err
	}
	data, err = s.readObject(e.id, "blob")
	if err != nil {
		return e, nil, false, err
	}
	return e, data, true, nil
}

// looseTrees returns the trees of commits (hex ids), read in process;
// false when one is not a loose commit.
func (s *shadow) looseTrees(commits ...string) ([]oid, bool) {
	trees := make([]oid, 0, len(commits))
	for _, c := range commits {
		id, err := parseOID(c)
		if err != nil {
			return nil, false
		}
		t, err := s.commitTree(id)
		if err != nil {
			return nil, false
		}
		trees = append(trees, t)
	}
	return trees, true
}

// looseBefore reads paths as they are in commit's tree, in process (see
// history.before); false when an object on the way is not loose.
func (s *shadow) looseBefore(commit string, paths []string) ([]Restore, bool) {
	trees, ok := s.looseTrees(commit)
	if !ok {
		return nil, false
	}
	rs := make([]Restore, 0, len(paths))
	for _, p := range paths {
		e, data, found, err := s.fileAt(trees[0], p)
		if err != nil {
			return nil, false
		}
		if !found {
			rs = append(rs, Restore{Path: p, Remove: true})
			continue
		}
		rs = append(rs, Restore{Path: p, Data: data, Symlink: e.mode == modeSymlink, Exec: e.mode == modeExec})
	}
	return rs, true
}
