package egress

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Limits bound the connections through the proxy's doors, so that no
// session or principal can hold the gateway's descriptors (each
// connection holds one, a tunnel two: its client's and its
// destination's). Zero fields take their defaults.
type Limits struct {
	// IdleTimeout closes a tunnel through which no byte has moved either
	// way for this long (checked every quarter of it), and a kept-alive
	// connection that sends no request for this long, or whose
	// destination sends nothing. If zero, 5 minutes.
	IdleTimeout time.Duration
	// PerSession caps the connections open through one door (a session's
	// core): more are answered 429. If zero, 128.
	PerSession int
	// PerPrincipal caps the connections open through all doors of one
	// principal: more are answered 429. If zero, 512.
	PerPrincipal int
	// FDReserve is how many file descriptors the gateway keeps for new
	// sessions: a connection that would leave fewer free (below
	// RLIMIT_NOFILE) is answered 503. If zero, 256.
	FDReserve int
}

// Defaults of Limits.
const (
	DefaultIdleTimeout  = 5 * time.Minute
	DefaultPerSession   = 128
	DefaultPerPrincipal = 512
	DefaultFDReserve    = 256
)

// withDefaults fills l's zero fields.
func (l Limits) withDefaults() Limits {
	l.IdleTimeout = cmpOrDefault(l.IdleTimeout, DefaultIdleTimeout)
	l.PerSession = cmpOrDefault(l.PerSession, DefaultPerSession)
	l.PerPrincipal = cmpOrDefault(l.PerPrincipal, DefaultPerPrincipal)
	l.FDReserve = cmpOrDefault(l.FDReserve, DefaultFDReserve)
	return l
}

func cmpOrDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// Stats are the proxy's counts since it started, for the gateway's
// metrics.
type Stats struct {
	Open    int64 // connections open through doors, tunnels included
	Tunnels int64 // CONNECT tunnels open
	// Refused counts connections refused on arrival, by reason:
	// session_limit, principal_limit, fd_reserve.
	Refused map[string]int64
	// IdleClosed counts tunnels closed by IdleTimeout.
	IdleClosed int64
	// Destinations counts requests refused for where they lead: no rule
	// allows the name (not_allowed), or no address it leads to may be
	// dialled (not_public).
	Destinations map[string]int64
}

// Refusal reasons, the labels of Stats.Refused and Stats.Destinations.
const (
	ReasonSession   = "session_limit"
	ReasonPrincipal = "principal_limit"
	ReasonFDs       = "fd_reserve"
	ReasonDenied    = "not_allowed"
	ReasonNotPublic = "not_public"
)

// counters are Stats' live counts.
type counters struct {
	open, tunnels, idleClosed                  atomic.Int64
	session, principal, fds, denied, notPublic atomic.Int64
}

// Stats returns the counts.
func (p *Proxy) Stats() Stats {
	c := &p.counts
	return Stats{
		Open: c.open.Load(), Tunnels: c.tunnels.Load(), IdleClosed: c.idleClosed.Load(),
		Refused:      map[string]int64{ReasonSession: c.session.Load(), ReasonPrincipal: c.principal.Load(), ReasonFDs: c.fds.Load()},
		Destinations: map[string]int64{ReasonDenied: c.denied.Load(), ReasonNotPublic: c.notPublic.Load()},
	}
}

// refuseWithin bounds how long a refused connection may take to send its
// request and read the answer.
const refuseWithin = 5 * time.Second

// admit decides a connection arriving through d: admitted, counted
// against d and its owner; refused, to be answered why; or, nil, closed
// at once (d is closed, or answering too many refusals already).
func (p *Proxy) admit(d *Door, raw net.Conn) *conn {
	lim := p.Limits.withDefaults()
	free, fdErr := p.freeFDs(lim.FDReserve)
	c := &conn{Conn: raw, door: d}
	p.mu.Lock()
	defer p.mu.Unlock()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		raw.Close()
		return nil
	}
	switch {
	case d.open >= lim.PerSession:
		p.counts.session.Add(1)
		c.refusal = &refusal{http.StatusTooManyRequests, ReasonSession, fmt.Sprintf(
			"this session has %d connections open through the egress proxy, its limit (--egress-max-per-session): close one, or let idle ones end (--egress-idle-timeout %s)", d.open, lim.IdleTimeout)}
	case d.owner != "" && p.byOwner[d.owner] >= lim.PerPrincipal:
		p.counts.principal.Add(1)
		c.refusal = &refusal{http.StatusTooManyRequests, ReasonPrincipal, fmt.Sprintf(
			"your sessions have %d connections open through the egress proxy, the limit of one principal (--egress-max-per-principal): close one, or let idle ones end (--egress-idle-timeout %s)", p.byOwner[d.owner], lim.IdleTimeout)}
	case fdErr == nil && free < lim.FDReserve+2:
		p.counts.fds.Add(1)
		c.refusal = &refusal{http.StatusServiceUnavailable, ReasonFDs, fmt.Sprintf(
			"the gateway keeps its last %d file descriptors for new sessions (--egress-fd-reserve) and has %d free: too many connections are open; retry later", lim.FDReserve, free)}
	}
	if c.refusal != nil {
		if d.refused >= maxRefusing {
			raw.Close()
			return nil
		}
		d.refused++
		c.until = time.Now().Add(refuseWithin)
		_ = raw.SetDeadline(c.until)
	} else {
		d.open++
		p.byOwner[d.owner]++
		p.counts.open.Add(1)
	}
	d.conns[c] = struct{}{}
	return c
}

// release uncounts a closed connection.
func (p *Proxy) release(c *conn) {
	d := c.door
	p.mu.Lock()
	defer p.mu.Unlock()
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.conns, c)
	if c.refusal != nil {
		d.refused--
		return
	}
	d.open--
	p.counts.open.Add(-1)
	if p.byOwner[d.owner]--; p.byOwner[d.owner] <= 0 {
		delete(p.byOwner, d.owner)
	}
}

// fdCount is the proxy's last count of the descriptors open. Counting
// them reads /proc/self/fd, about 1 µs a descriptor (2 ms with a thousand
// tunnels open: go test -bench Checks ./internal/egress), so a new connection is mostly judged
// by an estimate: the descriptors open beside the proxy's own
// connections at the last count, plus those now open.
type fdCount struct {
	mu    sync.Mutex
	other int       // descriptors open beside the proxy's connections, at the count
	at    time.Time // when counted; zero: never
}

// fdRecount is how old a count may be before the estimate is not trusted.
const fdRecount = time.Second

// freeFDs returns how many more file descriptors this process may open,
// its RLIMIT_NOFILE less those open: estimated while that leaves more
// than twice reserve free and the last count is recent, counted else.
func (p *Proxy) freeFDs(reserve int) (int, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, fmt.Errorf("read RLIMIT_NOFILE: %w", err)
	}
	limit := int(min(lim.Cur, 1<<30))
	own := int(p.counts.open.Load() + p.counts.tunnels.Load()) // a tunnel holds two
	p.fds.mu.Lock()
	defer p.fds.mu.Unlock()
	if free := limit - p.fds.other - own; !p.fds.at.IsZero() && time.Since(p.fds.at) < fdRecount && free > 2*reserve {
		return free, nil
	}
	open, err := openFDs()
	if err != nil {
		return 0, err
	}
	p.fds.other, p.fds.at = open-own, time.Now()
	return limit - open, nil
}

// openFDs counts this process's open file descriptors.
func openFDs() (int, error) {
	for _, dir := range []string{"/proc/self/fd", "/dev/fd"} {
		f, err := os.Open(dir)
		if err != nil {
			continue
		}
		names, err := f.Readdirnames(-1)
		f.Close()
		if err == nil {
			return len(names) - 1, nil // less the directory's own
		}
	}
	return 0, fmt.Errorf("count open file descriptors: neither /proc/self/fd nor /dev/fd can be read")
}

// RaiseFDLimit raises this process's RLIMIT_NOFILE soft limit to its hard
// limit, if it is not there already (Go's runtime does so at start on
// most systems; this covers the rest), and returns the limit in force.
// It sets nothing when the soft limit is already the hard one: setting it
// would also give every child process the raised limit.
func RaiseFDLimit() (uint64, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, fmt.Errorf("read RLIMIT_NOFILE: %w", err)
	}
	// (uint64: the fields are int64 on FreeBSD.)
	if lim.Cur >= lim.Max {
		return uint64(lim.Cur), nil
	}
	raised := lim
	raised.Cur = lim.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised); err != nil {
		return uint64(lim.Cur), fmt.Errorf("raise RLIMIT_NOFILE from %d to %d: %w", lim.Cur, lim.Max, err)
	}
	return uint64(raised.Cur), nil
}
