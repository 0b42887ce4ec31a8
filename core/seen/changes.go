package seen

import (
	"context"
	"fmt"
	"strings"

	"github.com/mjkoo/boris/core/checkpoint"
)

// Change is one recorded change to a file since the session saw it.
type Change struct {
	Checkpoint checkpoint.Checkpoint
	Who        string // "this session's bash", "another session", "outside Boris"
}

// String names the change: "cp_7, this session's bash: sed -i s/a/b/ f.go".
func (c Change) String() string {
	what := c.Checkpoint.Tool
	if s := c.Checkpoint.Summary; s != "" && c.Checkpoint.Tool != checkpoint.OutsideTool {
		what += ": " + s
	}
	if c.Checkpoint.Tool == checkpoint.OutsideTool {
		return fmt.Sprintf("%s, a change made outside Boris", c.Checkpoint.ID)
	}
	return fmt.Sprintf("%s, %s's %s", c.Checkpoint.ID, c.Who, what)
}

// Stale is what a session learns of a file that changed since it saw it.
type Stale struct {
	Changes []Change // newest first; none when the checkpoints do not say
	Known   bool     // checkpoints are on: Changes is the whole story
}

// Line says it in one line, for a result.
func (s *Stale) Line(rel string) string {
	return fmt.Sprintf("Note: %s changed since you last viewed it%s", rel, s.By())
}

// By names what changed the file: ": cp_7, a change made outside Boris."
// or, when the checkpoints cannot say, why.
func (s *Stale) By() string {
	if len(s.Changes) == 0 {
		if s.Known {
			return " (no checkpoint says by what)."
		}
		return " (checkpoints are off, so Boris cannot say by what)."
	}
	names := make([]string, len(s.Changes))
	for i, c := range s.Changes {
		names[i] = c.String()
	}
	return ": " + strings.Join(names, "; ") + "."
}

// maxChanges caps the changes read from the history.
const maxChanges = 10

// Check reports how abs changed since the session saw it at at (Since):
// the checkpoints of rec that changed it after the one at was taken
// with (or, without one, from that second on), but for the session's own
// file tools' (its picture of the file includes them). It returns nil
// when nothing but the session's own edits did.
func Check(ctx context.Context, rec *checkpoint.Recorder, abs string, at Mark) *Stale {
	store := rec.Store()
	if store == nil {
		return &Stale{}
	}
	cps, err := store.History(ctx, abs, maxChanges)
	if err != nil {
		return &Stale{}
	}
	st := &Stale{Known: true}
	for _, cp := range cps {
		if !at.before(cp) {
			break
		}
		who := "another session"
		if rec.Own(cp.ID) {
			if cp.Tool != "bash" {
				continue // the session's own edit: it knows the result
			}
			who = "this session"
		}
		st.Changes = append(st.Changes, Change{Checkpoint: cp, Who: who})
	}
	if len(st.Changes) == 0 && len(cps) > 0 && at.before(cps[0]) {
		return nil
	}
	return st
}

// before reports whether the mark precedes checkpoint cp.
func (m Mark) before(cp checkpoint.Checkpoint) bool {
	if m.HasSeq {
		return checkpoint.Seq(cp.ID) > m.Seq
	}
	return cp.Time >= m.At.Unix()
}
