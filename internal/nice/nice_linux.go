// Package nice reads and lowers the scheduling priority (nice value) of
// threads and processes: the checkpoints' start runs on a niced thread,
// and what it starts keeps that priority. Lowering a priority needs no
// privilege; raising one does, so nothing here raises one.
package nice

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// Thread is the nice value of the calling goroutine's OS thread.
func Thread() int {
	runtime.LockOSThread() // nests: a goroutine locked already stays locked
	defer runtime.UnlockOSThread()
	raw, err := unix.Getpriority(unix.PRIO_PROCESS, 0) // 0: this thread
	if err != nil {
		return 0
	}
	return 20 - raw // the raw system call answers 20 - nice
}

// LowerThread lowers the calling thread's priority by n (nice at most
// 19). The caller must have locked its goroutine to the thread.
func LowerThread(n int) {
	_ = unix.Setpriority(unix.PRIO_PROCESS, 0, min(Thread()+n, 19))
}

// Set sets process pid's nice value to n; only a lower priority than it
// has takes without privilege.
func Set(pid, n int) {
	_ = unix.Setpriority(unix.PRIO_PROCESS, pid, n)
}
