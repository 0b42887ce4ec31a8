package core

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mjkoo/boris/core/checkpoint"
	"github.com/mjkoo/boris/core/shell"
	"github.com/mjkoo/boris/core/toolkit"
	"github.com/mjkoo/boris/internal/procs"
)

// Checkpoints (SPEC §7): after every tool call that may change files the
// core records what changed in a shadow git repository (core/checkpoint);
// history, diff and undo read it. This file wires the store into the core.

// recordTimeout bounds one recording, so a wedged git cannot hold a tool
// call for ever.
const recordTimeout = 2 * time.Minute

// openCheckpoints opens the working tree's shadow repository when
// --checkpoints is on and git is there, and records the tree's state in
// the background (the first change waits for it). Without git the feature
// is off, said in one log line.
func (b *boris) openCheckpoints(workdir string, environ []string) {
	if !b.cfg.checkpointsOn() {
		return
	}
	tree, err := filepath.EvalSymlinks(workdir)
	if err != nil || b.cfg.StateDir == "" {
		b.log.Warn("checkpoints are off: no state directory (set --state-dir, XDG_STATE_HOME or HOME)")
		return
	}
	st, err := checkpoint.Open(context.Background(), checkpoint.Options{
		Tree: tree, StateDir: b.cfg.StateDir, Keep: b.cfg.CheckpointKeep, MaxFileSize: int64(b.cfg.MaxFileSize),
		Allowed: func(abs string) bool { return b.policy.Check(abs) == nil },
		Exclude: append(denyExcludes(tree, b.policy.Denied()), boardExcludes(tree, b.cfg.TasksDB)...),
		Start:   b.startHook(), Done: b.doneHook(),
		// git reads the tree and writes only the shadow repository,
		// granted through the descriptor the store opened without links.
		Confine: b.sandbox.WrapReadOnly([]string{tree}, []string{"/proc/self/fd/3"}),
		Spawn:   b.gitSpawn(tree),
		Environ: environ, Log: b.log,
	})
	if errors.Is(err, checkpoint.ErrUnavailable) {
		b.log.Warn("checkpoints are off: git is not on PATH; history, diff and undo are not available")
		return
	}
	if err != nil {
		b.log.Warn("checkpoints are off", "err", err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.ckpt, b.ckptReady, b.ckptStop = st, make(chan struct{}), cancel
	b.ckptQueue = make(chan ckptJob, 64)
	// Recording starts with the session's first tool call, not at start:
	// a session that never calls a tool writes nothing (SPEC §7).
	b.ckptStart = sync.OnceFunc(func() { go b.recorder(ctx) })
}

// startRecording starts the recorder if it has not started yet: at the
// first tool call, or the first recording, whichever comes first.
func (b *boris) startRecording() {
	if b.ckptStart != nil {
		b.ckptStart()
	}
}

// gitSpawn returns how checkpoint git starts from a confined spawner of
// its own (reading the tree, writing only the shadow, as Confine), made
// at its first use; nil when commands are not confined.
func (b *boris) gitSpawn(tree string) func(*os.File, []string, string, []string, [3]*os.File) (int, <-chan syscall.WaitStatus, error) {
	if !b.sandbox.Enforced() {
		return nil
	}
	var once sync.Once
	var err error
	return func(shadow *os.File, argv []string, dir string, env []string, files [3]*os.File) (int, <-chan syscall.WaitStatus, error) {
		once.Do(func() {
			b.gitSpawner, err = b.sandbox.StartReadOnlySpawner([]string{tree}, []string{"/proc/self/fd/4"}, []*os.File{shadow}, b.startHook())
			if err != nil {
				b.log.Warn("checkpoint git starts through the sandbox helper instead of a spawner", "err", err)
			}
		})
		if b.gitSpawner == nil {
			return 0, nil, errNoSpawner
		}
		return b.gitSpawner.Start(argv, dir, env, files)
	}
}

// checkpointsOn reports whether checkpoints are recorded: --checkpoints
// on, and a toolset with history, diff and undo to use them (SPEC §7:
// not --toolset filesystem).
func (c *Config) checkpointsOn() bool {
	return c.Checkpoints == "on" && c.Toolset != "filesystem"
}

// ckptJob is one recording for the recorder, or, with settled set, a
// marker it closes once every recording queued before it is done.
type ckptJob struct {
	tool, summary string
	paths         []string
	capture       *checkpoint.Capture // what the call left, taken as it ended
	settled       chan struct{}
}

// recorder records the tree as the session found it, then every queued
// recording in order, one at a time. Tool calls return their result
// without waiting for their recording; the next call that changes files
// or reads the history waits for it (settle), so each checkpoint holds
// exactly its own call's change.
func (b *boris) recorder(ctx context.Context) {
	if err := b.ckpt.Watch(); err != nil {
		b.log.Info("checkpoints will scan the whole tree after every command", "reason", err)
	}
	done := procs.Busy()
	b.recordNow(ctx, "start", "the working tree as the session found it")
	done()
	close(b.ckptReady)
	debug.FreeOSMemory() // the first recording's garbage (a whole tree's scan)
	for j := range b.ckptQueue {
		if j.settled != nil {
			close(j.settled)
		} else {
			done := procs.Busy()
			switch {
			case j.tool == pruneJob:
				b.prune()
			case j.capture != nil:
				b.recordCaptured(j.tool, j.summary, j.capture)
			default:
				b.recordIn(context.Background(), j.tool, j.summary, j.paths...)
			}
			done()
		}
		b.recording.leave()
	}
}

// pruneJob is the recorder's job that prunes old checkpoints, after
// recordings in process, which leave it to the recorder.
const pruneJob = "\x00prune"

// prune prunes old checkpoints if it is due.
func (b *boris) prune() {
	ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
	defer cancel()
	if err := b.ckpt.Prune(ctx); err != nil {
		b.log.Warn("pruning old checkpoints", "err", err)
	}
}

// startHook and doneHook start git through the subreaper, when there is one.
func (b *boris) startHook() func(*exec.Cmd) error {
	if b.reaper == nil {
		return nil
	}
	return b.reaper.Start
}

func (b *boris) doneHook() func(int) {
	if b.reaper == nil {
		return nil
	}
	return b.reaper.Done
}

// denyExcludes turns --deny-dir entries into gitignore patterns for the
// shadow, a first line of defence: every path is also checked with the
// policy before it is recorded.
func denyExcludes(tree string, denied []string) []string {
	var out []string
	for _, d := range denied {
		d = filepath.ToSlash(d)
		switch {
		case strings.HasPrefix(d, "**/"):
			out = append(out, d)
		case filepath.IsAbs(d):
			if rel, err := filepath.Rel(tree, d); err == nil && !strings.HasPrefix(rel, "..") {
				out = append(out, "/"+filepath.ToSlash(rel))
			}
		default:
			out = append(out, "/"+strings.TrimPrefix(d, "./"))
		}
	}
	return out
}

// beforeChange runs before a tool changes files (or undoes): whatever
// changed on disk since the last recording was made by no Boris call, so
// it is recorded as a checkpoint of its own (SPEC §7: tool outside) before
// this call's change, and an undo of the agent's change never takes it.
// Then it waits until every earlier change is recorded: the state this
// call's change will be recorded against.
func (b *boris) beforeChange(ctx context.Context) {
	if b.ckptReady == nil {
		return
	}
	b.startRecording()
	select {
	case <-b.ckptReady:
	case <-ctx.Done():
		return
	}
	b.taskRecs.awaitFinished(ctx)
	b.record(ctx, checkpoint.OutsideTool, b.outsideSummary())
	b.awaitRecordings(ctx)
}

// taskRecordings holds the background tasks whose checkpoint is not
// queued yet, so that a task that has ended is recorded as its own before
// the next call's outside checkpoint could take its change.
type taskRecordings struct {
	mu      sync.Mutex
	pending map[*shell.Task]chan struct{}
}

// add registers t and returns what to call once its checkpoint is queued.
func (r *taskRecordings) add(t *shell.Task) func() {
	ch := make(chan struct{})
	r.mu.Lock()
	if r.pending == nil {
		r.pending = map[*shell.Task]chan struct{}{}
	}
	r.pending[t] = ch
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		delete(r.pending, t)
		r.mu.Unlock()
		close(ch)
	}
}

// awaitFinished waits until every task that has ended has its checkpoint
// queued (it is, moments after it ends).
func (r *taskRecordings) awaitFinished(ctx context.Context) {
	r.mu.Lock()
	var wait []chan struct{}
	for t, ch := range r.pending {
		if t.Finished() {
			wait = append(wait, ch)
		}
	}
	r.mu.Unlock()
	for _, ch := range wait {
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}

// awaitRecordings waits until every recording queued so far is done, for
// the tools that read the history (history, diff) and for beforeChange.
// It records nothing itself: diff without a checkpoint shows what has not
// been recorded yet.
func (b *boris) awaitRecordings(ctx context.Context) {
	if b.ckptReady == nil {
		return
	}
	b.startRecording()
	select {
	case <-b.ckptReady:
	case <-ctx.Done():
		return
	}
	b.taskRecs.awaitFinished(ctx)
	if !b.recording.enter() {
		return // closing
	}
	done := make(chan struct{})
	b.ckptQueue <- ckptJob{settled: done}
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// outsideSummary is the summary of outside checkpoints.
const outsideSummary = "changes made outside Boris"

// outsideSummary says what an outside checkpoint may hold: while
// background tasks run, their changes too (they are recorded as theirs
// when they end only for what they change after).
func (b *boris) outsideSummary() string {
	for _, t := range b.shell.Tasks() {
		if !t.Finished() {
			return outsideSummary + " or by background tasks still running"
		}
	}
	return outsideSummary
}

// record queues a checkpoint after a tool call that may have changed
// files: at paths, or anywhere in the tree with none. What the call
// changed is captured now, as it ends (checkpoint.Capture), and recorded
// by the recorder after the call has answered, so a change made on disk
// in between is not taken for the call's. A failure is logged and said in
// the next result, not returned: the change itself has been made.
func (b *boris) record(_ context.Context, tool, summary string, paths ...string) {
	b.queueRecording(tool, summary, paths, false)
}

// recordTask queues the checkpoint of a background task that has ended.
// It ran alongside other calls and whatever else changed the tree, so its
// checkpoint is marked mixed: undoing it asks for force.
func (b *boris) recordTask(summary string) {
	b.queueRecording("bash", summary, nil, true)
}

// queueRecording queues a recording, captured now unless it is an
// outside one (which records what is on disk when it runs).
func (b *boris) queueRecording(tool, summary string, paths []string, mixed bool) {
	if b.ckpt == nil || !b.recording.enter() {
		return
	}
	b.startRecording()
	j := ckptJob{tool: tool, summary: summary, paths: paths}
	if tool != checkpoint.OutsideTool && tool != pruneJob {
		j.capture = b.ckpt.Capture(paths...)
		j.capture.Mixed = mixed
	}
	b.ckptQueue <- j
}

// recordCaptured records a captured change, bounded by recordTimeout.
func (b *boris) recordCaptured(tool, summary string, c *checkpoint.Capture) {
	ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
	defer cancel()
	cp, err := b.ckpt.RecordCaptured(ctx, tool, summary, c)
	b.recorded(tool, summary, cp, err)
}

// recorded notes how a recording ended: a failure is logged and becomes a
// gap, said in a result; it returns the checkpoint, nil on failure.
func (b *boris) recorded(tool, summary string, cp *checkpoint.Checkpoint, err error) *checkpoint.Checkpoint {
	if err != nil {
		b.log.Warn("recording a checkpoint failed", "tool", tool, "err", err)
		b.gaps.add(tool, summary, err)
		return nil
	}
	if cp != nil {
		b.log.Debug("checkpoint recorded", "id", cp.ID, "tool", tool)
	}
	return cp
}

// recordFiles records the change a file tool has just made at paths,
// before the call answers: in process when the store can (the files are
// already recorded ones: no git runs, and the next call waits for
// nothing), else through the recorder as record does. Recording it before
// the answer means a change made on disk after it is not taken for the
// call's: the next call finds it and records it as outside.
func (b *boris) recordFiles(ctx context.Context, tool, summary string, paths ...string) {
	if b.ckpt == nil || !b.recording.enter() {
		return
	}
	cp, err := b.ckpt.RecordFiles(tool, summary, paths...)
	b.recording.leave()
	if errors.Is(err, checkpoint.ErrSlow) {
		b.record(ctx, tool, summary, paths...)
		return
	}
	if b.recorded(tool, summary, cp, err) != nil && b.ckpt.PruneDue() {
		b.record(ctx, pruneJob, "")
	}
}

// recordNow records a checkpoint at once, for undo, which must name it.
func (b *boris) recordNow(ctx context.Context, tool, summary string, paths ...string) *checkpoint.Checkpoint {
	if !b.recording.enter() {
		return nil // closing
	}
	defer b.recording.leave()
	return b.recordIn(ctx, tool, summary, paths...)
}

// recordIn records a checkpoint, bounded by recordTimeout.
func (b *boris) recordIn(ctx context.Context, tool, summary string, paths ...string) *checkpoint.Checkpoint {
	ctx, cancel := context.WithTimeout(ctx, recordTimeout)
	defer cancel()
	cp, err := b.ckpt.Record(ctx, tool, summary, paths...)
	return b.recorded(tool, summary, cp, err)
}

// closeCheckpoints waits for recordings under way, then releases the store.
func (b *boris) closeCheckpoints() {
	if b.ckpt == nil {
		return
	}
	b.ckptStop()
	b.recording.close() // every queued recording done
	close(b.ckptQueue)
	_ = b.ckpt.Close()
	if sp := b.gitSpawner; sp != nil {
		sp.Close()
		_ = sp.Wait()
		if b.reaper != nil {
			b.reaper.Done(sp.Pid())
		}
	}
}

// gate lets recordings in until it is closed, and closing waits for those
// in.
type gate struct {
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

func (g *gate) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.wg.Add(1)
	return true
}

func (g *gate) leave() { g.wg.Done() }

func (g *gate) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	g.wg.Wait()
}

// envLookup returns the last value of key in environ.
func envLookup(environ []string, key string) string {
	v := ""
	for _, kv := range environ {
		if rest, ok := strings.CutPrefix(kv, key+"="); ok {
			v = rest
		}
	}
	return v
}

// checkpointTools are the checkpoint tools, known whenever --checkpoints
// is on (so --disable-tools accepts their names) and registered only when
// the store opened. undo writes files, so --read-only leaves it out.
func (b *boris) checkpointTools() []toolkit.Tool {
	if b.cfg.Checkpoints != "on" {
		return nil
	}
	return toolkit.Set("checkpoints",
		toolkit.New(historyTool, b.history),
		toolkit.New(diffTool, b.diff),
		toolkit.New(undoTool, b.undo).Writing(),
	)
}

// isCheckpointTool reports whether name is one of checkpointTools.
func isCheckpointTool(name string) bool {
	return name == "history" || name == "diff" || name == "undo"
}

// treeRel names abs relative to the checkpointed tree when it lies inside,
// for checkpoint summaries.
func (b *boris) treeRel(abs string) string {
	if b.ckpt == nil {
		return abs
	}
	if rel, err := filepath.Rel(b.ckpt.Tree(), abs); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return abs
}

// settle runs once start-up is over: the client has initialized. (The
// first checkpoint waits for the first tool call, and the recorder returns
// its garbage itself.) It collects and returns the free pages to
// the kernel (GC pacing, package gcpace, lets a small heap grow by 64 MB
// between collections, so what start-up left behind would otherwise stay
// in every idle session's core), then narrows the process to one P for
// the requests to come (see package procs).
func (b *boris) settle() {
	debug.FreeOSMemory()
	procs.Narrow()
}
