package shell

import (
	"context"
	"time"
)

// Task is a command started with Start, running in the background. Its
// methods are safe for concurrent use.
type Task struct {
	id      string
	command string
	seq     int // start order, for listing and eviction
	sh      *Shell
	r       *run
	stop    context.CancelFunc // ends the task as a cancellation would

	done chan struct{} // closed once res is set
	res  *Result
}

// Start runs command in the background and returns at once. Like Run, it
// starts in the tracked working directory with stdin from /dev/null, in its
// own process group, and whatever the command leaves running in that group
// is killed when it exits; unlike Run, a `cd` in it does not move the
// tracked directory, since it ends at an unpredictable time.
//
// The task ends when its command does, when opts.Timeout passes (TimedOut),
// on Stop (Canceled) or on Close; no request's context bounds it. It stays
// in the Shell's table, found by Lookup, until Collect or until so many
// finished tasks are waiting that the oldest is discarded (maxFinished).
// Start fails with ErrTaskLimit when opts.MaxTasks tasks are running, and
// with ErrClosed after Close.
func (s *Shell) Start(command string, opts Options) (*Task, error) {
	opts = opts.withDefaults()
	opts.Progress = nil
	s.tasks.mu.Lock()
	defer s.tasks.mu.Unlock()
	if err := s.tasks.checkLimit(opts.MaxTasks); err != nil {
		return nil, err
	}
	id := s.tasks.newID()
	r := newRun(s, command, opts, true)
	if err := s.start(r); err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	t := &Task{id: id, command: command, sh: s, r: r, stop: stop, done: make(chan struct{})}
	go t.supervise(ctx)
	s.tasks.add(t)
	return t, nil
}

// supervise runs the task to its end, exactly as Run does for a foreground
// command, minus adopting the directory it ended in.
func (t *Task) supervise(ctx context.Context) {
	t.r.supervise(ctx)
	t.sh.finish(t.r)
	t.res = t.sh.outcome(t.r)
	t.stop() // releases the context
	close(t.done)
}

// ID returns the task's id: "task_" and 8 hexadecimal digits.
func (t *Task) ID() string { return t.id }

// Command returns the command the task runs.
func (t *Task) Command() string { return t.command }

// Done returns a channel closed once the task has finished.
func (t *Task) Done() <-chan struct{} { return t.done }

// Finished reports whether the task has finished.
func (t *Task) Finished() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

// Snapshot returns the task's output and whether it has finished. Before it
// finishes, the output is what was captured so far (capped like a Run's)
// and ExitCode is -1; after, it is the final Result. While the task runs,
// a final newline on stdout may be held back until more output shows it
// does not start the cwd record (see recordFilter).
func (t *Task) Snapshot() (*Result, bool) {
	if t.Finished() {
		return t.res, true
	}
	return t.sh.output(t.r), false
}

// Wait waits until the task finishes or ctx is done, and reports whether it
// finished. If progress is non-nil, it is called every ProgressInterval
// (as given to Start) while waiting with the time waited so far and the task's latest output
// line, as Options.Progress is for Run; never after Wait returns.
func (t *Task) Wait(ctx context.Context, progress func(waited time.Duration, lastLine string)) bool {
	stop := startProgress(progress, t.r.opts.ProgressInterval, time.Now(), t.r.last)
	defer stop()
	select {
	case <-t.done:
		return true
	case <-ctx.Done():
		return t.Finished()
	}
}

// Stop ends the task as a cancelled Run ends: SIGTERM to its process group,
// SIGKILL after the grace period. It waits for the task to finish and
// returns the final Result, whose Canceled is set unless the task had
// already finished on its own.
func (t *Task) Stop() *Result {
	t.stop()
	<-t.done
	return t.res
}
