//go:build unix

package checkpoint

import (
	"fmt"
	"syscall"
)

// acquire takes the store's lock: the in-process mutex, then an exclusive
// flock on the shadow's lock file, which other cores on the same tree
// share. The returned func releases both.
func (s *shadow) acquire() (func(), error) {
	s.mu.Lock()
	for {
		err := syscall.Flock(int(s.lock.Fd()), syscall.LOCK_EX)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			s.mu.Unlock()
			return nil, fmt.Errorf("lock shadow repository: %w", err)
		}
		break
	}
	return func() {
		_ = syscall.Flock(int(s.lock.Fd()), syscall.LOCK_UN)
		s.mu.Unlock()
	}, nil
}
