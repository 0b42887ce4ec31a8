package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// GitSpec is the commands' rules with no TCP connect at all: for the git
// Boris runs on workspaces, which lie within the commands' reach (so git
// must be confined as they are) and never need the network.
func (s *Sandbox) GitSpec() Spec {
	spec := s.rules()
	spec.DenyTCP, spec.TCPPorts = true, nil
	return spec
}

// StartGitSpawner starts a spawner for workspace git under GitSpec: born
// in namespaces of its own, with the private root of the commands' rules,
// whenever commands have namespaces (a loopback of its own, no egress
// bridge), and with start (the subreaper's, or exec.Cmd.Start when nil).
func (s *Sandbox) StartGitSpawner(start func(*exec.Cmd) error) (*Spawner, error) {
	var opts []string
	if s.ns {
		opts = append(opts, optNamespaces)
	}
	if !s.enforced {
		opts = append(opts, optNoLandlock)
	}
	return s.startSpawner(s.GitSpec(), opts, nil, start)
}

// WrapGit is Wrap under GitSpec: workspace git through the helper, where
// its spawner cannot start. Unconfined, argv is returned as it is.
func (s *Sandbox) WrapGit(argv []string) []string {
	if !s.Enforced() {
		return argv
	}
	out := append([]string{selfExe, HelperArg}, encodeSpec(s.GitSpec())...)
	return append(append(out, "--"), argv...)
}

// Run runs argv in dir with env through the spawner, with no input, and
// returns what it wrote. A cancelled ctx kills its process group. The
// error says how it ended when that was not exit status 0.
func (sp *Spawner) Run(ctx context.Context, argv []string, dir string, env []string) (stdout, stderr []byte, err error) {
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: run %s: %w", argv[0], err)
	}
	defer devnull.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: run %s: %w", argv[0], err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, nil, fmt.Errorf("sandbox: run %s: %w", argv[0], err)
	}
	pid, wait, err := sp.Start(argv, dir, env, [3]*os.File{devnull, outW, errW})
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, nil, err
	}
	var outBuf, errBuf bytes.Buffer
	var wg sync.WaitGroup
	for _, p := range []struct {
		r *os.File
		b *bytes.Buffer
	}{{outR, &outBuf}, {errR, &errBuf}} {
		wg.Go(func() {
			_, _ = p.b.ReadFrom(p.r)
			p.r.Close()
		})
	}
	ws := waitOrKill(ctx, pid, wait)
	wg.Wait()
	return outBuf.Bytes(), errBuf.Bytes(), exitError(ctx, ws)
}

// waitOrKill waits for a command's end, killing its process group first
// if ctx ends.
func waitOrKill(ctx context.Context, pid int, wait <-chan syscall.WaitStatus) syscall.WaitStatus {
	select {
	case ws := <-wait:
		return ws
	case <-ctx.Done():
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		return <-wait
	}
}

// exitError describes an end that was not exit status 0, or nil.
func exitError(ctx context.Context, ws syscall.WaitStatus) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case ws.Signaled():
		return fmt.Errorf("signal: %v", ws.Signal())
	case ws.ExitStatus() != 0:
		return fmt.Errorf("exit status %d", ws.ExitStatus())
	}
	return nil
}
