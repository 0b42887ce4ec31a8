package gateway

import (
	"os/exec"
	"runtime"
	"syscall"
)

// sysProcAttr puts a core in its own process group and asks the kernel to
// SIGKILL it when the gateway dies.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// spawner starts processes from one OS thread that never exits. Linux
// delivers the parent-death signal when the thread that forked a child
// exits, not the process; Go may retire threads, so forking from a locked,
// permanent thread ties the signal to the gateway's life.
type spawner struct {
	reqs chan spawnReq
}

type spawnReq struct {
	cmd  *exec.Cmd
	done chan error
}

func newSpawner() *spawner {
	s := &spawner{reqs: make(chan spawnReq)}
	go s.loop()
	return s
}

func (s *spawner) loop() {
	runtime.LockOSThread() // never unlocked: the thread lives as long as the gateway
	for r := range s.reqs {
		r.done <- r.cmd.Start()
	}
}

func (s *spawner) start(cmd *exec.Cmd) error {
	done := make(chan error, 1)
	s.reqs <- spawnReq{cmd: cmd, done: done}
	return <-done
}
