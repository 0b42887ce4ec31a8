package shell

import (
	"context"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

const (
	// chunkSize is the read size for output pipes: large enough to keep up
	// with a command flooding its output, small enough to stay cheap.
	chunkSize = 32 << 10

	// drainTimeout is how long to wait for the output pipes to reach EOF
	// after the process group was killed. They normally close at once; only
	// a process that escaped the group (setsid, its own job-control group)
	// can keep them open, and it must not hang Run.
	drainTimeout = 2 * time.Second
)

// run is one command execution: the process, its output plumbing, and how
// it ended.
type run struct {
	argv   []string  // the shell command line, as run directly or spawned
	env    []string  // its environment (nil: Config.Env)
	fixed  bool      // a Program: runs in dir as given, tracks no directory
	cmd    *exec.Cmd // when run directly (Config.Wrap applied)
	pid    int       // the shell's pid, which is also its process group
	status syscall.WaitStatus
	waited bool // status is valid
	opts   Options
	dir    string // where it started
	began  time.Time
	stdout *Capped
	stderr *Capped
	filter *recordFilter // in front of stdout
	last   *lastLine     // for Progress and Task.Wait
	lines  bool          // whether last is kept up to date

	pipes   []*os.File // read ends
	readers sync.WaitGroup
	exited  chan struct{} // closed once the shell has been reaped

	cfg Config // how to start it

	timedOut, canceled bool
}

// newRun prepares command; trackLines keeps the latest output line for
// progress reports even when opts.Progress is nil.
func newRun(s *Shell, command string, opts Options, trackLines bool) *run {
	s.marked.Do(func() {
		s.sentinel = newSentinel()
		s.script = wrapScript(s.sentinel)
	})
	r := &run{
		opts:   opts,
		lines:  trackLines || opts.Progress != nil,
		stdout: NewCapped(opts.Limit),
		stderr: NewCapped(opts.Limit),
		last:   &lastLine{sentinel: s.sentinel},
		exited: make(chan struct{}),
	}
	// The line tracker sits behind the filter so it never sees the record.
	r.filter = newRecordFilter(r.withProgress(r.stdout), s.sentinel)
	// $0 is the shell's path, as in a plain `/bin/bash -c command`; the
	// command is $1, which the script shifts away.
	r.argv = []string{s.path, "-c", s.script, s.path, command}
	r.cfg = s.cfg
	return r
}

func (r *run) pgid() int { return r.pid }

// environ is the environment r runs with; nil inherits the core's.
func (r *run) environ() []string {
	if r.env != nil {
		return r.env
	}
	return r.cfg.Env
}

// start starts the shell with its output on pipes and launches the reader
// and wait goroutines. The pipes are os.Pipes handed to the child directly,
// rather than exec's copying goroutines, so Wait returns when the shell
// exits and we decide ourselves how long to wait for leftover output.
func (r *run) start() error {
	if r.cfg.Prepare != nil {
		if err := r.cfg.Prepare(); err != nil {
			return err
		}
	}
	writers, err := r.openPipes()
	if err != nil {
		return err
	}
	err = r.spawn(writers)
	if r.cfg.Spawn == nil || err != nil && !r.cfg.SpawnOnly {
		err = r.exec(writers)
	}
	// The child has its own copies; ours must go so EOF can arrive.
	for _, w := range writers {
		w.Close()
	}
	if err != nil {
		r.closePipes()
		return err
	}
	r.began = time.Now()
	for i, sink := range []io.Writer{r.filter, r.withProgress(r.stderr)} {
		r.readers.Add(1)
		go r.pump(r.pipes[i], sink)
	}
	return nil
}

// spawn starts the shell through Config.Spawn, if there is one.
func (r *run) spawn(writers []*os.File) error {
	if r.cfg.Spawn == nil {
		return nil
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		return err
	}
	defer null.Close()
	env := r.environ()
	if env == nil {
		env = os.Environ()
	}
	pid, wait, err := r.cfg.Spawn(r.argv, r.dir, env, [3]*os.File{null, writers[0], writers[1]})
	if err != nil {
		return err
	}
	r.pid = pid
	go func() {
		r.status, r.waited = <-wait, true
		close(r.exited)
	}()
	return nil
}

// exec starts the shell as a child of this process: through Config.Wrap
// and Config.Start when set.
func (r *run) exec(writers []*os.File) error {
	argv := r.argv
	if r.cfg.Wrap != nil {
		argv = r.cfg.Wrap(argv)
	}
	r.cmd = exec.Command(argv[0], argv[1:]...)
	r.cmd.Env = r.environ()
	r.cmd.SysProcAttr = sysProcAttr()
	r.cmd.Dir = r.dir
	r.cmd.Stdout, r.cmd.Stderr = writers[0], writers[1]
	var err error
	if r.cfg.Start != nil {
		err = r.cfg.Start(r.cmd)
	} else {
		err = r.cmd.Start()
	}
	if err != nil {
		return err
	}
	r.pid = r.cmd.Process.Pid
	go func() {
		_ = r.cmd.Wait() // the outcome is read from ProcessState
		if ws, ok := r.cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
			r.status, r.waited = ws, true
		}
		if r.cfg.Done != nil {
			r.cfg.Done(r.pid)
		}
		close(r.exited)
	}()
	return nil
}

// openPipes creates the stdout and stderr pipes, keeps their read ends in
// r.pipes and returns the write ends.
func (r *run) openPipes() ([]*os.File, error) {
	var writers []*os.File
	for range 2 {
		rd, wr, err := os.Pipe()
		if err != nil {
			for _, w := range writers {
				w.Close()
			}
			r.closePipes()
			return nil, err
		}
		r.pipes = append(r.pipes, rd)
		writers = append(writers, wr)
	}
	return writers, nil
}

func (r *run) closePipes() {
	for _, p := range r.pipes {
		p.Close()
	}
}

// withProgress adds a line tracker after sink when progress reports want
// lines; without them there is no need to scan the output.
func (r *run) withProgress(sink io.Writer) io.Writer {
	if !r.lines {
		return sink
	}
	return io.MultiWriter(sink, &lineWriter{last: r.last})
}

// pump moves output from a pipe into w until EOF or the drain deadline.
func (r *run) pump(p *os.File, w io.Writer) {
	defer r.readers.Done()
	buf := make([]byte, chunkSize)
	for {
		n, err := p.Read(buf)
		if n > 0 {
			_, _ = w.Write(buf[:n]) // our writers never fail
		}
		if err != nil {
			return
		}
	}
}

// supervise waits for the shell to exit, reporting progress, and enforces
// the timeout and ctx: whichever comes first starts termination.
func (r *run) supervise(ctx context.Context) {
	stop := startProgress(r.opts.Progress, r.opts.ProgressInterval, r.began, r.last)
	defer stop()
	var timeout, grace <-chan time.Time
	if r.opts.Timeout > 0 {
		t := time.NewTimer(r.opts.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	done := ctx.Done()
	for {
		select {
		case <-r.exited:
			return
		case <-timeout:
			r.timedOut = true
			timeout, done, grace = nil, nil, r.terminate()
		case <-done:
			r.canceled = true
			timeout, done, grace = nil, nil, r.terminate()
		case <-grace:
			_ = syscall.Kill(-r.pgid(), syscall.SIGKILL)
			grace = nil
		}
	}
}

// terminate asks the whole group to stop (SIGTERM, so commands can clean
// up) and returns when to insist with SIGKILL.
func (r *run) terminate() <-chan time.Time {
	if r.opts.OnStop != nil {
		r.opts.OnStop()
	}
	_ = syscall.Kill(-r.pgid(), syscall.SIGTERM)
	return time.After(r.opts.Grace)
}

// drain waits for the readers to reach EOF, giving up after drainTimeout,
// then releases the pipes and the output the filter held back.
func (r *run) drain() {
	done := make(chan struct{})
	go func() {
		r.readers.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(drainTimeout):
		for _, p := range r.pipes {
			_ = p.SetReadDeadline(time.Now())
		}
		<-done
	}
	r.closePipes()
	r.filter.flush()
}

// exitCode reports the status as bash would: the exit status, or 128+signal
// when the process was killed by a signal; -1 if unknown.
func (r *run) exitCode() int {
	switch {
	case !r.waited:
		return -1
	case r.status.Signaled():
		return 128 + int(r.status.Signal())
	case r.status.Exited():
		return r.status.ExitStatus()
	}
	return -1
}
