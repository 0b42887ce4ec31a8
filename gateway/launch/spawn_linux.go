package launch

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/mjkoo/boris/internal/procstat"
	"github.com/mjkoo/boris/internal/reaper"
)

// sysProcAttr puts a core in a session of its own (so also its own process
// group) and asks the kernel to SIGKILL it when the gateway dies. The core
// puts each command in a process group of its own, but they stay in the
// core's session: that is how killSession finds them if the core dies
// without ending them.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}

// awaitExit blocks until process pid has exited, without reaping it.
func awaitExit(pid int) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return
		}
	}
}

// killSession SIGKILLs every process left in session sid: the commands of a
// core that crashed or was killed before it could end them itself. It
// reads each process's stat file by name: a glob of /proc/[0-9]*/stat
// would list every process's directory, which makes the kernel build an
// entry for each of its fifty-odd files, for every process on the host,
// at every core's exit.
func killSession(sid int) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := procstat.Read(pid); err == nil && st.Session == sid {
			_ = syscall.Kill(st.PID, syscall.SIGKILL)
		}
	}
}

// Spawner starts processes from one OS thread that never exits. Linux
// delivers the parent-death signal when the thread that forked a child
// exits, not the process; Go may retire threads, so forking from a locked,
// permanent thread ties the signal to the gateway's life.
type Spawner struct {
	reqs   chan spawnReq
	reaper *reaper.Reaper // nil: the gateway is no subreaper
}

type spawnReq struct {
	cmd  *exec.Cmd
	done chan error
}

// NewSpawner returns a Spawner whose cores rp starts and adopts (nil: none).
func NewSpawner(rp *reaper.Reaper) *Spawner {
	s := &Spawner{reqs: make(chan spawnReq), reaper: rp}
	go s.loop()
	return s
}

func (s *Spawner) loop() {
	runtime.LockOSThread() // never unlocked: the thread lives as long as the gateway
	for r := range s.reqs {
		if s.reaper != nil {
			r.done <- s.reaper.Start(r.cmd)
		} else {
			r.done <- r.cmd.Start()
		}
	}
}

// done tells the reaper a core has been waited for.
func (s *Spawner) done(pid int) {
	if s.reaper != nil {
		s.reaper.Done(pid)
	}
}

func (s *Spawner) start(cmd *exec.Cmd) error {
	done := make(chan error, 1)
	s.reqs <- spawnReq{cmd: cmd, done: done}
	return <-done
}
