package checkpoint

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// The shadow's loose objects, read and written in process in git's object
// format (gitformat-loose(5), gitformat-tree): a recording of named files
// runs no git process. Only loose objects are read, and only trees and
// commits: the one pack a large recording writes (packFiles) holds file
// contents alone, gc.auto is off and prune only deletes; an object found
// packed all the same sends the recording back to git (errNotLoose).

// oid is an object's SHA-1 name.
type oid [sha1.Size]byte

func (o oid) String() string { return hex.EncodeToString(o[:]) }

// parseOID parses a 40-digit hex name.
func parseOID(s string) (oid, error) {
	var o oid
	if len(s) != 2*sha1.Size {
		return o, fmt.Errorf("not an object name: %q", s)
	}
	_, err := hex.Decode(o[:], []byte(s))
	return o, err
}

// errNotLoose is wrapped when an object is not among the loose objects.
var errNotLoose = errors.New("object not stored loose")

// maxObject bounds an object read in process: trees and commits are
// small; a larger one is hostile or not ours.
const maxObject = 64 << 20

// objectPath is where a loose object lives below the git directory.
func objectPath(o oid) (dir, name string) {
	h := o.String()
	return "objects/" + h[:2], h[2:]
}

// hashObject is the name git gives an object of kind with data.
func hashObject(kind string, data []byte) oid {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", kind, len(data))
	h.Write(data)
	var o oid
	h.Sum(o[:0])
	return o
}

// writeObject stores data as a loose object of kind, unless it is already
// there, and returns its name.
func (s *shadow) writeObject(kind string, data []byte) (oid, error) {
	o := hashObject(kind, data)
	dir, name := objectPath(o)
	d, err := s.root.Sub(dir, true, 0o755)
	if err != nil {
		return o, fmt.Errorf("write object: %w", err)
	}
	defer d.Close()
	if f, err := d.OpenFile(name, os.O_RDONLY, 0); err == nil {
		f.Close()
		return o, nil
	}
	var buf bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&buf, zlib.BestSpeed) // git's core.looseCompression default
	fmt.Fprintf(zw, "%s %d\x00", kind, len(data))
	zw.Write(data)
	if err := zw.Close(); err != nil {
		return o, fmt.Errorf("write object: %w", err)
	}
	if err := d.WriteFile(name, buf.Bytes(), 0o444); err != nil {
		return o, fmt.Errorf("write object: %w", err)
	}
	return o, nil
}

// readObject reads the loose object o, which must be of kind.
func (s *shadow) readObject(o oid, kind string) ([]byte, error) {
	dir, name := objectPath(o)
	raw, err := s.root.ReadFile(dir+"/"+name, maxObject)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s %s: %w", kind, o, errNotLoose)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", kind, o, err)
	}
	zr, err := zlib.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", kind, o, err)
	}
	data, err := io.ReadAll(io.LimitReader(zr, maxObject+64))
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %w", kind, o, err)
	}
	header, body, ok := bytes.Cut(data, []byte{0})
	k, size, _ := strings.Cut(string(header), " ")
	if n, err := strconv.Atoi(size); !ok || err != nil || k != kind || n != len(body) {
		return nil, fmt.Errorf("read %s %s: not a well-formed %s object", kind, o, kind)
	}
	if hashObject(kind, body) != o {
		return nil, fmt.Errorf("read %s %s: contents do not match the name", kind, o)
	}
	return body, nil
}

// Tree entry modes, as git writes them.
const (
	modeTree    = "40000"
	modeFile    = "100644"
	modeExec    = "100755"
	modeSymlink = "120000"
	modeGitlink = "160000"
)

// treeEntry is one entry of a tree object.
type treeEntry struct {
	mode string
	name string
	id   oid
}

// parseTree parses a tree object's body.
func parseTree(data []byte) ([]treeEntry, error) {
	var es []treeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp <= 0 || nul < sp+2 || len(data) < nul+1+sha1.Size {
			return nil, errors.New("malformed tree object")
		}
		e := treeEntry{mode: string(data[:sp]), name: string(data[sp+1 : nul])}
		copy(e.id[:], data[nul+1:])
		if e.name == "." || e.name == ".." || strings.Contains(e.name, "/") {
			return nil, fmt.Errorf("malformed tree object: entry %q", e.name)
		}
		es = append(es, e)
		data = data[nul+1+sha1.Size:]
	}
	return es, nil
}

// formatTree writes entries as a tree object's body, in git's order
// (a tree sorts as if its name ended in "/").
func formatTree(es []treeEntry) []byte {
	slices.SortFunc(es, func(a, b treeEntry) int { return strings.Compare(entryKey(a), entryKey(b)) })
	var buf bytes.Buffer
	for _, e := range es {
		buf.WriteString(e.mode)
		buf.WriteByte(' ')
		buf.WriteString(e.name)
		buf.WriteByte(0)
		buf.Write(e.id[:])
	}
	return buf.Bytes()
}

// commitTree reads the tree a commit object names.
func (s *shadow) commitTree(c oid) (oid, error) {
	data, err := s.readObject(c, "commit")
	if err != nil {
		return oid{}, err
	}
	return commitTreeOf(c, data)
}

// errNoHead is readHead's answer for a shadow with no checkpoint yet:
// HEAD names a branch that is neither a loose ref nor packed (there are
// no packed refs at all).
var errNoHead = errors.New("no checkpoint has been recorded yet")

// readHead reads the ref HEAD names and the commit it holds, from loose
// files; errNoHead (with the ref) when there is no checkpoint yet, ErrSlow
// when the ref is packed or HEAD is odd.
func (s *shadow) readHead() (ref string, commit oid, err error) {
	head, err := s.root.ReadFile("HEAD", 4096)
	if err != nil {
		return "", oid{}, fmt.Errorf("read shadow HEAD: %w", err)
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: ")
	if !ok || !strings.HasPrefix(ref, "refs/heads/") || strings.Contains(ref, "..") {
		return "", oid{}, ErrSlow // detached or odd: git's to handle
	}
	data, err := s.root.ReadFile(ref, 4096)
	if errors.Is(err, os.ErrNotExist) {
		if _, perr := s.root.ReadFile("packed-refs", 1); errors.Is(perr, os.ErrNotExist) {
			return ref, oid{}, errNoHead // a fresh shadow
		}
	}
	if err != nil {
		return "", oid{}, ErrSlow // a packed ref, or unreadable
	}
	commit, err = parseOID(strings.TrimSpace(string(data)))
	if err != nil {
		return "", oid{}, ErrSlow
	}
	return ref, commit, nil
}

// head returns the latest checkpoint's commit: read in process from the
// loose ref HEAD names (every recording reads it, so no git runs for it),
// or by git when that ref is packed or HEAD is odd. An error when no
// checkpoint was recorded.
func (s *shadow) head(ctx context.Context) (string, error) {
	if _, c, err := s.readHead(); err == nil {
		return c.String(), nil
	} else if errors.Is(err, errNoHead) {
		return "", err
	}
	out, err := s.run(ctx, nil, nil, "rev-parse", "-q", "--verify", "HEAD")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// headAndTree returns the latest checkpoint's commit and the tree it
// holds, in process when both are loose (as head), else by git.
func (s *shadow) headAndTree(ctx context.Context) (commit, tree string, err error) {
	if _, c, err := s.readHead(); err == nil {
		if t, err := s.commitTree(c); err == nil {
			return c.String(), t.String(), nil
		}
	} else if errors.Is(err, errNoHead) {
		return "", "", err
	}
	out, err := s.run(ctx, nil, nil, "rev-parse", "HEAD", "HEAD^{tree}")
	if err != nil {
		return "", "", err
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		return "", "", fmt.Errorf("rev-parse HEAD: unexpected output %q", out)
	}
	return f[0], f[1], nil
}

// parent returns the parent of commit, read in process where the commit
// is a loose file, else by git: an error when it has none (the oldest
// checkpoint kept).
func (s *shadow) parent(ctx context.Context, commit string) (string, error) {
	if c, err := parseOID(commit); err == nil {
		if data, err := s.readObject(c, "commit"); err == nil {
			if p, ok := parentOf(data); ok {
				return p, nil
			}
			return "", fmt.Errorf("commit %s has no parent", commit)
		}
	}
	out, err := s.run(ctx, nil, nil, "rev-parse", "-q", "--verify", commit+"^")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// parentOf returns the first parent a commit object's body names.
func parentOf(commit []byte) (string, bool) {
	headers, _, _ := bytes.Cut(commit, []byte("\n\n"))
	for line := range bytes.SplitSeq(headers, []byte("\n")) {
		if p, found := bytes.CutPrefix(line, []byte("parent ")); found {
			return string(p), true
		}
	}
	return "", false
}

// findLoose looks through the checkpoints from HEAD, newest first, in
// process (walkLoose) for the newest whose message has the line trailer
// (what git log -1 --grep=^trailer$ HEAD finds): its commit, or "" when
// none has. ok is false when a commit on the way is not a loose file.
func (s *shadow) findLoose(trailer string) (commit string, ok bool) {
	ok = s.walkLoose(func(c oid, data, _ []byte) bool {
		_, msg, _ := bytes.Cut(data, []byte("\n\n"))
		for line := range bytes.SplitSeq(msg, []byte("\n")) {
			if string(line) == trailer {
				commit = c.String()
				return false
			}
		}
		return true
	})
	return commit, ok
}

// setPath returns tree with the file at parts set to e. The latest
// checkpoint must hold a file or link there already (ErrSlow if not):
// whether a new path is recorded at all is .gitignore's, and git's, to say.
func (s *shadow) setPath(tree oid, parts []string, e fileEntry) (oid, error) {
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

// lookup finds the entry at parts below tree; found is false when there
// is none (a path, or one of its directories, absent).
func (s *shadow) lookup(tree oid, parts []string) (e treeEntry, found bool, err error) {
	return lookupIn(s.treeEntries, tree, parts)
}

// lookupIn is lookup reading each tree with entries.
func lookupIn(entries func(oid) ([]treeEntry, error), tree oid, parts []string) (e treeEntry, found bool, err error) {
	for i, name := range parts {
		es, err := entries(tree)
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
