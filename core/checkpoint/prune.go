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
func (h *history) countAndPrune(ctx context.Context) error {
	n := h.repo.readInt("count") + 1
	if n <= h.keep+max(h.keep/4, 1) {
		return h.repo.writeInt("count", n)
	}
	if err := h.prune(ctx); err != nil {
		return err
	}
	return h.repo.writeInt("count", h.keep)
}

// PruneDue reports whether more checkpoints are kept than Keep allows:
// recordings in process count but leave pruning to Prune.
func (s *Store) PruneDue() bool { return s.hist.pruneDue() }

// pruneDue is PruneDue.
func (h *history) pruneDue() bool {
	return h.repo.readInt("count") > h.keep+max(h.keep/4, 1)
}

// Prune prunes old checkpoints if more are kept than Keep allows.
func (s *Store) Prune(ctx context.Context) error {
	return s.locked(func() error {
		if !s.hist.pruneDue() {
			return nil
		}
		if err := s.hist.prune(ctx); err != nil {
			return err
		}
		return s.writeInt("count", s.opts.Keep)
	})
}

// prune rewrites history to its newest Keep commits, the oldest of them
// made parentless, and deletes every object no longer reachable.
func (h *history) prune(ctx context.Context) error {
	out, err := h.repo.run(ctx, nil, nil, "log", "-n", fmt.Sprint(h.keep), "--format=%T%x1f%ad%x1f%cd%x1f%B%x1e", "--date=raw", "HEAD")
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
		c, err := h.repo.run(ctx, []byte(f[3]), env, args...)
		if err != nil {
			return err
		}
		parent = strings.TrimSpace(string(c))
	}
	if parent == "" {
		return nil
	}
	if _, err := h.repo.run(ctx, nil, nil, "update-ref", "HEAD", parent); err != nil {
		return err
	}
	_, err = h.repo.run(ctx, nil, nil, "prune", "--expire=now")
	return err
}
