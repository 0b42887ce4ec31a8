// Package shell runs the agent's shell commands for the bash tool (and
// background tasks).
//
// Each command runs in a fresh `/bin/bash -c` (or `/bin/sh -c` where bash is
// absent) with stdin from /dev/null, in its own process group, in the
// Shell's tracked working directory. Only the working directory carries over
// from one command to the next, the way an agent expects `cd` to behave;
// variables, functions and options do not, so no call can corrupt a
// long-lived shell for the ones after it.
//
// No process outlives its call: on timeout or cancellation the whole group
// gets SIGTERM and, after a grace period, SIGKILL; once the shell itself has
// exited, anything it left running in the background is killed. Output is
// captured with bounded memory and capped (see Capped).
//
// Start is the exception to "no process outlives its call": it runs a
// command as a background Task, which the Shell keeps in a table by id (as
// bash keeps its jobs) until its final output has been collected. A task
// ends when its command does, on its timeout, on Stop, or on Close.
package shell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// ErrClosed is returned by Run and Start once Close has been called.
var ErrClosed = errors.New("shell: closed")

// Defaults applied to zero Options fields.
const (
	defaultGrace            = 5 * time.Second
	defaultProgressInterval = time.Second
)

// Shell runs commands in a tracked working directory. It is safe for
// concurrent use: each Run starts in the directory current when it starts,
// and the last one to finish decides where the next will start.
type Shell struct {
	path string // shell binary
	// sentinel marks the cwd record in stdout and script is the wrapper
	// run by `sh -c` (the command is its $1), made by the first command's
	// newRun (marked): a process's first crypto/rand read costs start-up
	// a tenth of a millisecond.
	sentinel string
	script   string
	marked   sync.Once
	cfg      Config

	mu     sync.Mutex
	dir    string
	closed bool
	groups map[int]struct{} // process groups of running commands, for Close

	tasks taskTable // background tasks (Start)
}

// Config is how a Shell starts its commands. The zero value starts them as
// they are, with the Shell's own environment.
type Config struct {
	// Wrap, if non-nil, rewrites each command's argv before it starts: the
	// sandbox puts its helper in front (see package sandbox).
	Wrap func(argv []string) []string
	// Env, if non-nil, is the commands' environment.
	Env []string
	// Prepare, if non-nil, runs before each command starts, and its error
	// is the command's: the sandbox makes its private temporary directory
	// there, the first time.
	Prepare func() error
	// Start, if non-nil, starts the process instead of exec.Cmd.Start, and
	// Done is called with its pid once it has been waited for (a subreaper
	// must know which children are its own: see package reaper).
	Start func(*exec.Cmd) error
	Done  func(pid int)
	// Spawn, if non-nil, starts commands instead: argv in dir with env and
	// files as stdin, stdout and stderr, in a process group of its own.
	// It returns the pid and a channel that receives the wait status. On
	// error the command starts as above (the sandbox's spawner falls back
	// to its helper).
	Spawn func(argv []string, dir string, env []string, files [3]*os.File) (int, <-chan syscall.WaitStatus, error)
	// SpawnOnly makes Spawn's error the command's: it does not start as
	// above (the sandbox's namespaces exist only where Spawn starts).
	SpawnOnly bool
	// WrapExtension and SpawnExtension, if non-nil, replace Wrap and Spawn
	// for a Program marked Extension: the sandbox confines extension
	// tools apart from commands (see package sandbox).
	WrapExtension  func(argv []string) []string
	SpawnExtension func(argv []string, dir string, env []string, files [3]*os.File) (int, <-chan syscall.WaitStatus, error)
}

// New returns a Shell whose tracked working directory starts at dir, which
// must be an existing directory (a relative dir is made absolute). It uses
// /bin/bash if present, else /bin/sh.
func New(dir string, cfg Config) (*Shell, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("shell: %w", err)
	}
	if !isDir(abs) {
		return nil, fmt.Errorf("shell: %s is not a directory", abs)
	}
	path := "/bin/sh"
	if fi, err := os.Stat("/bin/bash"); err == nil && !fi.IsDir() {
		path = "/bin/bash"
	}
	return &Shell{
		path:   path,
		cfg:    cfg,
		dir:    abs,
		groups: make(map[int]struct{}),
	}, nil
}

// Path returns the shell binary in use.
func (s *Shell) Path() string { return s.path }

// Dir returns the current tracked working directory.
func (s *Shell) Dir() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dir
}

// Options controls one Run or Start. Zero values select the defaults noted.
type Options struct {
	Timeout          time.Duration // 0 = no timeout
	Grace            time.Duration // between SIGTERM and SIGKILL; 0 = 5s
	Limit            int           // characters kept per stream; 0 = DefaultLimit
	ProgressInterval time.Duration // 0 = 1s

	// Progress, if non-nil, is called every ProgressInterval while the
	// command runs, from one goroutine, with the time elapsed and the last
	// complete or partial non-empty line of output seen so far (stdout or
	// stderr, never containing the sentinel), truncated to 200 characters.
	// It is never called after Run returns. Start ignores it (see Task.Wait).
	Progress func(elapsed time.Duration, lastLine string)

	// OnStop, if non-nil, is called once when the command is asked to stop
	// (timeout or cancellation), just before its group gets SIGTERM: an
	// extension tool's cancellation file is made then.
	OnStop func()

	// MaxTasks applies to Start only: Start fails with ErrTaskLimit while
	// this many background tasks are running. 0 = no limit.
	MaxTasks int
}

func (o Options) withDefaults() Options {
	if o.Grace <= 0 {
		o.Grace = defaultGrace
	}
	if o.ProgressInterval <= 0 {
		o.ProgressInterval = defaultProgressInterval
	}
	return o
}

// Result is the outcome of a command. A non-zero exit, timeout or
// cancellation is reported here rather than as an error, because to the
// agent it is information about the command, not a failure of the tool.
type Result struct {
	Stdout, Stderr       string // capped, sentinel removed
	StdoutCut, StderrCut int64  // characters removed by capping (0 = complete)
	// ExitCode is the exit status; 128+signal when killed by a signal (as
	// bash reports it); -1 if unknown (e.g. the command never started
	// because ctx was already done).
	ExitCode int
	TimedOut bool
	Canceled bool
	Elapsed  time.Duration
	// Dir is the working directory after the command: the directory it
	// ended in if it reached the end of its script, else the one it
	// started in.
	Dir string
}

// Run runs command and waits for it and everything it started to finish.
// It returns an error only if the shell cannot be started or the Shell is
// closed.
func (s *Shell) Run(ctx context.Context, command string, opts Options) (*Result, error) {
	opts = opts.withDefaults()
	if ctx.Err() != nil {
		// Starting a command only to kill it at once could leave partial
		// side effects; not running it at all is the honest outcome.
		return &Result{ExitCode: -1, Canceled: true, Dir: s.Dir()}, nil
	}
	r := newRun(s, command, opts, false)
	if err := s.start(r); err != nil {
		return nil, err
	}
	r.supervise(ctx)
	s.finish(r)
	res := s.outcome(r)
	s.adopt(r, res)
	return res, nil
}

// Program is a program Exec runs directly, without a shell.
type Program struct {
	Argv []string // Argv[0] is the program's path
	Dir  string   // where it runs (absolute)
	Env  []string // its whole environment; nil inherits the Shell's
	// Extension starts it as an extension tool (Config.WrapExtension and
	// SpawnExtension) rather than as a command.
	Extension bool
}

// Exec runs p as Run runs a command: in a process group of its own,
// through Config's Wrap, Start or Spawn (so confined alike), with opts'
// timeout, cancellation (SIGTERM, Grace, SIGKILL), capped output, and
// whatever it leaves in its group killed when it exits. It neither uses
// nor changes the tracked directory.
func (s *Shell) Exec(ctx context.Context, p Program, opts Options) (*Result, error) {
	opts = opts.withDefaults()
	if len(p.Argv) == 0 || !filepath.IsAbs(p.Dir) {
		return nil, errors.New("shell: Exec needs a program and an absolute directory")
	}
	if ctx.Err() != nil {
		return &Result{ExitCode: -1, Canceled: true, Dir: p.Dir}, nil
	}
	r := newRun(s, "", opts, false)
	r.argv, r.env, r.fixed, r.dir = p.Argv, p.Env, true, p.Dir
	if p.Extension && s.cfg.WrapExtension != nil {
		r.cfg.Wrap = s.cfg.WrapExtension
	}
	if p.Extension && s.cfg.SpawnExtension != nil {
		r.cfg.Spawn = s.cfg.SpawnExtension
	}
	if err := s.start(r); err != nil {
		return nil, err
	}
	r.supervise(ctx)
	s.finish(r)
	return s.outcome(r), nil
}

// start launches r in the tracked directory and registers its process group.
// It holds the lock throughout so a concurrent Close either prevents the
// start or sees the group and kills it.
func (s *Shell) start(r *run) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if r.fixed {
		if err := r.start(); err != nil {
			return fmt.Errorf("shell: start %s: %w", r.argv[0], err)
		}
		s.groups[r.pgid()] = struct{}{}
		return nil
	}
	dir, moved := existingAncestor(s.dir)
	if moved {
		// The tracked directory was removed (maybe by another command).
		// Failing every later Run would leave the agent unable to `cd`
		// out, so run in the nearest surviving parent and say so.
		fmt.Fprintf(r.stderr, "boris: working directory %s no longer exists; using %s\n", s.dir, dir)
		s.dir = dir
	}
	r.dir = dir
	if err := r.start(); err != nil {
		return fmt.Errorf("shell: start %s: %w", s.path, err)
	}
	s.groups[r.pgid()] = struct{}{}
	return nil
}

// finish kills whatever the command left running in its process group,
// then collects the remaining output. Killing first matters: a background
// child holding the pipes open would otherwise keep the readers waiting.
func (s *Shell) finish(r *run) {
	pgid := r.pgid()
	_ = syscall.Kill(-pgid, syscall.SIGKILL) // ESRCH: nothing left, fine
	s.mu.Lock()
	delete(s.groups, pgid)
	s.mu.Unlock()
	r.drain()
}

// output assembles the output r has captured so far. ExitCode is -1: it is
// only known once the command has finished (see outcome).
func (s *Shell) output(r *run) *Result {
	return &Result{
		Stdout:    scrub(r.stdout.String(), s.sentinel),
		Stderr:    scrub(r.stderr.String(), s.sentinel),
		StdoutCut: r.stdout.Cut(),
		StderrCut: r.stderr.Cut(),
		ExitCode:  -1,
		Elapsed:   time.Since(r.began),
		Dir:       r.dir,
	}
}

// outcome assembles the Result of a finished r.
func (s *Shell) outcome(r *run) *Result {
	res := s.output(r)
	res.ExitCode = r.exitCode()
	res.TimedOut, res.Canceled = r.timedOut, r.canceled
	return res
}

// adopt makes the directory a foreground command ended in the tracked
// directory, if it reported one that still exists.
func (s *Shell) adopt(r *run, res *Result) {
	if r.filter.found && filepath.IsAbs(r.filter.dir) && isDir(r.filter.dir) {
		res.Dir = r.filter.dir
		s.mu.Lock()
		s.dir = res.Dir
		s.mu.Unlock()
	}
}

// Close SIGKILLs every process group this Shell started that is still
// running, background tasks included, and makes later Run and Start calls
// fail with ErrClosed. The interrupted Runs and tasks end normally with what
// they captured. Close is idempotent and
// safe to call concurrently with Run.
func (s *Shell) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for pgid := range s.groups {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// existingAncestor returns dir if it is still a directory, else its nearest
// ancestor that is, and whether it had to move up.
func existingAncestor(dir string) (string, bool) {
	d := dir
	for !isDir(d) && d != filepath.Dir(d) {
		d = filepath.Dir(d)
	}
	return d, d != dir
}
