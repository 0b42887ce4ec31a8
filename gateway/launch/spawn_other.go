//go:build !linux

package launch

import (
	"os/exec"
	"syscall"

	"github.com/mjkoo/boris/internal/reaper"
)

// sysProcAttr puts a core in its own process group. Without Linux's
// parent-death signal, cores notice a dead gateway by their stdin closing.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// Spawner starts processes; elsewhere than Linux no thread pinning is needed.
type Spawner struct{}

// NewSpawner returns a Spawner; the reaper is a Linux matter.
func NewSpawner(*reaper.Reaper) *Spawner { return &Spawner{} }

func (s *Spawner) done(int) {}

func (s *Spawner) start(cmd *exec.Cmd) error { return cmd.Start() }

// killSession is Linux-only; elsewhere a core's commands end with the core.
func killSession(int) {}

// awaitExit is a no-op elsewhere: there is no session sweep to do first.
func awaitExit(int) {}
