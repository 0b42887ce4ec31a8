//go:build !linux

package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// SpawnerArg is the first argument that turns the boris binary into the
// session's spawner (Linux only).
const SpawnerArg = "__boris-sandbox-spawner"

// Spawner is Linux only.
type Spawner struct{}

// StartSpawner fails off Linux: there is no sandbox to spawn in.
func (s *Sandbox) StartSpawner(func(*exec.Cmd) error, *GitDomain) (*Spawner, error) {
	return nil, errors.New("sandbox: the spawner is Linux only")
}

// StartReadOnlySpawner fails off Linux: there is no sandbox to spawn in.
func (s *Sandbox) StartReadOnlySpawner([]string, []string, []*os.File, func(*exec.Cmd) error) (*Spawner, error) {
	return nil, errors.New("sandbox: the spawner is Linux only")
}

// Pid is unused off Linux.
func (sp *Spawner) Pid() int { return 0 }

// Wait is unused off Linux.
func (sp *Spawner) Wait() error { return nil }

// Start is unused off Linux.
func (sp *Spawner) Start([]string, string, []string, [3]*os.File) (int, <-chan syscall.WaitStatus, error) {
	return 0, nil, errors.New("sandbox: the spawner is Linux only")
}

// StartExtension is unused off Linux.
func (sp *Spawner) StartExtension([]string, string, []string, [3]*os.File) (int, <-chan syscall.WaitStatus, error) {
	return 0, nil, errors.New("sandbox: the spawner is Linux only")
}

// HasGit is false off Linux.
func (sp *Spawner) HasGit() bool { return false }

// StartGit is unused off Linux.
func (sp *Spawner) StartGit([]string, string, []string, [3]*os.File) (int, <-chan syscall.WaitStatus, error) {
	return 0, nil, errors.New("sandbox: the spawner is Linux only")
}

// Close is unused off Linux.
func (sp *Spawner) Close() {}

// RunSpawner is Linux only.
func RunSpawner([]string) int { return helperFailed }

// Probe has nothing to test off Linux.
func (s *Sandbox) Probe() error { return nil }

// StartGitSpawner fails off Linux: there is no sandbox to spawn in.
func (s *Sandbox) StartGitSpawner(func(*exec.Cmd) error) (*Spawner, error) {
	return nil, errors.New("sandbox: Linux only")
}

// WrapGit returns argv as it is off Linux.
func (s *Sandbox) WrapGit(argv []string) []string { return argv }

// Run fails off Linux.
func (sp *Spawner) Run(context.Context, []string, string, []string) ([]byte, []byte, error) {
	return nil, nil, errors.New("sandbox: Linux only")
}
