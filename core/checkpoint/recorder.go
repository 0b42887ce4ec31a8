package checkpoint

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/mjkoo/boris/internal/procs"
)

// RecordTimeout bounds one recording, so a wedged git cannot hold a tool
// call for ever.
const RecordTimeout = 2 * time.Minute

// StartTimeout bounds the starting checkpoint, which no call but history,
// diff and undo waits for: a whole tree read on a busy machine.
const StartTimeout = 30 * time.Minute

// OutsideSummary is the summary of outside checkpoints.
const OutsideSummary = "changes made outside Boris"

// Recorder records a session's checkpoints in its Store, in the order of
// the calls that made the changes: the tools see only it. A nil *Recorder
// is checkpoints off, and every method does nothing (Store is nil).
//
// It starts in the background as the session initializes (Start; the
// first tool call starts it should none have): it opens the store,
// starts the watcher (inotify: later recordings look only at what it saw
// change; when it cannot start, or loses a directory later, they scan
// the whole tree and a note says so once), and records the starting
// checkpoint, the tree as the session found it. No call waits for that
// start (start.go): a file tool keeps for it the state of each path it
// writes (BeforeWrite), a command runs beside it and what it changes
// meanwhile is named in a gap (BeforeCommand); the calls that read the
// history wait for it (Await).
//
// After the start, a call that changes files first has what changed
// outside Boris recorded as an outside checkpoint (BeforeChange). A file
// tool's change is recorded in process before it answers (RecordFiles);
// any other is captured as the call ends, before it answers (Record,
// RecordTask: a Capture of what it changed and the bytes it left), and
// recorded by one goroutine, in order, after it has answered; RecordNow
// records at once. A change that could not be recorded is a gap, said in
// the next result and listed by history (TakeGaps, Gaps).
type Recorder struct {
	tree    string                                    // the working tree
	open    func(ctx context.Context) (*Store, error) // opens the store, when recording starts
	log     *slog.Logger
	running func() bool // whether a background task is still running

	opened  chan struct{} // closed once open has been tried: store or openErr is set
	store   *Store
	openErr error

	ready     chan struct{}      // closed once the starting state is recorded
	queue     chan job           // recordings for the recorder, in order
	stop      context.CancelFunc // stops that first recording at close
	start     func()             // starts the recorder goroutine, once
	recording gate               // recordings under way, waited for at close
	gaps      gaps               // changes that could not be recorded
	tasks     taskRecordings     // background tasks whose checkpoint is not queued yet
	own       ownIDs             // the checkpoints of this session's calls
	startup   startState         // what calls left for the start while it was taken
	hold      func(ctx context.Context)
	holdWatch func(ctx context.Context)
}

// NewRecorder records the checkpoints of tree in the store open opens.
// Nothing is opened before Start, which opens it in the background.
// running reports whether a background task of the session is still
// running: an outside checkpoint then says its change may be the task's.
func NewRecorder(tree string, open func(ctx context.Context) (*Store, error), running func() bool, log *slog.Logger) *Recorder {
	ctx, cancel := context.WithCancel(context.Background())
	r := &Recorder{tree: tree, open: open, log: log, running: running, opened: make(chan struct{}),
		ready: make(chan struct{}), queue: make(chan job, 4096), stop: cancel}
	r.start = sync.OnceFunc(func() { go r.run(ctx) })
	return r
}

// Store is the shadow repository, opened first if need be; nil when
// checkpoints are off or it could not be opened (Err says why).
func (r *Recorder) Store() *Store {
	if r == nil {
		return nil
	}
	r.Start()
	<-r.opened
	return r.store
}

// Err is why the store could not be opened; nil when it was (or is not
// yet tried).
func (r *Recorder) Err() error {
	if r == nil {
		return nil
	}
	select {
	case <-r.opened:
		return r.openErr
	default:
		return nil
	}
}

// Tree is the working tree the recorder records.
func (r *Recorder) Tree() string { return r.tree }

// Rel names abs relative to the checkpointed tree when it lies inside,
// for checkpoint summaries; abs itself otherwise, or when checkpoints are
// off.
func (r *Recorder) Rel(abs string) string {
	if r == nil {
		return abs
	}
	if rel, err := filepath.Rel(r.tree, abs); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return abs
}

// Start starts recording in the background, if it has not started: the
// server calls it as the session initializes, and every tool call, should
// one come first.
func (r *Recorder) Start() {
	if r != nil {
		r.start()
	}
}

// job is one recording for the recorder goroutine: a call's change, a
// prune, or (settled) a marker closed once every job before it is done.
type job struct {
	tool, summary string
	paths         []string
	capture       *Capture // what the call left, taken as it ended
	settled       chan struct{}
}

// pruneJob is the recorder's job that prunes old checkpoints, after
// recordings in process, which leave it to the recorder.
const pruneJob = "\x00prune"

// run records the tree as the session found it, then every queued
// recording in order, one at a time. Tool calls return their result
// without waiting for their recording; the next call that changes files
// or reads the history waits for it (settle), so each checkpoint holds
// exactly its own call's change.
func (r *Recorder) run(ctx context.Context) {
	if !r.recording.enter() { // closed before it started
		close(r.opened)
		close(r.ready)
		return
	}
	done := procs.Busy()
	var started bool
	atLowPriority(func() { started = r.begin(ctx) })
	if !started {
		done()
		r.log.Warn("checkpoints are off for this session: the shadow repository could not be opened", "err", r.openErr)
		r.gaps.add("start", StartSummary, r.openErr)
		r.recording.leave()
		close(r.ready)
		for j := range r.queue { // only markers: nothing is recorded without a store
			if j.settled != nil {
				close(j.settled)
			}
			r.recording.leave()
		}
		return
	}
	r.sayWatchLoss()
	done()
	r.recording.leave()
	close(r.ready)
	debug.FreeOSMemory() // the first recording's garbage (a whole tree's scan)
	for j := range r.queue {
		if j.settled != nil {
			close(j.settled)
		} else {
			done := procs.Busy()
			switch {
			case j.tool == pruneJob:
				r.prune()
			case j.capture != nil:
				if j.capture.skip != nil {
					j.capture.skip = r.keptPaths() // final: the start is sealed
				}
				r.recordCaptured(j.tool, j.summary, j.capture)
			default:
				r.recordIn(context.Background(), j.tool, j.summary, j.paths...)
			}
			r.sayWatchLoss()
			done()
		}
		r.recording.leave()
	}
}

// begin opens the store, watches the tree and records the tree as the
// session found it: the start, which reads the whole tree, run at a
// lower priority (atLowPriority) so that it never competes with calls.
// false when the store could not be opened (openErr says why).
func (r *Recorder) begin(ctx context.Context) bool {
	r.store, r.openErr = r.open(ctx)
	close(r.opened)
	if r.openErr != nil {
		return false
	}
	if r.holdWatch != nil {
		r.holdWatch(ctx)
	}
	if err := r.store.watchSince(r.commandsSince); err != nil {
		r.log.Info("checkpoints will scan the whole tree after every command", "reason", err)
		r.gaps.note(watchNote(err))
	}
	r.recordStart(ctx)
	return true
}

// sayWatchLoss notes, once, that the watcher stopped naming what
// changes, if it has.
func (r *Recorder) sayWatchLoss() {
	if err := r.store.watchBroken(); err != nil {
		r.gaps.note(watchLostNote(err)) // notes are kept unique
	}
}

// StartSummary is the summary of the first checkpoint of a tree.
const StartSummary = "the working tree as the session found it"

// BetweenSummary is the summary of the outside checkpoint a session
// records when it finds the tree changed since its last checkpoint.
const BetweenSummary = OutsideSummary + " since the tree's last checkpoint (between sessions, or by another session)"

// recordStart records the tree as the session found it. On a tree with
// checkpoints already, whatever differs from the latest is work no call of
// this session made (the user's, between sessions, or another session's
// not yet recorded): an outside checkpoint, which undo does not overwrite
// without force. On a new one it is the start, the state undo goes back to.
func (r *Recorder) recordStart(ctx context.Context) {
	if r.hold != nil {
		r.hold(ctx)
	}
	tool, summary := "start", StartSummary
	if r.store.recordedBefore(ctx) {
		tool, summary = OutsideTool, BetweenSummary
	}
	ctx, cancel := context.WithTimeout(ctx, StartTimeout)
	defer cancel()
	cp, err := r.store.RecordStart(ctx, tool, summary, r.seal)
	r.recorded(tool, summary, cp, err)
}

// prune prunes old checkpoints if it is due.
func (r *Recorder) prune() {
	ctx, cancel := context.WithTimeout(context.Background(), RecordTimeout)
	defer cancel()
	if err := r.store.Prune(ctx); err != nil {
		r.log.Warn("pruning old checkpoints", "err", err)
	}
}

// BeforeChange runs before a tool changes files (or undoes): whatever
// changed on disk since the last recording was made by no Boris call, so
// it is recorded as a checkpoint of its own (docs/reference/core.md#checkpoints: tool outside) before
// this call's change, and an undo of the agent's change never takes it.
// Then it waits until every earlier change is recorded: the state this
// call's change will be recorded against.
func (r *Recorder) BeforeChange(ctx context.Context) {
	if !r.started(ctx) {
		return
	}
	r.Record(OutsideTool, r.outsideSummary())
	r.Await(ctx)
}

// started starts recording and waits for the starting state and for the
// checkpoints of background tasks that have ended; false when
// checkpoints are off or ctx ended first.
func (r *Recorder) started(ctx context.Context) bool {
	if r == nil {
		return false
	}
	r.Start()
	select {
	case <-r.ready:
	case <-ctx.Done():
		return false
	}
	r.tasks.awaitFinished(ctx)
	return true
}

// Await waits until every recording queued so far is done, for
// the tools that read the history (history, diff) and for BeforeChange.
// It records nothing itself: diff without a checkpoint shows what has not
// been recorded yet.
func (r *Recorder) Await(ctx context.Context) {
	if !r.started(ctx) || !r.recording.enter() {
		return // off, or closing
	}
	done := make(chan struct{})
	r.queue <- job{settled: done}
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// outsideSummary says what an outside checkpoint may hold: while
// background tasks run, their changes too (they are recorded as theirs
// when they end only for what they change after).
func (r *Recorder) outsideSummary() string {
	if r.running != nil && r.running() {
		return OutsideSummary + " or by background tasks still running"
	}
	return OutsideSummary
}

// Record queues a checkpoint after a tool call that may have changed
// files: at paths, or anywhere in the tree with none. What the call
// changed is captured now, as it ends (checkpoint.Capture), and recorded
// by the recorder after the call has answered, so a change made on disk
// in between is not taken for the call's. A failure is logged and said in
// the next result, not returned: the change itself has been made.
func (r *Recorder) Record(tool, summary string, paths ...string) {
	r.queueRecording(tool, summary, paths, false)
}

// RecordTask queues the checkpoint of a background task that has ended.
// It ran alongside other calls and whatever else changed the tree, so its
// checkpoint is marked mixed: undoing it asks for force.
func (r *Recorder) RecordTask(summary string) {
	r.queueRecording("bash", summary, nil, true)
}

// queueRecording queues a recording, captured now unless it is an
// outside one (which records what is on disk when it runs).
func (r *Recorder) queueRecording(tool, summary string, paths []string, mixed bool) {
	if r.Store() == nil || !r.recording.enter() {
		return
	}
	r.Start()
	j := job{tool: tool, summary: summary, paths: paths}
	switch {
	case r.starting() && len(paths) > 0 && tool != OutsideTool && tool != pruneJob:
		// The start holds the store: what the call left is read without it.
		j.capture = r.store.captureNamed(paths)
		j.capture.Mixed = mixed
	case r.starting() && tool == OutsideTool:
		// What changed outside Boris while the start was taken, but
		// what file tools wrote meanwhile: their recordings take it.
		j.capture = &Capture{late: true, skip: map[string]bool{}}
	case r.starting():
		// A command's change, recorded from what the watcher has seen
		// by then (the start's gap names what it may have taken).
		j.capture = &Capture{Mixed: mixed, late: true}
	case tool != OutsideTool && tool != pruneJob:
		j.capture = r.store.Capture(paths...)
		j.capture.Mixed = mixed
	}
	r.queue <- j
}

// recordCaptured records a captured change, bounded by RecordTimeout.
func (r *Recorder) recordCaptured(tool, summary string, c *Capture) {
	ctx, cancel := context.WithTimeout(context.Background(), RecordTimeout)
	defer cancel()
	cp, err := r.store.RecordCaptured(ctx, tool, summary, c)
	r.recorded(tool, summary, cp, err)
}

// recorded notes how a recording ended: a failure is logged and becomes a
// gap, said in a result; it returns the checkpoint, nil on failure.
func (r *Recorder) recorded(tool, summary string, cp *Checkpoint, err error) *Checkpoint {
	if err != nil {
		r.log.Warn("recording a checkpoint failed", "tool", tool, "err", err)
		r.gaps.add(tool, summary, err)
		return nil
	}
	if cp != nil {
		r.log.Debug("checkpoint recorded", "id", cp.ID, "tool", tool)
		r.own.note(cp)
	}
	return cp
}

// RecordFiles records the change a file tool has just made at paths,
// before the call answers: in process when the store can (the files are
// already recorded ones: no git runs, and the next call waits for
// nothing), else through the recorder as record does. Recording it before
// the answer means a change made on disk after it is not taken for the
// call's: the next call finds it and records it as outside.
func (r *Recorder) RecordFiles(tool, summary string, paths ...string) {
	if r.Store() == nil || !r.recording.enter() {
		return
	}
	if r.starting() {
		r.recording.leave()
		r.Record(tool, summary, paths...) // after the start, which holds the store
		return
	}
	cp, err := r.store.RecordFiles(tool, summary, paths...)
	r.recording.leave()
	if errors.Is(err, ErrSlow) {
		r.Record(tool, summary, paths...)
		return
	}
	if r.recorded(tool, summary, cp, err) != nil && r.store.PruneDue() {
		r.Record(pruneJob, "")
	}
}

// RecordNow records paths at once, in the caller's goroutine, and returns
// the checkpoint (nil when nothing changed, it failed or checkpoints are
// off).
func (r *Recorder) RecordNow(ctx context.Context, tool, summary string, paths ...string) *Checkpoint {
	if r.Store() == nil {
		return nil
	}
	return r.recordNow(ctx, tool, summary, paths...)
}

// recordNow is RecordNow on a recorder that is on.
func (r *Recorder) recordNow(ctx context.Context, tool, summary string, paths ...string) *Checkpoint {
	if !r.recording.enter() {
		return nil // closing
	}
	defer r.recording.leave()
	return r.recordIn(ctx, tool, summary, paths...)
}

// recordIn records paths through git, bounded by RecordTimeout.
func (r *Recorder) recordIn(ctx context.Context, tool, summary string, paths ...string) *Checkpoint {
	ctx, cancel := context.WithTimeout(ctx, RecordTimeout)
	defer cancel()
	cp, err := r.store.Record(ctx, tool, summary, paths...)
	return r.recorded(tool, summary, cp, err)
}

// TaskStarted notes a background task whose checkpoint is recorded when
// it ends: the returned func is called once it is queued. Until then,
// calls that see the task finished wait for it (BeforeChange, Await), so
// its change is not taken for an outside one.
func (r *Recorder) TaskStarted(t Finisher) (queued func()) {
	if r == nil {
		return func() {}
	}
	return r.tasks.add(t)
}

// AwaitFinishedTasks waits until the checkpoints of the background tasks
// that have ended are queued: task_output and task_stop report a task
// ended only then.
func (r *Recorder) AwaitFinishedTasks(ctx context.Context) {
	if r != nil {
		r.tasks.awaitFinished(ctx)
	}
}

// Close waits for every queued recording, stops the recorder and closes
// the store.
func (r *Recorder) Close() {
	if r == nil {
		return
	}
	r.stop()
	r.recording.close() // every queued recording done, and the opening
	close(r.queue)
	if r.store != nil {
		_ = r.store.Close()
	}
}
