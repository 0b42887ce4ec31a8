package checkpoint

import (
	"runtime"

	"github.com/mjkoo/boris/internal/nice"
)

// startNice is how much lower than the session's the priority of the
// starting checkpoint's reading of the tree is: it yields the CPU to
// calls, the session's own and other sessions' on the same host.
const startNice = 10

// atLowPriority runs f on an OS thread of its own, niced by startNice,
// and returns once it has. The thread is never given back to the Go
// runtime (the goroutine ends locked to it, so the thread ends with it):
// no later work runs niced, and raising a priority again, which needs a
// privilege, is never needed.
func atLowPriority(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		nice.LowerThread(startNice)
		f()
	}()
	<-done
}
