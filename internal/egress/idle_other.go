//go:build !linux

package egress

import "net"

// movedBytes is nil where the kernel's count is not read: the copies
// count (see joinIdle).
func movedBytes(net.Conn) func() (uint64, bool) { return nil }

// waitReadable returns at once: the copy's read waits, with its buffer.
func waitReadable(net.Conn) error { return nil }
