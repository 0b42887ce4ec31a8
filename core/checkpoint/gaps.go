package checkpoint

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mjkoo/boris/internal/plural"
)

// maxGaps bounds the gaps history keeps; older ones are counted.
const maxGaps = 50

// Recording never fails silently (docs/reference/core.md#checkpoints): a change that could not be
// recorded is a gap. The next tool result says so in one line (recording
// runs after a call has answered, so its own result cannot), and history
// lists every gap of the session, so no agent is led to believe an undo
// is available when it is not.

// gaps holds the session's gaps, and its notes: limits the recording
// meets that lose nothing but cost time (the watcher given up), said once
// in a result and listed by history like the gaps.
type gaps struct {
	mu      sync.Mutex
	notes   []string // for history, oldest first
	all     []string // newest last, for history
	dropped int      // gaps beyond maxGaps, oldest first
	unsaid  []string // not yet said in a result
}

// add records a gap: the change of tool (summary) was not recorded.
func (g *gaps) add(tool, summary string, err error) {
	summary, _, _ = strings.Cut(summary, "\n")
	if r := []rune(summary); len(r) > 120 {
		summary = string(r[:120]) + "…"
	}
	why := strings.Join(strings.Fields(err.Error()), " ")
	if r := []rune(why); len(r) > 200 {
		why = string(r[:200]) + "…"
	}
	line := fmt.Sprintf("%s  %s: %s: not recorded (%s); it stands but undo cannot put it back",
		time.Now().Format("2006-01-02 15:04:05"), tool, summary, why)
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.all) == maxGaps {
		g.all = g.all[1:]
		g.dropped++
	}
	g.all = append(g.all, line)
	if len(g.unsaid) < maxGaps {
		g.unsaid = append(g.unsaid, "a change was not recorded: "+line)
	}
}

// note records a note: said once in the next result, listed by history.
func (g *gaps) note(line string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if slices.Contains(g.notes, line) {
		return
	}
	g.notes = append(g.notes, line)
	g.unsaid = append(g.unsaid, line)
}

// watchNote says why the watcher could not start and what it costs.
func watchNote(err error) string {
	const cost = "after every command the checkpoints scan the whole tree instead: nothing is lost, each recording is slower"
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return "the tree has more directories than inotify may watch (fs.inotify.max_user_watches); " + cost
	case errors.Is(err, syscall.EMFILE):
		return "no inotify instance is left for this user (fs.inotify.max_user_instances); " + cost
	}
	return fmt.Sprintf("the tree's directories cannot be watched (%v); %s", err, cost)
}

// watchLostNote says why the watcher stopped naming what changes in the
// middle of a session and what it costs.
func watchLostNote(err error) string {
	const cost = "from now on the checkpoints scan the whole tree after every command: nothing is lost, each recording is slower"
	if errors.Is(err, syscall.ENOSPC) {
		return "a directory made during the session could not be watched: the tree now has more directories than inotify may watch (fs.inotify.max_user_watches); " + cost
	}
	return fmt.Sprintf("a directory made during the session could not be watched (%v); %s", err, cost)
}

// take returns the gaps not yet said, once.
func (g *gaps) take() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := g.unsaid
	g.unsaid = nil
	return out
}

// list returns history's lines for the gaps, newest first.
func (g *gaps) list() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for _, n := range g.notes {
		out = append(out, "note "+n)
	}
	for i := len(g.all) - 1; i >= 0; i-- {
		out = append(out, "gap  "+g.all[i])
	}
	if g.dropped > 0 {
		out = append(out, fmt.Sprintf("gap  ... and %s not recorded", plural.N(g.dropped, "earlier change", "earlier changes")))
	}
	return out
}

// Gaps lists the changes that could not be recorded, newest first, for
// history.
func (r *Recorder) Gaps() []string {
	if r == nil {
		return nil
	}
	return r.gaps.list()
}

// TakeGaps returns the changes that could not be recorded and the notes
// not said yet, each a line for a tool's result to say after
// "[checkpoint] ".
func (r *Recorder) TakeGaps() []string {
	if r == nil {
		return nil
	}
	return r.gaps.take()
}
