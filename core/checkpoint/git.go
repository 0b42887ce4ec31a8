package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mjkoo/boris/internal/gitenv"
)

// gitConfig is set on every git command after gitenv.Args: the index
// keeps an untracked cache, no reflogs, paths unquoted, never bare.
var gitConfig = []string{
	"-c", "core.untrackedCache=true", "-c", "core.logAllRefUpdates=false", "-c", "core.quotePath=false",
	"-c", "core.bare=false", "-c", "advice.addIgnoredFile=false", "-c", "gc.auto=0",
}

// run runs git with args and stdin, returning stdout. extraEnv is added to
// the environment. git runs in the tree's top directory (so pathspecs are
// relative to it), confined when Options.Confine says how, with the
// shadow's directory as file descriptor 3.
func (s *shadow) run(ctx context.Context, stdin []byte, extraEnv []string, args ...string) ([]byte, error) {
	var in io.Reader
	if stdin != nil {
		in = bytes.NewReader(stdin)
	}
	return s.runEnv(ctx, append(append([]string{}, s.env...), extraEnv...), in, args...)
}

// runEnv is run with the whole environment given.
func (s *shadow) runEnv(ctx context.Context, env []string, stdin io.Reader, args ...string) ([]byte, error) {
	argv := append(append(append([]string{s.git}, gitenv.Args...), gitConfig...), args...)
	if s.spawn != nil {
		stdout, stderr, err := s.spawnRun(ctx, argv, env, stdin)
		var started *startError
		if !errors.As(err, &started) {
			if err != nil {
				return stdout, &gitError{args: args, err: err, stderr: strings.TrimSpace(string(stderr) + "\n" + string(stdout))}
			}
			return stdout, nil
		}
		s.log.Debug("git starts through the sandbox helper", "err", started.err)
	}
	if s.confine != nil {
		argv = s.confine(argv)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Dir = s.workDir
	cmd.ExtraFiles = []*os.File{s.root.File()}
	if stdin != nil {
		cmd.Stdin = stdin
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := s.startWait(cmd); err != nil {
		var started *startError
		if errors.As(err, &started) {
			return nil, fmt.Errorf("git %s: %w", args[0], started.err)
		}
		return stdout.Bytes(), &gitError{args: args, err: err, stderr: strings.TrimSpace(stderr.String() + "\n" + stdout.String())}
	}
	return stdout.Bytes(), nil
}

// spawnRun runs argv through Options.Spawn with stdin, returning its
// output; a *startError when it could not start. A cancelled ctx kills
// its process group.
func (s *shadow) spawnRun(ctx context.Context, argv, env []string, stdin io.Reader) (stdout, stderr []byte, err error) {
	var pipes [3][2]*os.File // stdin, stdout, stderr: read end, write end
	for i := range pipes {
		r, w, err := os.Pipe()
		if err != nil {
			closePipes(pipes[:i])
			return nil, nil, &startError{err}
		}
		pipes[i] = [2]*os.File{r, w}
	}
	pid, wait, err := s.spawn(s.root.File(), argv, s.workDir, env, [3]*os.File{pipes[0][0], pipes[1][1], pipes[2][1]})
	pipes[0][0].Close()
	pipes[1][1].Close()
	pipes[2][1].Close()
	if err != nil {
		pipes[0][1].Close()
		pipes[1][0].Close()
		pipes[2][0].Close()
		return nil, nil, &startError{err}
	}
	go func() {
		if stdin != nil {
			_, _ = io.Copy(pipes[0][1], stdin)
		}
		pipes[0][1].Close()
	}()
	var outBuf, errBuf bytes.Buffer
	var wg sync.WaitGroup
	for i, buf := range []*bytes.Buffer{&outBuf, &errBuf} {
		wg.Go(func() {
			_, _ = buf.ReadFrom(pipes[i+1][0])
			pipes[i+1][0].Close()
		})
	}
	var ws syscall.WaitStatus
	select {
	case ws = <-wait:
	case <-ctx.Done():
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		ws = <-wait
	}
	wg.Wait()
	switch {
	case ctx.Err() != nil:
		return outBuf.Bytes(), errBuf.Bytes(), ctx.Err()
	case ws.Signaled():
		return outBuf.Bytes(), errBuf.Bytes(), fmt.Errorf("signal: %v", ws.Signal())
	case ws.ExitStatus() != 0:
		return outBuf.Bytes(), errBuf.Bytes(), fmt.Errorf("exit status %d", ws.ExitStatus())
	}
	return outBuf.Bytes(), errBuf.Bytes(), nil
}

func closePipes(pipes [][2]*os.File) {
	for _, p := range pipes {
		p[0].Close()
		p[1].Close()
	}
}

// startError is a git that could not be started at all.
type startError struct{ err error }

func (e *startError) Error() string { return e.err.Error() }

// startWait starts cmd through Options.Start (the subreaper's, which must
// know git is its own child, or it would reap it and steal its status)
// and waits for it.
func (s *shadow) startWait(cmd *exec.Cmd) error {
	start := cmd.Start
	if s.start != nil {
		start = func() error { return s.start(cmd) }
	}
	if err := start(); err != nil {
		return &startError{err}
	}
	err := cmd.Wait()
	if s.done != nil {
		s.done(cmd.Process.Pid)
	}
	return err
}

// gitError is a failed git command with what it printed.
type gitError struct {
	args   []string
	err    error
	stderr string
}

func (e *gitError) Error() string {
	return fmt.Sprintf("git %s: %v: %s", e.args[0], e.err, e.stderr)
}
