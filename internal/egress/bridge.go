package egress

import (
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
// not half-close.
//
// A tunnel holds exactly its two sockets, as Limits counts it: the copies
// do not splice(2), since Go's splice keeps a pipe (two more descriptors)
// for each direction of each tunnel for as long as it waits, idle or not,
// which tripled what a tunnel costs, ran the gateway past the descriptors
// its reserve keeps, and ran a session's spawner (which bridges its
// tunnels, under the same limit) out of the descriptors it needs to start
// commands. Nor does an idle tunnel hold a buffer: each direction waits
// until its source is readable, then borrows one.
func Join(a, b net.Conn) {
	var once sync.Once
	done := make(chan struct{})
	pipe := func(dst, src net.Conn) {
		copyConn(dst, src)
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

// copyBufs are the copies' buffers, held only while bytes are in flight.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// copyConn copies src to dst until either fails or src ends.
func copyConn(dst, src net.Conn) {
	for {
		if waitReadable(src) != nil {
			return
		}
		bp := copyBufs.Get().(*[]byte)
		n, err := src.Read(*bp)
		if n > 0 {
			if _, werr := dst.Write((*bp)[:n]); werr != nil {
				err = werr
			}
		}
		copyBufs.Put(bp)
		if err != nil {
			return
		}
	}
}
