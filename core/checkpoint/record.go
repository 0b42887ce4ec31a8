package checkpoint

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Checkpoint is one recorded change.
type Checkpoint struct {
	ID      string   // "cp_" and a sequence number, stable across pruning
	Tool    string   // the tool whose call made the change
	Summary string   // one line: what the call was
	Time    int64    // Unix seconds
	Files   []Change // what changed, by path relative to the tree
	// Mixed marks a change recorded when a call that ran alongside others
	// ended (a background task): it may hold changes made outside Boris
	// while it ran, which no watcher can tell apart.
	Mixed bool
	// Session names the session that recorded it ("" for checkpoints
	// recorded before sessions were named).
	Session string
	commit  string
}

// Change is one path a checkpoint changed: A(dded), M(odified), D(eleted),
// T (type changed).
type Change struct {
	Status string
	Path   string
}

// idPrefix starts every checkpoint id; it keeps ids unlike task ids.
const idPrefix = "cp_"

// Trailers in a checkpoint's commit message.
const (
	seqTrailer     = "Boris-Checkpoint: "
	toolTrailer    = "Boris-Tool: "
	mixedTrailer   = "Boris-Mixed: yes"
	sessionTrailer = "Boris-Session: "
)

// message is the commit message of checkpoint seq: a subject line, then
// the trailers history reads back.
func (s *Store) message(tool, summary string, seq int, mixed bool) string {
	msg := fmt.Sprintf("%s: %s\n\n%s%d\n%s%s\n", tool, oneLine(summary), seqTrailer, seq, toolTrailer, tool)
	if mixed {
		msg += mixedTrailer + "\n"
	}
	if s.opts.Session != "" {
		msg += sessionTrailer + s.opts.Session + "\n"
	}
	return msg
}

// Record records what changed in the tree since the last checkpoint, at
// paths (relative or absolute, within the tree) or, with none, anywhere in
// the tree. It returns nil when nothing changed. Paths the policy refuses,
// ignored paths and files over the size limit are left out.
func (s *Store) Record(ctx context.Context, tool, summary string, paths ...string) (*Checkpoint, error) {
	var cp *Checkpoint
	err := s.locked(func() (err error) {
		cp, err = s.recordWith(ctx, tool, summary, s.strategyFor(paths), paths, nil)
		return err
	})
	return cp, err
}

// recordWith records what changed, found by how: at paths (named), or as
// c captured it when it is not nil.
func (s *Store) recordWith(ctx context.Context, tool, summary string, how strategy, paths []string, c *Capture) (*Checkpoint, error) {
	changed, err := s.staging().stage(ctx, how, paths, c)
	if err != nil || len(changed) == 0 {
		return nil, err
	}
	seq := s.readInt("seq") + 1
	mixed := c != nil && c.Mixed
	msg := s.message(tool, summary, seq, mixed)
	committed, err := s.commit(ctx, msg)
	if err != nil || !committed {
		return nil, err // nothing changed but over-large or refused files
	}
	if err := s.writeInt("seq", seq); err != nil {
		return nil, err
	}
	if err := s.hist.countAndPrune(ctx); err != nil {
		s.opts.Log.Warn("pruning old checkpoints", "err", err)
	}
	return &Checkpoint{ID: idPrefix + strconv.Itoa(seq), Tool: tool, Summary: oneLine(summary), Mixed: mixed}, nil
}

// oneLine is the first non-empty line of s, at most 120 characters.
func oneLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			if r := []rune(line); len(r) > 120 {
				return string(r[:120]) + "…"
			}
			return line
		}
	}
	return ""
}

// RecordStart records the tree as a session finds it: every change,
// found by a scan of the whole tree (wholeTree, whatever the watcher has
// seen), then the paths seal returns set to the state it gives them.
// seal is called once the tree has been read, with the paths changed
// since the watcher started (all: it cannot say which).
func (s *Store) RecordStart(ctx context.Context, tool, summary string, seal func(changed []string, all bool) map[string]captured) (*Checkpoint, error) {
	var cp *Checkpoint
	err := s.locked(func() (err error) {
		s.hist.startSeq = s.readInt("seq")
		before, allBefore := s.pendingNow()
		if s.watch != nil {
			s.watch.changes() // the scan reads what changed before it
		}
		sealNow := func() map[string]captured {
			after, allAfter := s.pendingNow()
			return seal(append(before, after...), allBefore || allAfter)
		}
		if s.matchesHead() {
			// Read in process and found as the latest checkpoint holds
			// it (a session on a tree another recorded): no git runs,
			// unless a file tool kept a path's state meanwhile.
			entries := sealNow()
			if len(entries) == 0 {
				return nil
			}
			sealNow = func() map[string]captured { return entries }
		}
		cp, err = s.recordWith(ctx, tool, summary, wholeTree, nil, &Capture{seal: sealNow})
		return err
	})
	return cp, err
}

// pendingNow lists what the watcher has seen change and not handed out
// yet, keeping it; all when it cannot say (no watcher, a directory
// unwatched, an event lost, too many paths).
func (s *Store) pendingNow() ([]string, bool) {
	if s.watch == nil {
		return nil, true
	}
	return s.watch.pendingPaths()
}
