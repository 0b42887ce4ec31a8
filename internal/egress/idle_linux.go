package egress

import (
	"errors"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// movedBytes returns a function reading how many bytes c, a TCP
// connection, has received and sent, from the kernel's TCP_INFO
// (tcpi_bytes_received, tcpi_bytes_sent): every byte of a tunnel crosses
// its destination's connection, so one count sees both directions
// without touching the copies. nil when c is not TCP.
func movedBytes(c net.Conn) func() (uint64, bool) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return nil
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	return func() (uint64, bool) {
		var n uint64
		var ierr error
		err := raw.Control(func(fd uintptr) {
			var info *unix.TCPInfo
			if info, ierr = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO); ierr == nil {
				n = info.Bytes_received + info.Bytes_sent
			}
		})
		return n, err == nil && ierr == nil
	}
}

// waitReadable waits until c has bytes to read, an end or an error (or
// its read deadline passes, or it is closed, which it returns), holding
// nothing meanwhile: it peeks, and waits in the runtime's poller while
// there is nothing to peek. Nil at once for a connection with no socket.
func waitReadable(c net.Conn) error {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	var one [1]byte
	return raw.Read(func(fd uintptr) bool {
		_, _, err := unix.Recvfrom(int(fd), one[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
		return !errors.Is(err, unix.EAGAIN)
	})
}
