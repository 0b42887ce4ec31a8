package egress

import (
	"io"
	"net"
	"sync"
)

// Bridge accepts connections on ln (the loopback port inside a session's
// network namespace) and joins each to a new connection to the Unix
// socket at socket (the egress proxy), until ln is closed. A connection
// the socket refuses is closed at once: the client sees the proxy gone.
func Bridge(ln net.Listener, socket string) error {
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		go func() {
			up, err := net.Dial("unix", socket)
			if err != nil {
				c.Close()
				return
			}
			Join(c, up)
			c.Close()
			up.Close()
		}()
	}
}

// Join copies a to b and b to a until either direction ends, then
// closes both: a tunnel whose one side is gone (a session ended, a server
// hung up) must not hold the other for ever, and HTTP and TLS clients do
// not half-close. io.Copy between TCP and Unix sockets uses splice(2), so
// the bytes stay in the kernel.
func Join(a, b net.Conn) {
	var once sync.Once
	done := make(chan struct{})
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		once.Do(func() {
			a.Close()
			b.Close()
			close(done)
		})
	}
	go pipe(a, b)
	go pipe(b, a)
	<-done
}
