// Package swaptest swaps two paths in a loop for the race tests that
// exchange a directory or a file with a symbolic link under the code they
// attack (renameat2 RENAME_EXCHANGE; Linux).
package swaptest

import (
	"runtime"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/mjkoo/boris/internal/nice"
)

// Swapper exchanges two paths in a loop until ended.
type Swapper struct {
	flips atomic.Int64
	stop  chan struct{}
	done  chan error
}

// Start proves the exchange works here, then swaps a and b until End.
// The loop runs on a thread of its own at nice 10: alone it still swaps
// as fast as the kernel allows, and beside the rest of make test it takes
// the CPU no other test wants instead of a share of the busy CPUs (a
// spinning loop at nice 0 held a CPU for the whole test, which slowed the
// calls it races with, so the loop ran longer still).
func Start(t testing.TB, a, b string) *Swapper {
	t.Helper()
	if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
		t.Fatalf("renameat2 RENAME_EXCHANGE %s <-> %s: %v (the race test needs it)", a, b, err)
	}
	s := &Swapper{stop: make(chan struct{}), done: make(chan error, 1)}
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

// End stops the swapping and fails the test if a swap failed or too few
// happened for the calls to have raced with them (at least one per call).
// It returns how many swaps there were.
func (s *Swapper) End(t testing.TB, calls int) int64 {
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
