package test

import (
	"maps"
	"strings"
)

// TestCheckpointModel's sessions: the core's session restarts, with the
// tree changed outside Boris while none runs, and a second session on the
// same tree, open alongside, editing files. Checkpoints name their
// session; for undo, a checkpoint another session recorded while the
// undoing one ran is outside work, and one recorded before it began is
// history it found (the core's rule, history.notOurs in core/checkpoint).

// otherSessionID names the second session in the model.
const otherSessionID = -1

// notOurs reports whether undo treats cp as work the current session's
// agent may not have made: outside, mixed, or another session's recorded
// since the current one started.
func (m *model) notOurs(cp *mCheckpoint) bool {
	return cp.maybeOutside() || cp.session != m.session && cp.id > m.startSeq
}

// recordBy is record as session records it.
func (m *model) recordBy(session int, tool string, paths []string) *mCheckpoint {
	cp := m.record(tool, paths)
	if cp != nil {
		cp.session = session
	}
	return cp
}

// startModelCore starts a core on the run's tree and state, as the first.
func (r *modelRun) startModelCore() *core {
	return startCoreWith(r.t, coreOptions{args: []string{"--workdir", r.dir, "--checkpoint-keep", "1000000"}, env: []string{"XDG_STATE_HOME=" + r.state}})
}

// restart ends the core's session (its recordings done), changes the tree
// outside Boris while no session runs, and starts a new session, whose
// start records those changes as an outside checkpoint.
func (r *modelRun) restart() {
	endSession(r.t, r.c)
	var did []string
	for range 1 + r.rng.IntN(2) {
		if d := r.outsideChange(); d != "" {
			did = append(did, d)
		}
	}
	r.m.session++
	r.m.startSeq = len(r.m.cps)
	cp := r.m.recordBy(r.m.session, "outside", nil)
	r.logf("restart; outside while no session ran: %s -> %s", strings.Join(did, "; "), cpName(cp))
	r.c = r.startModelCore()
	r.checkTree()
	r.checkHistory()
}

// otherSession has the second session (started the first time, its start
// recording what is not recorded yet as outside) replace a token in a
// file, and waits for its recording.
func (r *modelRun) otherSession() {
	if r.c2 == nil {
		r.call("history", map[string]any{"limit": 1}) // the first session's recordings done
		cp := r.m.recordBy(otherSessionID, "outside", nil)
		r.logf("second session starts -> %s", cpName(cp))
		r.c2 = r.startModelCore()
		r.c2.ok("history", map[string]any{"limit": 1})
	}
	var files []string
	for _, p := range modelPaths {
		if e, ok := r.m.disk[p]; ok && !e.link && tokenRe.MatchString(e.data) {
			files = append(files, p)
		}
	}
	if len(files) == 0 {
		return
	}
	p := pick(r, files)
	old := pick(r, tokenRe.FindAllString(r.m.disk[p].data, -1))
	replacement := r.token()
	t := maps.Clone(r.m.disk)
	e := t[p]
	e.data = strings.Replace(e.data, old, replacement, 1)
	t[p] = e
	r.m.recordBy(otherSessionID, "outside", nil)
	r.m.disk = t
	cp := r.m.recordBy(otherSessionID, "str_replace", []string{p})
	r.logf("second session: str_replace %s %s -> %q: %s", p, old, replacement, cpName(cp))
	if res := r.c2.call("str_replace", map[string]any{"path": p, "old_str": old, "new_str": replacement}); res.IsError {
		r.fail("second session's str_replace %s: got %q, want success", p, text(res))
	}
	r.c2.ok("history", map[string]any{"limit": 1}) // recorded before the first session goes on
}
