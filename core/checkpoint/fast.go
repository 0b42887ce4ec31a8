package checkpoint

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mjkoo/boris/internal/gitenv"
)

// ErrSlow is returned by RecordFiles when the change cannot be recorded
// in process: a path the latest checkpoint does not hold as a file (new,
// so whether .gitignore leaves it out is git's to say), inside a nested
// repository or .git, refused, over the size limit, or not a file or
// link. The caller records it through git (Record).
var ErrSlow = errors.New("recorded through git")

// RecordFiles records the change a file tool has just made to paths (that
// now hold the call's bytes) in process, before the call answers: each
// file's contents as a blob, the trees on its path, and a commit, with
// no git process. It returns nil when nothing changed and ErrSlow when
// the change must be recorded through git instead.
func (s *Store) RecordFiles(tool, summary string, paths ...string) (*Checkpoint, error) {
	var cp *Checkpoint
	err := s.lockedFiles(func() (err error) {
		cp, err = s.recordFiles(tool, summary, paths)
		return err
	})
	return cp, err
}

// fileEntry is one path a recording in process sets.
type fileEntry struct {
	rel  string
	mode string
	id   oid
}

func (s *Store) recordFiles(tool, summary string, paths []string) (*Checkpoint, error) {
	ref, head, err := s.readHead()
	if errors.Is(err, errNoHead) {
		return nil, ErrSlow // the first checkpoint: git records the whole tree
	}
	if err != nil {
		return nil, err
	}
	root, err := s.commitTree(head)
	if errors.Is(err, errNotLoose) {
		return nil, ErrSlow
	}
	if err != nil {
		return nil, err
	}
	var entries []fileEntry
	var rels []string
	newRoot := root
	for _, p := range paths {
		e, err := s.fileEntry(p)
		if err != nil {
			return nil, err
		}
		if newRoot, err = s.setPath(newRoot, strings.Split(e.rel, "/"), e); err != nil {
			return nil, err
		}
		entries, rels = append(entries, e), append(rels, e.rel)
	}
	s.staging().watched(rels)
	if newRoot == root {
		return nil, nil
	}
	seq := s.readInt("seq") + 1
	commit, err := s.writeObject("commit", commitBody(newRoot, head, s.message(tool, summary, seq, false), time.Now()))
	if err != nil {
		return nil, err
	}
	if err := s.addPending(entries); err != nil {
		return nil, err
	}
	// In place: a ref is always 41 bytes, and only Boris, holding the
	// lock, reads or writes it.
	if err := s.root.Overwrite(ref, []byte(commit.String()+"\n"), 0o644); err != nil {
		return nil, fmt.Errorf("record checkpoint: %w", err)
	}
	if err := s.writeInt("seq", seq); err != nil {
		return nil, err
	}
	if err := s.writeInt("count", s.readInt("count")+1); err != nil {
		return nil, err
	}
	return &Checkpoint{ID: idPrefix + strconv.Itoa(seq), Tool: tool, Summary: oneLine(summary)}, nil
}

// fileEntry reads the file or link at p, which a tool has just written,
// as a blob of the shadow: ErrSlow when it is not one the fast path takes.
func (s *Store) fileEntry(p string) (fileEntry, error) {
	rel := s.rel(p)
	if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) || !s.capturable(rel) {
		return fileEntry{}, ErrSlow
	}
	abs := filepath.Join(s.opts.Tree, filepath.FromSlash(rel))
	mode, data, err := s.readTreeFile(abs, s.opts.MaxFileSize)
	if err != nil {
		return fileEntry{}, ErrSlow // vanished (git forgets it), too large, not a file
	}
	id, err := s.writeObject("blob", data)
	if err != nil {
		return fileEntry{}, err
	}
	return fileEntry{rel: rel, mode: mode, id: id}, nil
}

// commitBody is a commit object's body, as git commit-tree writes it;
// the zero parent makes a commit without one (the first checkpoint).
func commitBody(tree, parent oid, msg string, now time.Time) []byte {
	who := fmt.Sprintf("%s <%s> %d %s", gitenv.Name, gitenv.Email, now.Unix(), now.Format("-0700"))
	body := fmt.Appendf(nil, "tree %s\n", tree)
	if parent != (oid{}) {
		body = fmt.Appendf(body, "parent %s\n", parent)
	}
	return fmt.Appendf(body, "author %s\ncommitter %s\n\n%s", who, who, msg)
}
