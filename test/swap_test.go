package test

import (
	"runtime"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/mjkoo/boris/internal/nice"
)

// swapper exchanges two paths (renameat2 RENAME_EXCHANGE) in a loop until
// stopped, for the race tests that swap a directory and a symbolic link
// under calls.
type swapper struct {
	flips atomic.Int64
	stop  chan struct{}
	done  chan error
}

// startSwapper proves the exchange works here, then swaps a and b until
// stop. The loop runs on a thread of its own at nice 10: alone it still
// swaps as fast as the kernel allows, and beside the rest of make test it
// takes the CPU no other test wants instead of a share of the busy
// CPUs (a spinning loop at nice 0 held a CPU for the whole test, which
// slowed the calls it races with, so the loop ran longer still).
func startSwapper(t *testing.T, a, b string) *swapper {
	t.Helper()
	if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
		t.Fatalf("renameat2 RENAME_EXCHANGE %s <-> %s: %v (the race test needs it)", a, b, err)
	}
	s := &swapper{stop: make(chan struct{}), done: make(chan error, 1)}
	go func() {
		// Never unlocked: the niced thread ends with the goroutine.
		runtime.LockOSThread()
		nice.LowerThread(10)
		defer close(s.done)
		for {
			select {
			case <-s.stop:
				return
			default:
			}
			if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
				s.done <- err
				return
			}
			s.flips.Add(1)
		}
	}()
	return s
}

// end stops the swapping and fails the test if a swap failed or too few
// happened for the calls to have raced with them (at least one per call).
func (s *swapper) end(t *testing.T, calls int) int64 {
	t.Helper()
	close(s.stop)
	if err := <-s.done; err != nil {
		t.Fatalf("swapping: %v", err)
	}
	n := s.flips.Load()
	if n < int64(calls) {
		t.Errorf("%d swaps during %d calls: too few for the calls to have raced with them", n, calls)
	}
	return n
}
