package egress

import (
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// joinIdle joins client and up (a tunnel) like Join, and closes both once
// no byte has moved either way for idle, reporting whether that is how
// it ended. What moved is read from the kernel's count for up (see
// movedBytes), so the copies themselves stay as Join makes them (waiting
// on the sockets themselves, with no buffer while idle);
// where the kernel keeps no count, the copies count.
func joinIdle(client, up net.Conn, idle time.Duration) (idled bool) {
	moved := movedBytes(up)
	if moved == nil {
		var n atomic.Uint64
		client, up = countingConn{client, &n}, countingConn{up, &n}
		moved = func() (uint64, bool) { return n.Load(), true }
	}
	w := &idleWatch{moved: moved, idle: idle, tick: max(idle/4, 10*time.Millisecond), last: time.Now()}
	w.mu.Lock()
	w.timer = time.AfterFunc(w.tick, func() { w.check(client, up) })
	w.mu.Unlock()
	Join(client, up)
	w.mu.Lock()
	w.timer.Stop()
	idled = w.idled
	w.mu.Unlock()
	return idled
}

// idleWatch checks a tunnel's byte count every tick.
type idleWatch struct {
	moved      func() (uint64, bool)
	idle, tick time.Duration

	mu    sync.Mutex
	timer *time.Timer
	count uint64
	last  time.Time // when count last changed
	idled bool
}

// check closes the tunnel if nothing moved for idle, else looks again in
// a tick.
func (w *idleWatch) check(client, up net.Conn) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, ok := w.moved()
	if !ok {
		return // closed
	}
	if now := time.Now(); n != w.count {
		w.count, w.last = n, now
	} else if now.Sub(w.last) >= w.idle {
		w.idled = true
		client.Close()
		up.Close()
		return
	}
	w.timer.Reset(w.tick)
}

// countingConn counts the bytes read through it into n.
type countingConn struct {
	net.Conn
	n *atomic.Uint64
}

func (c countingConn) Read(b []byte) (int, error) {
	k, err := c.Conn.Read(b)
	c.n.Add(uint64(k))
	return k, err
}

// idleConn is a destination connection of the forwarding transport: a
// read or write that waits longer than idle fails, so a destination that
// stalls a response frees its client.
type idleConn struct {
	net.Conn
	idle time.Duration
}

func (c idleConn) Read(b []byte) (int, error) {
	_ = c.SetReadDeadline(time.Now().Add(c.idle))
	return c.Conn.Read(b)
}

func (c idleConn) Write(b []byte) (int, error) {
	_ = c.SetWriteDeadline(time.Now().Add(c.idle))
	return c.Conn.Write(b)
}
