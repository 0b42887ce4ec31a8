package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
)

// history reads the checkpoints back from the shadow: the list of them,
// one by id, which were not this session's (notOurs), what undoing one
// restores (undo.go); and it prunes the oldest (prune.go). Its methods
// run under the Store's lock.
type history struct {
	repo    *shadow
	tree    worktree
	keep    int    // how many checkpoints are kept (Options.Keep)
	session string // the session recording (Options.Session)
	// startSeq is the sequence number of the latest checkpoint when this
	// session's start was recorded: checkpoints after it by other
	// sessions were recorded while this one ran.
	startSeq int
}

// History lists up to limit checkpoints, newest first; with path, only
// those that changed something at or below it.
func (s *Store) History(ctx context.Context, path string, limit int) ([]Checkpoint, error) {
	var cps []Checkpoint
	err := s.locked(func() (err error) {
		cps, err = s.hist.log(ctx, path, limit, "")
		return err
	})
	return cps, err
}

// log reads up to limit checkpoints (0: all), newest first, from the
// latest back to from (a commit; "" for the oldest kept), with path only
// those that changed something at or below it: in process where the
// commits and trees are loose (logLoose), else from git log.
func (h *history) log(ctx context.Context, path string, limit int, from string) ([]Checkpoint, error) {
	rel := ""
	if path != "" {
		rel = h.tree.rel(path)
	}
	if cps, ok := h.repo.logLoose(rel, limit, from); ok {
		return cps, nil
	}
	if !h.hasHead(ctx) {
		return nil, nil
	}
	args := []string{"log", "--no-renames", "--format=" + logFormat, "--name-status"}
	if limit > 0 {
		args = append(args, "-n", strconv.Itoa(limit))
	}
	if from != "" {
		args = append(args, "^"+from+"^@") // from's parents, none for the oldest kept
	}
	args = append(args, "HEAD")
	if rel != "" {
		args = append(args, "--", rel)
	}
	out, err := h.repo.run(ctx, nil, nil, args...)
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	var cps []Checkpoint
	for _, rec := range bytes.Split(out, []byte{0x1e}) {
		if cp, ok := parseEntry(string(rec)); ok {
			cps = append(cps, cp)
		}
	}
	return cps, nil
}

// logFormat is what log asks git log for, ahead of each checkpoint's
// --name-status lines; logLoose writes the same records.
const logFormat = "%x1e%H%x1f%ct%x1f%B%x1f"

// parseEntry parses one record of log's format.
func parseEntry(rec string) (Checkpoint, bool) {
	f := strings.SplitN(rec, "\x1f", 4)
	if len(f) < 4 {
		return Checkpoint{}, false
	}
	cp := Checkpoint{commit: f[0]}
	cp.Time, _ = strconv.ParseInt(f[1], 10, 64)
	subject, _, _ := strings.Cut(f[2], "\n")
	for _, line := range strings.Split(f[2], "\n") {
		if v, ok := strings.CutPrefix(line, seqTrailer); ok {
			cp.ID = idPrefix + strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, toolTrailer); ok {
			cp.Tool = strings.TrimSpace(v)
		}
		if line == mixedTrailer {
			cp.Mixed = true
		}
		if v, ok := strings.CutPrefix(line, sessionTrailer); ok {
			cp.Session = strings.TrimSpace(v)
		}
	}
	cp.Summary = strings.TrimPrefix(subject, cp.Tool+": ")
	for _, line := range strings.Split(f[3], "\n") {
		if status, p, ok := strings.Cut(line, "\t"); ok {
			cp.Files = append(cp.Files, Change{Status: status, Path: p})
		}
	}
	return cp, cp.ID != ""
}

// HasCheckpoints reports whether any checkpoint of the tree is kept.
func (s *Store) HasCheckpoints(ctx context.Context) bool {
	var has bool
	_ = s.locked(func() error {
		has = s.hist.hasHead(ctx)
		return nil
	})
	return has
}

// hasHead reports whether any checkpoint was recorded.
func (h *history) hasHead(ctx context.Context) bool {
	_, err := h.repo.head(ctx)
	return err == nil
}

// find returns the commit of checkpoint id, or an error wrapping ErrNotFound.
func (h *history) find(ctx context.Context, id string) (string, error) {
	n, ok := strings.CutPrefix(id, idPrefix)
	if _, err := strconv.Atoi(n); !ok || err != nil {
		return "", fmt.Errorf("%w: %q is not a checkpoint id (they look like cp_12; see history)", ErrNotFound, id)
	}
	if !h.hasHead(ctx) {
		return "", fmt.Errorf("%w: no checkpoint has been recorded yet%s", ErrNotFound, h.where())
	}
	commit, ok := h.repo.findLoose(seqTrailer + n)
	if !ok {
		out, err := h.repo.run(ctx, nil, nil, "log", "-1", "--format=%H", "--grep=^"+seqTrailer+n+"$", "HEAD")
		if err != nil {
			return "", fmt.Errorf("find %s: %w", id, err)
		}
		commit = strings.TrimSpace(string(out))
	}
	if commit == "" {
		return "", fmt.Errorf("%w: no checkpoint %s; it may have been pruned (only the newest %d are kept); see history%s", ErrNotFound, id, h.keep, h.where())
	}
	return commit, nil
}

// where says where this history lives, for a "not found": a client that
// starts boris with another state directory keeps another history.
func (h *history) where() string {
	return fmt.Sprintf(" (this history of the tree is kept in the state directory %s; a client that starts boris with another --state-dir, XDG_STATE_HOME or HOME keeps another)", h.tree.stateDir)
}

// latest returns the newest checkpoint's commit, or ErrNotFound.
func (h *history) latest(ctx context.Context) (string, error) {
	c, err := h.repo.head(ctx)
	if err != nil {
		return "", fmt.Errorf("%w: no checkpoint has been recorded yet", ErrNotFound)
	}
	return c, nil
}

// Latest returns the newest checkpoint's id, or ErrNotFound.
func (s *Store) Latest(ctx context.Context) (string, error) {
	var id string
	err := s.locked(func() error {
		var err error
		id, err = s.hist.latestID(ctx)
		return err
	})
	return id, err
}

// latestID is the newest checkpoint's id, or ErrNotFound.
func (h *history) latestID(ctx context.Context) (string, error) {
	cps, err := h.log(ctx, "", 1, "")
	if err != nil {
		return "", err
	}
	if len(cps) == 0 {
		return "", fmt.Errorf("%w: no checkpoint has been recorded yet", ErrNotFound)
	}
	return cps[0].ID, nil
}

// notOurs reports whether cp holds work the agent undoing may not have
// made: an outside change, a mixed one, or one another session recorded
// while this one ran (after its start: a session open on the same tree at
// the same time). What sessions that ended before this one began recorded
// is the history it found, as its own is.
func (h *history) notOurs(cp Checkpoint) bool {
	if cp.Tool == OutsideTool || cp.Mixed {
		return true
	}
	seq, _ := strconv.Atoi(strings.TrimPrefix(cp.ID, idPrefix))
	return cp.Session != "" && cp.Session != h.session && seq > h.startSeq
}

// OutsideTool names the checkpoints of changes no Boris call made.
const OutsideTool = "outside"

// OutsideAfter lists the checkpoints after id recorded as OutsideTool
// or Mixed, or by another session while this one ran (notOurs), and id
// itself when it is Mixed,
// that changed any of paths (tree-relative, slash-separated), newest
// first: changes an undo of id would overwrite that the agent may never
// have made.
func (s *Store) OutsideAfter(ctx context.Context, id string, paths []string) ([]Checkpoint, error) {
	var out []Checkpoint
	err := s.locked(func() (err error) {
		out, err = s.hist.outsideAfter(ctx, id, paths)
		return err
	})
	return out, err
}

// outsideAfter is OutsideAfter under the lock.
func (h *history) outsideAfter(ctx context.Context, id string, paths []string) ([]Checkpoint, error) {
	var out []Checkpoint
	commit, err := h.find(ctx, id)
	if err != nil {
		return nil, err
	}
	// id and every checkpoint after it, in one log.
	later, err := h.log(ctx, "", 0, commit)
	if err != nil {
		return nil, err
	}
	want := make(map[string]bool, len(paths))
	for _, p := range paths {
		want[p] = true
	}
	for _, cp := range later {
		if cp.commit == commit && !cp.Mixed || !h.notOurs(cp) {
			continue // id itself counts only when it is mixed
		}
		var hit []Change
		for _, f := range cp.Files {
			if want[f.Path] {
				hit = append(hit, f)
			}
		}
		if len(hit) > 0 {
			cp.Files = hit
			out = append(out, cp)
		}
	}
	return out, nil
}
