package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mjkoo/boris/internal/gitenv"
)

// Diff returns a unified diff: with id, the change checkpoint id made;
// without, the working tree against the latest checkpoint (what changed
// since, not yet recorded). path restricts it.
func (s *Store) Diff(ctx context.Context, id, path string) (string, error) {
	var out []byte
	err := s.locked(func() error {
		var pathspec []string
		if path != "" {
			pathspec = []string{"--", s.rel(path)}
		}
		if id != "" {
			commit, err := s.hist.find(ctx, id)
			if err != nil {
				return err
			}
			out, err = s.run(ctx, nil, nil, append(append(append([]string{"show", "--format=", "--patch"}, gitenv.DiffArgs...), commit), pathspec...)...)
			return err
		}
		if _, err := s.hist.latest(ctx); err != nil {
			return err
		}
		var err error
		out, err = s.worktreeDiff(ctx, path, pathspec)
		return err
	})
	return string(out), err
}

// worktreeDiff stages the tree's changes into a copy of the index and
// diffs that against the latest checkpoint, so new files show too and
// the shadow's own index is left as it was.
func (s *Store) worktreeDiff(ctx context.Context, path string, pathspec []string) ([]byte, error) {
	if err := s.flush(ctx); err != nil {
		return nil, err
	}
	tmp, name, err := s.root.CreateTemp("diff-index-")
	if err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	defer s.root.Remove(name)
	index, err := s.root.OpenFile("index", os.O_RDONLY, 0)
	if err == nil {
		_, err = io.Copy(tmp, index)
		index.Close()
	}
	tmp.Close()
	switch {
	case errors.Is(err, os.ErrNotExist):
		_ = s.root.Remove(name) // no index yet: git starts an empty one
	case err != nil:
		return nil, fmt.Errorf("diff: %w", err)
	}
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(s.dir, name)}
	var paths []string
	if path != "" {
		paths = []string{path}
	}
	if _, err := s.staging().scanInto(ctx, env, paths); err != nil {
		return nil, err
	}
	return s.run(ctx, nil, env, append(append([]string{"diff", "--cached"}, gitenv.DiffArgs...), append([]string{"HEAD"}, pathspec...)...)...)
}
