package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
			commit, err := s.find(ctx, id)
			if err != nil {
				return err
			}
			out, err = s.run(ctx, nil, nil, append([]string{"show", "--format=", "--patch", "--no-color", commit}, pathspec...)...)
			return err
		}
		if _, err := s.latest(ctx); err != nil {
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
	tmp, err := os.CreateTemp(s.dir, "diff-index-*")
	if err != nil {
		return nil, fmt.Errorf("diff: %w", err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	if data, err := os.ReadFile(filepath.Join(s.dir, "index")); err == nil {
		if err := os.WriteFile(tmp.Name(), data, 0o600); err != nil {
			return nil, fmt.Errorf("diff: %w", err)
		}
	} else {
		os.Remove(tmp.Name())
	}
	env := []string{"GIT_INDEX_FILE=" + tmp.Name()}
	var paths []string
	if path != "" {
		paths = []string{path}
	}
	if _, err := s.stage(ctx, env, paths); err != nil {
		return nil, err
	}
	return s.run(ctx, nil, env, append([]string{"diff", "--cached", "--no-color", "HEAD"}, pathspec...)...)
}
