package checkpoint

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Restore is one path an undo puts back: Remove it (it did not exist
// before the checkpoint), or write Data with Mode (0o644, 0o755, or
// ModeSymlink with Data the link's target).
type Restore struct {
	Path    string // relative to the tree, slash-separated
	Remove  bool
	Symlink bool
	Exec    bool
	Data    []byte
}

// Plan works out what undoing checkpoint id (the latest when empty) at
// path (everywhere when empty) restores: every path the checkpoint
// changed, as it was just before it. The caller writes the files (through
// its path policy) and then records the undo.
func (s *Store) Plan(ctx context.Context, id, path string) (string, []Restore, error) {
	var rs []Restore
	err := s.locked(func() error {
		if id == "" {
			latest, err := s.hist.latestID(ctx)
			if err != nil {
				return err
			}
			id = latest
		}
		commit, err := s.hist.find(ctx, id)
		if err != nil {
			return err
		}
		rs, err = s.hist.plan(ctx, id, commit, path)
		return err
	})
	return id, rs, err
}

// ErrNoParent is wrapped when the checkpoint has no earlier state kept.
var ErrNoParent = fmt.Errorf("no earlier state")

// plan is Plan under the lock, for the checkpoint id at commit.
func (h *history) plan(ctx context.Context, id, commit, path string) ([]Restore, error) {
	p, err := h.repo.parent(ctx, commit)
	if err != nil {
		return nil, fmt.Errorf("%w: %s is the oldest checkpoint kept (the state when recording began, or the edge of pruning); there is no earlier state to restore", ErrNoParent, id)
	}
	paths, err := h.changed(ctx, p, commit, path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", id, err)
	}
	if len(paths) == 0 {
		return nil, nil
	}
	return h.before(ctx, p, paths)
}

// changed lists the files that differ between commits a and b, at or
// below path ("" for all): in process where both are loose, else by git.
func (h *history) changed(ctx context.Context, a, b, path string) ([]string, error) {
	rel := ""
	if path != "" {
		rel = h.tree.rel(path)
	}
	if trees, ok := h.repo.looseTrees(a, b); ok {
		if paths, err := h.repo.changedFiles(trees[0], trees[1], rel); err == nil {
			return paths, nil
		}
	}
	args := []string{"diff-tree", "-r", "-z", "--no-renames", "--name-only", a, b}
	if rel != "" {
		args = append(args, "--", rel)
	}
	out, err := h.repo.run(ctx, nil, nil, args...)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range bytes.Split(out, []byte{0}) {
		if len(f) > 0 {
			paths = append(paths, string(f))
		}
	}
	return paths, nil
}

// before reads paths as they are in commit: content and mode, or absent;
// in process where the objects are loose, else by git.
func (h *history) before(ctx context.Context, commit string, paths []string) ([]Restore, error) {
	if rs, ok := h.repo.looseBefore(commit, paths); ok {
		return rs, nil
	}
	out, err := h.repo.run(ctx, nil, nil, append([]string{"ls-tree", "-z", "--full-tree", commit, "--"}, paths...)...)
	if err != nil {
		return nil, fmt.Errorf("read tree: %w", err)
	}
	type entry struct{ mode, hash string }
	found := map[string]entry{}
	var hashes []string
	for _, rec := range bytes.Split(out, []byte{0}) {
		meta, p, ok := strings.Cut(string(rec), "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[1] != "blob" {
			continue
		}
		found[p] = entry{f[0], f[2]}
		hashes = append(hashes, f[2])
	}
	blobs, err := h.blobs(ctx, hashes)
	if err != nil {
		return nil, err
	}
	rs := make([]Restore, 0, len(paths))
	for _, p := range paths {
		e, ok := found[p]
		if !ok {
			rs = append(rs, Restore{Path: p, Remove: true})
			continue
		}
		rs = append(rs, Restore{Path: p, Data: blobs[e.hash], Symlink: e.mode == "120000", Exec: e.mode == "100755"})
	}
	return rs, nil
}

// blobs reads blobs by hash with one cat-file --batch.
func (h *history) blobs(ctx context.Context, hashes []string) (map[string][]byte, error) {
	m := map[string][]byte{}
	if len(hashes) == 0 {
		return m, nil
	}
	out, err := h.repo.run(ctx, []byte(strings.Join(hashes, "\n")+"\n"), nil, "cat-file", "--batch")
	if err != nil {
		return nil, fmt.Errorf("read contents: %w", err)
	}
	r := bufio.NewReader(bytes.NewReader(out))
	for range hashes {
		header, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("read contents: %w", err)
		}
		f := strings.Fields(header)
		if len(f) != 3 {
			return nil, fmt.Errorf("read contents: unexpected %q", header)
		}
		size, _ := strconv.Atoi(f[2])
		data := make([]byte, size)
		if _, err := io.ReadFull(r, data); err != nil {
			return nil, fmt.Errorf("read contents: %w", err)
		}
		_, _ = r.ReadByte() // the newline after the contents
		m[f[0]] = data
	}
	return m, nil
}
