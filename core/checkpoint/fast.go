package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mjkoo/boris/internal/gitenv"
)

// ErrSlow is returned by RecordFiles when the change cannot be recorded
// in process: a path the latest checkpoint does not hold as a file (new,
// so whether .gitignore leaves it out is git's to say), inside a nested
// repository or .git, refused, over the size limit, or not a file or
// link. The caller records it through git (Record).
var ErrSlow = errors.New("recorded through git")

// pendingIndex is the shadow file that lists index entries a recording in
// process has committed but not yet put into the shadow's index, in the
// input format of git update-index -z --index-info. Every operation under
// the lock that runs git applies it first (flush), so git's view of the
// index always matches the latest checkpoint.
const pendingIndex = "index-pending"

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

// fileEntry is one path a recording in process sets.
type fileEntry struct {
	rel  string
	mode string
	id   oid
}

func (s *Store) recordFiles(tool, summary string, paths []string) (*Checkpoint, error) {
	ref, head, err := s.readHead()
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
	s.watched(rels)
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

// readHead reads the ref HEAD names and the commit it holds, from loose
// files; ErrSlow when there is none yet or it is packed.
func (s *Store) readHead() (ref string, commit oid, err error) {
	head, err := s.root.ReadFile("HEAD", 4096)
	if err != nil {
		return "", oid{}, fmt.Errorf("read shadow HEAD: %w", err)
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: ")
	if !ok || !strings.HasPrefix(ref, "refs/heads/") || strings.Contains(ref, "..") {
		return "", oid{}, ErrSlow // detached or odd: git's to handle
	}
	data, err := s.root.ReadFile(ref, 4096)
	if err != nil {
		return "", oid{}, ErrSlow // no checkpoint yet, or a packed ref
	}
	commit, err = parseOID(strings.TrimSpace(string(data)))
	if err != nil {
		return "", oid{}, ErrSlow
	}
	return ref, commit, nil
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

// errNotFile is returned by readTreeFile for what is neither a file nor
// a link, or is over its limit.
var errNotFile = errors.New("not a file or link the checkpoints take as it is")

// readTreeFile reads the file or link at abs as a checkpoint records it:
// its mode and bytes (a link's target). It fails with an error wrapping
// os.ErrNotExist when nothing is there, and errNotFile for a directory,
// anything else, or a file over limit (0: none).
func (s *Store) readTreeFile(abs string, limit int64) (mode string, data []byte, err error) {
	var st unix.Stat_t
	if err := unix.Lstat(abs, &st); err != nil {
		return "", nil, &os.PathError{Op: "lstat", Path: abs, Err: err}
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		target, err := os.Readlink(abs)
		return modeSymlink, []byte(target), err
	case unix.S_IFREG:
		if limit > 0 && st.Size > limit {
			return "", nil, errNotFile
		}
		mode = modeFile
		if st.Mode&0o100 != 0 {
			mode = modeExec
		}
		data, err = readRegular(abs, st.Size)
		return mode, data, err
	}
	return "", nil, errNotFile
}

// readRegular reads the regular file at abs without following a link
// swapped in or waiting on a FIFO.
func readRegular(abs string, size int64) ([]byte, error) {
	fd, err := unix.Open(abs, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), abs)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, ErrSlow
	}
	var buf bytes.Buffer
	buf.Grow(int(size) + 1)
	_, err = io.Copy(&buf, f)
	return buf.Bytes(), err
}

// setPath returns tree with the file at parts set to e. The latest
// checkpoint must hold a file or link there already (ErrSlow if not):
// whether a new path is recorded at all is .gitignore's, and git's, to say.
func (s *Store) setPath(tree oid, parts []string, e fileEntry) (oid, error) {
	data, err := s.readObject(tree, "tree")
	if errors.Is(err, errNotLoose) {
		return tree, ErrSlow
	}
	if err != nil {
		return tree, err
	}
	es, err := parseTree(data)
	if err != nil {
		return tree, fmt.Errorf("read tree %s: %w", tree, err)
	}
	i := -1
	for j := range es {
		if es[j].name == parts[0] {
			i = j
			break
		}
	}
	if i < 0 {
		return tree, ErrSlow
	}
	switch {
	case len(parts) == 1:
		if es[i].mode != modeFile && es[i].mode != modeExec && es[i].mode != modeSymlink {
			return tree, ErrSlow
		}
		if es[i].mode == e.mode && es[i].id == e.id {
			return tree, nil
		}
		es[i].mode, es[i].id = e.mode, e.id
	case es[i].mode != modeTree:
		return tree, ErrSlow
	default:
		sub, err := s.setPath(es[i].id, parts[1:], e)
		if err != nil || sub == es[i].id {
			return tree, err
		}
		es[i].id = sub
	}
	return s.writeObject("tree", formatTree(es))
}

// commitBody is a commit object's body, as git commit-tree writes it.
func commitBody(tree, parent oid, msg string, now time.Time) []byte {
	who := fmt.Sprintf("%s <%s> %d %s", gitenv.Name, gitenv.Email, now.Unix(), now.Format("-0700"))
	return fmt.Appendf(nil, "tree %s\nparent %s\nauthor %s\ncommitter %s\n\n%s", tree, parent, who, who, msg)
}

// addPending appends entries to the pending index entries.
func (s *Store) addPending(entries []fileEntry) error {
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
func (s *Store) flush(ctx context.Context) error {
	data, err := s.root.ReadFile(pendingIndex, 0)
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(data) == 0) {
		return nil
	}
	if err == nil && len(data) > 0 {
		_, err = s.run(ctx, data, nil, "update-index", "-z", "--index-info")
	}
	if err != nil {
		s.opts.Log.Warn("updating the shadow index failed; reading it from the latest checkpoint", "err", err)
		if _, rerr := s.run(ctx, nil, nil, "read-tree", "HEAD"); rerr != nil {
			return fmt.Errorf("update shadow index: %w", rerr)
		}
	}
	// Emptied, not removed: the next recording appends without creating
	// a file.
	return s.root.Overwrite(pendingIndex, nil, 0o600)
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
	abs := filepath.Join(s.opts.Tree, filepath.FromSlash(rel))
	mode, data, err := s.readTreeFile(abs, maxCompare)
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

// lookup finds the entry at parts below tree; found is false when there
// is none (a path, or one of its directories, absent).
func (s *Store) lookup(tree oid, parts []string) (e treeEntry, found bool, err error) {
	for i, name := range parts {
		data, err := s.readObject(tree, "tree")
		if err != nil {
			return e, false, err
		}
		es, err := parseTree(data)
		if err != nil {
			return e, false, err
		}
		j := slices.IndexFunc(es, func(e treeEntry) bool { return e.name == name })
		if j < 0 {
			return e, false, nil
		}
		if i == len(parts)-1 {
			return es[j], true, nil
		}
		if es[j].mode != modeTree {
			return e, false, nil
		}
		tree = es[j].id
	}
	return e, false, nil
}
