package checkpoint

import (
	"context"
	"fmt"
	"strings"
)

// countAndPrune counts the checkpoint just recorded and, once more than a
// quarter over Keep are kept, rewrites history to the newest Keep and
// deletes the rest, so the shadow's size stays bounded. Ids live in the
// commit messages, so they survive the rewrite.
func (s *Store) countAndPrune(ctx context.Context) error {
	n := s.readInt("count") + 1
	if n <= s.opts.Keep+max(s.opts.Keep/4, 1) {
		return s.writeInt("count", n)
	}
	if err := s.prune(ctx); err != nil {
		return err
	}
	return s.writeInt("count", s.opts.Keep)
}

// PruneDue reports whether more checkpoints are kept than Keep allows:
// recordings in process count but leave pruning to Prune.
func (s *Store) PruneDue() bool {
	return s.readInt("count") > s.opts.Keep+max(s.opts.Keep/4, 1)
}

// Prune prunes old checkpoints if more are kept than Keep allows.
func (s *Store) Prune(ctx context.Context) error {
	return s.locked(func() error {
		if !s.PruneDue() {
			return nil
		}
		if err := s.prune(ctx); err != nil {
			return err
		}
		return s.writeInt("count", s.opts.Keep)
	})
}

// prune rewrites history to its newest Keep commits, the oldest of them
// made parentless, and deletes every object no longer reachable.
func (s *Store) prune(ctx context.Context) error {
	out, err := s.run(ctx, nil, nil, "log", "-n", fmt.Sprint(s.opts.Keep), "--format=%T%x1f%ad%x1f%cd%x1f%B%x1e", "--date=raw", "HEAD")
	if err != nil {
		return err
	}
	recs := strings.Split(string(out), "\x1e")
	parent := ""
	for i := len(recs) - 1; i >= 0; i-- {
		f := strings.SplitN(strings.TrimLeft(recs[i], "\n"), "\x1f", 4)
		if len(f) < 4 {
			continue
		}
		args := []string{"commit-tree", f[0]}
		if parent != "" {
			args = append(args, "-p", parent)
		}
		env := []string{"GIT_AUTHOR_DATE=" + f[1], "GIT_COMMITTER_DATE=" + f[2]}
		c, err := s.run(ctx, []byte(f[3]), env, args...)
		if err != nil {
			return err
		}
		parent = strings.TrimSpace(string(c))
	}
	if parent == "" {
		return nil
	}
	if _, err := s.run(ctx, nil, nil, "update-ref", "HEAD", parent); err != nil {
		return err
	}
	_, err = s.run(ctx, nil, nil, "prune", "--expire=now")
	return err
}
