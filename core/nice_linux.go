package core

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// threadNice is the nice value of the calling goroutine's thread: above 0
// on the checkpoints' niced start (checkpoint.atLowPriority), 0 elsewhere.
func threadNice() int {
	runtime.LockOSThread() // nests: a goroutine locked already stays locked
	defer runtime.UnlockOSThread()
	raw, err := unix.Getpriority(unix.PRIO_PROCESS, 0)
	if err != nil {
		return 0
	}
	return 20 - raw // the raw system call answers 20 - nice
}

// renice lowers the priority of process pid to nice (lowering needs no
// privilege).
func renice(pid, nice int) {
	_ = unix.Setpriority(unix.PRIO_PROCESS, pid, nice)
}
