package checkpoint

import (
	"fmt"
	"strings"
)

// History and undo read checkpoints' commits and trees in process where
// their objects are loose files (Boris and git write commits and trees
// loose): which files one changed, and what they held before. Where an
// object is packed (the contents of a recording of many new files, or a
// shadow repacked by hand), errNotLoose sends the caller to git.

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
	changes, err := s.changes(a, b, rel)
	var paths []string
	for _, c := range changes {
		paths = append(paths, c.Path)
	}
	return paths, err
}

// changes is changedFiles with each file's status, as git's
// --name-status says it: A added, D deleted, M modified (contents or
// the executable bit), T its type changed (file, link, nested
// repository).
func (s *shadow) changes(a, b oid, rel string) ([]Change, error) {
	if rel == "." {
		rel = ""
	}
	var out []Change
	err := s.diffTrees(a, b, "", rel, &out)
	return out, err
}

// kindOf is the type a non-tree entry's mode gives: a file (executable
// or not), a link or a nested repository's reference.
func kindOf(mode string) string {
	if mode == modeExec {
		return modeFile
	}
	return mode
}

// diffTrees appends to out the files that differ between trees a and b,
// which sit at prefix ("" or "dir/"), keeping those at or below rel.
func (s *shadow) diffTrees(a, b oid, prefix, rel string, out *[]Change) error {
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
			switch {
			case x == nil:
				*out = append(*out, Change{Status: "A", Path: path})
			case y == nil:
				*out = append(*out, Change{Status: "D", Path: path})
			case kindOf(x.mode) != kindOf(y.mode):
				*out = append(*out, Change{Status: "T", Path: path})
			case x.id != y.id || x.mode != y.mode:
				*out = append(*out, Change{Status: "M", Path: path})
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

// treeMemo reads tree objects for one read of many paths, each tree once
// (the paths of a large command's checkpoint share their directories).
type treeMemo struct {
	s *shadow
	m map[oid][]treeEntry
}

// entries returns tree's entries, read at the first call for it.
func (t *treeMemo) entries(tree oid) ([]treeEntry, error) {
	if es, ok := t.m[tree]; ok {
		return es, nil
	}
	es, err := t.s.treeEntries(tree)
	if err == nil {
		t.m[tree] = es
	}
	return es, err
}

// fileAt reads the file at rel in tree: its entry and contents; found is
// false when tree holds no file there (nothing, a directory or a nested
// repository's reference).
func (t *treeMemo) fileAt(tree oid, rel string) (e treeEntry, data []byte, found bool, err error) {
	e, found, err = lookupIn(t.entries, tree, strings.Split(rel, "/"))
	if err != nil || !found || e.mode == modeTree || e.mode == modeGitlink {
		return e, nil, false, err
	}
	data, err = t.s.readObject(e.id, "blob")
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
	memo := &treeMemo{s: s, m: map[oid][]treeEntry{}}
	rs := make([]Restore, 0, len(paths))
	for _, p := range paths {
		e, data, found, err := memo.fileAt(trees[0], p)
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

// walkLoose calls visit for each checkpoint from HEAD back, newest
// first, with its commit object's body and its parent's (nil for the
// oldest kept), reading each object once, until visit returns false; it
// reports false when HEAD or a commit on the way is not a loose file
// (git's to walk then).
func (s *shadow) walkLoose(visit func(c oid, data, parentData []byte) bool) bool {
	_, c, err := s.readHead()
	if err != nil {
		return false
	}
	data, err := s.readObject(c, "commit")
	if err != nil {
		return false
	}
	for {
		var parent oid
		var parentData []byte
		if p, found := parentOf(data); found {
			if parent, err = parseOID(p); err != nil {
				return false
			}
			if parentData, err = s.readObject(parent, "commit"); err != nil {
				return false
			}
		}
		if !visit(c, data, parentData) || parentData == nil {
			return true
		}
		c, data = parent, parentData
	}
}

// logLoose is history.log read in process: from HEAD back to from, each
// checkpoint whose change touched rel ("" for any), as git log
// --name-status -- rel lists it (the oldest kept against an empty tree);
// false when HEAD, a commit or a tree on the way is not a loose file.
func (s *shadow) logLoose(rel string, limit int, from string) ([]Checkpoint, bool) {
	var cps []Checkpoint
	failed := false
	ok := s.walkLoose(func(c oid, data, parentData []byte) bool {
		tree, err := commitTreeOf(c, data)
		var parentTree oid
		if err == nil && parentData != nil {
			parentTree, err = commitTreeOf(c, parentData)
		}
		var changes []Change
		if err == nil {
			changes, err = s.changes(parentTree, tree, rel)
		}
		if err != nil {
			failed = true
			return false
		}
		if rel == "" || rel == "." || len(changes) > 0 {
			if cp, ok := looseEntry(c, data, changes); ok {
				cps = append(cps, cp)
			}
		}
		return c.String() != from && (limit <= 0 || len(cps) < limit)
	})
	return cps, ok && !failed
}

// looseEntry is the checkpoint commit c (its object's body data) records,
// with changes: the record git log writes in logFormat, parsed as git's.
func looseEntry(c oid, data []byte, changes []Change) (Checkpoint, bool) {
	headers, msg, _ := strings.Cut(string(data), "\n\n")
	when := ""
	for line := range strings.SplitSeq(headers, "\n") {
		if v, ok := strings.CutPrefix(line, "committer "); ok {
			if f := strings.Fields(v); len(f) >= 2 {
				when = f[len(f)-2]
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\x1f%s\x1f%s\x1f\n", c, when, msg)
	for _, ch := range changes {
		fmt.Fprintf(&b, "%s\t%s\n", ch.Status, ch.Path)
	}
	return parseEntry(b.String())
}

// commitTreeOf reads the tree commit c's body data names.
func commitTreeOf(c oid, data []byte) (oid, error) {
	line, _, _ := strings.Cut(string(data), "\n")
	t, ok := strings.CutPrefix(line, "tree ")
	if !ok {
		return oid{}, fmt.Errorf("read commit %s: no tree", c)
	}
	return parseOID(t)
}
