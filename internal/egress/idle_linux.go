package egress

import (
	"net"

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
