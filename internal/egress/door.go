package egress

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// A Door is one core's own way into the proxy: a Unix socket of its own,
// whose connections count against that core's session and the principal
// it belongs to (Limits). The gateway opens one per core and passes its
// path as the core's --egress-socket; its name is random, so a command
// that learns nothing of other sessions cannot find theirs.
type Door struct {
	p     *Proxy
	owner string // the principal whose cap the door's connections count against
	path  string
	ln    net.Listener

	mu      sync.Mutex
	conns   map[*conn]struct{} // open, admitted or not
	closing chan struct{}      // closed by Close
	open    int                // admitted connections open
	refused int                // refused connections still being answered
	closed  bool
}

// Open opens a door for a core of owner (the principal's key; "" counts
// against no principal) in the proxy's Dir, and serves it until the door
// or the proxy is closed.
func (p *Proxy) Open(owner string) (*Door, error) {
	var name [16]byte
	_, _ = rand.Read(name[:])
	path := filepath.Join(p.Dir, hex.EncodeToString(name[:])+".sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("open a door to the egress proxy: %w", err)
	}
	return p.serveDoor(ln, owner, path)
}

// serveDoor serves ln as a door of owner.
func (p *Proxy) serveDoor(ln net.Listener, owner, path string) (*Door, error) {
	d := &Door{p: p, owner: owner, path: path, ln: ln, conns: map[*conn]struct{}{}, closing: make(chan struct{})}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		ln.Close()
		return nil, fmt.Errorf("open a door to the egress proxy: %w", http.ErrServerClosed)
	}
	p.doors[d] = struct{}{}
	p.mu.Unlock()
	go func() {
		_ = p.server().Serve(doorListener{d})
		d.Close() // its listener failed or closed
	}()
	return d, nil
}

// done is closed once the door is.
func (d *Door) done() <-chan struct{} { return d.closing }

// Path is the door's socket.
func (d *Door) Path() string {
	if d == nil {
		return ""
	}
	return d.path
}

// Close closes the door and every connection through it, tunnels
// included, and removes its socket. A nil Door closes nothing.
func (d *Door) Close() error {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	close(d.closing)
	conns := make([]*conn, 0, len(d.conns))
	for c := range d.conns {
		conns = append(conns, c)
	}
	d.mu.Unlock()
	err := d.ln.Close()
	for _, c := range conns {
		c.Close()
	}
	if d.path != "" {
		os.Remove(d.path)
	}
	d.p.mu.Lock()
	delete(d.p.doors, d)
	d.p.mu.Unlock()
	return err
}

// doorListener accepts a door's connections, each admitted or refused on
// arrival (see Proxy.admit).
type doorListener struct{ d *Door }

func (l doorListener) Addr() net.Addr { return l.d.ln.Addr() }
func (l doorListener) Close() error   { return l.d.ln.Close() }

// Accept returns the next connection. One refused while more than
// maxRefusing refusals of this door are still being answered is closed
// at once: a flood of refused connections holds no more descriptors.
func (l doorListener) Accept() (net.Conn, error) {
	for {
		raw, err := l.d.ln.Accept()
		if err != nil {
			return nil, err
		}
		if c := l.d.p.admit(l.d, raw); c != nil {
			return c, nil
		}
	}
}

// maxRefusing bounds the refused connections of one door being answered
// at once.
const maxRefusing = 16

// conn is a connection through a door: admitted (counted against its
// session and principal until closed), or refused, with why, answered
// with that and closed.
type conn struct {
	net.Conn
	door    *Door
	refusal *refusal  // nil when admitted
	until   time.Time // a refused connection's end, whatever the server sets
	once    sync.Once
}

// SetDeadline, SetReadDeadline and SetWriteDeadline keep a refused
// connection's deadlines no later than its end: the HTTP server's own
// (30 s for a request's header) would hold it longer.
func (c *conn) SetDeadline(t time.Time) error      { return c.Conn.SetDeadline(c.clamp(t)) }
func (c *conn) SetReadDeadline(t time.Time) error  { return c.Conn.SetReadDeadline(c.clamp(t)) }
func (c *conn) SetWriteDeadline(t time.Time) error { return c.Conn.SetWriteDeadline(c.clamp(t)) }

func (c *conn) clamp(t time.Time) time.Time {
	if c.refusal != nil && (t.IsZero() || t.After(c.until)) {
		return c.until
	}
	return t
}

// refusal is why a connection is refused: an HTTP status and a line.
type refusal struct {
	status int
	reason string // the metrics' label
	why    string
}

// Close closes the connection and releases what it counted against.
func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.door.p.release(c) })
	return err
}

// connKey is the context key of the *conn a request arrived on.
type connKey struct{}

// connOf returns the door connection r arrived on, nil for another.
func connOf(r *http.Request) *conn {
	c, _ := r.Context().Value(connKey{}).(*conn)
	return c
}

// withConn is the server's ConnContext: it files the door connection.
func withConn(ctx context.Context, c net.Conn) context.Context {
	if dc, ok := c.(*conn); ok {
		return context.WithValue(ctx, connKey{}, dc)
	}
	return ctx
}
