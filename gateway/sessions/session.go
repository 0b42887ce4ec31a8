package sessions

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mjkoo/boris/gateway/launch"
	"github.com/mjkoo/boris/gateway/wire"
)

// Limits are the bounds every session of a Handler keeps.
type Limits struct {
	MaxMessage  int64   // largest core message
	Buffered    int64   // bytes of core messages held per session
	Total       *Budget // the gateway's budget, shared by sessions
	MaxInFlight int     // client requests in flight, reserved ids included
	Replay      ReplayLimits
	// ShedElsewhere sheds replay history another session keeps, the
	// largest's first, when the gateway's budget is full: one tenant's
	// history never keeps another's replies out. nil in tests of one
	// session.
	ShedElsewhere func(except *Session) bool
}

// Session is one MCP session: a core process and the routing of its
// messages to the HTTP requests waiting for them (docs/reference/gateway.md#http-surface).
type Session struct {
	ID      string       // the Mcp-Session-Id that names it
	Subject string       // its principal's, for logs
	Core    *launch.Core // its core process
	log     *slog.Logger
	lim     Limits
	held    *Budget // bytes of this session's core messages the gateway holds
	created time.Time
	last    atomic.Int64 // unix nanos of the last request
	// routed counts requests handed to the session and not yet in
	// flight (a principal core's call waits for the core's parameter
	// headers first): the session is not idle meanwhile.
	routed atomic.Int32

	mu       sync.Mutex
	calls    map[string]*Call // in-flight client requests, by id key
	progress map[string]*Call // the same, by progress token key
	// reserved are ids whose requester is gone (cancelled, or the client
	// disconnected) while the core still owes their response: a new
	// request may not take such an id until the core has answered, or it
	// would receive the old request's answer (and the core, go-sdk, would
	// refuse the duplicate id). The core answers every request, a
	// cancelled one as soon as its command is killed (SIGKILL at the
	// latest 5 s after the cancellation); if the core dies, so does the
	// session. So no timer frees an id early: a freed id would bring the
	// stale answer back.
	reserved map[string]struct{}
	// streams are the session's resumable SSE streams (see replay.go).
	streams streamSet

	// principal is set on a principal's core, which serves the 2026-07-28
	// requests of one principal (docs/reference/gateway.md#stateless-requests-2026-07-28) instead of one session.
	principal *principalCore

	done      chan struct{} // closed when the session ends
	closeOnce sync.Once
	reason    string // why it ended, valid after done
}

// Call is a client request waiting for its response.
type Call struct {
	id     jsonrpc.ID // as the client sent it: errors the gateway writes carry it
	coreID jsonrpc.ID // as the core was sent it: id, but on a principal's core its own
	key    string     // wire.IDKey(coreID)
	token  string     // key of the progress token the core was sent, or ""
	// On a principal's core, the gateway gives every request an id and a
	// progress token of its own (clients of one principal share the core,
	// and their ids may collide): these are the client's, put back into
	// what the core sends for the request. nil elsewhere.
	clientID, clientToken json.RawMessage
	// stream, once it is answered on a resumable stream, is that stream:
	// a call whose stream nobody reads (its client left) keeps nothing
	// busy. Under Session.mu.
	stream *stream
	// finished, if set, is told the response of a call answered on a
	// resumable stream when it comes, whether a client reads it or not
	// (the tool call's log line). Set before the call is awaited.
	Finished func(res []byte)
	notes    chan coreMsg  // notifications and requests tied to it; dropped when full
	resp     chan coreMsg  // its response; capacity 1, never blocks routing
	ended    chan struct{} // closed when the client cancelled it
}

// NewSession returns the session id of a principal (subject names it in
// logs) served by core: a principal's core, for its 2026-07-28 requests,
// if principal.
func NewSession(id, subject string, core *launch.Core, lim Limits, log *slog.Logger, principal bool) *Session {
	held := &Budget{max: lim.Buffered, parent: lim.Total}
	s := &Session{
		ID: id, Subject: subject, Core: core, log: log, lim: lim, created: time.Now(), held: held,
		calls: map[string]*Call{}, progress: map[string]*Call{}, reserved: map[string]struct{}{},
		streams: streamSet{byID: map[string]*stream{}, lim: lim.Replay, held: held}, done: make(chan struct{}),
	}
	if principal {
		s.principal = &principalCore{s: s, internal: map[string]*Call{}}
		s.principal.hub = newListenHub(s)
	}
	s.Touch()
	return s
}

// Touch records a request of the session now: its idle time starts over.
func (s *Session) Touch() { s.last.Store(time.Now().UnixNano()) }

// Hold marks a request on its way to the session, and touches it: the
// session is not ended as idle until the returned release is called
// (once the request is in flight, or refused).
func (s *Session) Hold() (release func()) {
	s.routed.Add(1)
	s.Touch()
	return sync.OnceFunc(func() { s.routed.Add(-1) })
}

// Refusals of Register and Add.
var (
	errDuplicateID = errors.New("a request with this id is already in flight")
	errReservedID  = errors.New("this request id was cancelled or abandoned and the core has not answered it yet; use a new id (MCP forbids reusing request ids within a session)")
	ErrTooMany     = errors.New("too many requests in flight in this session")
)

// Register records an in-flight request so its messages find their way.
// It fails if the id is in flight or reserved (JSON-RPC ids must be
// unique), or if the session has lim.MaxInFlight requests in flight.
func (s *Session) Register(m *wire.Message) (*Call, error) {
	c := NewCall(m.Req.ID, m.Req.ID, wire.ProgressTokenOf(m.Req.Params))
	if err := s.Add(c); err != nil {
		return nil, err
	}
	return c, nil
}

// NewCall returns the call of a request the client sent with id and the
// core is sent with coreID and the progress token key token.
func NewCall(id, coreID jsonrpc.ID, token string) *Call {
	return &Call{
		id: id, coreID: coreID, key: wire.IDKey(coreID), token: token,
		notes: make(chan coreMsg, 64), resp: make(chan coreMsg, 1), ended: make(chan struct{}),
	}
}

// Add records c as in flight; see Register.
func (s *Session) Add(c *Call) error {
	key := c.key
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.calls[key]; dup {
		return errDuplicateID
	}
	if _, dup := s.reserved[key]; dup {
		return errReservedID
	}
	if n := len(s.calls) + len(s.reserved); n >= s.lim.MaxInFlight {
		return fmt.Errorf("%w (%d, cancelled ones the core has not finished included); wait for some to finish", ErrTooMany, n)
	}
	s.calls[key] = c
	if c.token != "" {
		s.progress[c.token] = c
	}
	return nil
}

// Forget drops a request whose core has answered, or never saw it.
func (s *Session) Forget(c *Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forgetLocked(c)
}

func (s *Session) forgetLocked(c *Call) {
	key := c.key
	if s.calls[key] == c {
		delete(s.calls, key)
	}
	if c.token != "" && s.progress[c.token] == c {
		delete(s.progress, c.token)
	}
}

// retireLocked turns an in-flight request into a reserved id: its
// requester is gone, the core still owes its response, which will be
// dropped. It reports false if the request was answered already.
func (s *Session) retireLocked(c *Call) bool {
	key := c.key
	if s.calls[key] != c {
		return false
	}
	s.forgetLocked(c)
	s.reserved[key] = struct{}{}
	return true
}

// leave is called when a request's HTTP handler is done: a request still
// in flight was abandoned by its client (a disconnect is not a
// cancellation: the core runs it on), so its id stays reserved until the
// core answers. What was routed to it and not written is released.
func (s *Session) leave(c *Call) {
	s.mu.Lock()
	s.retireLocked(c)
	s.mu.Unlock()
	for {
		select {
		case m := <-c.notes:
			s.release(m)
		case m := <-c.resp:
			s.release(m)
		default:
			return
		}
	}
}

// Cancel handles a client's notifications/cancelled: the core will still
// answer the request (go-sdk answers every request), but the client must
// not see that answer, so the HTTP request is ended now and the id
// reserved until the answer comes.
func (s *Session) Cancel(keys ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, idk := range keys {
		c := s.calls[idk]
		if c == nil {
			continue
		}
		if s.retireLocked(c) {
			close(c.ended)
		}
		return
	}
}

// release gives back the budget a message held.
func (s *Session) release(m coreMsg) { s.held.give(m.held) }

// inFlight reports whether anything keeps the session busy: a request a
// client waits for, an open GET stream, or, on a principal's core, a
// subscription or the gateway's own request made for a client's (its
// tools/list, read to check Mcp-Param headers), which a slow core start
// must not let the idle timeout cut short.
func (s *Session) inFlight() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.routed.Load() > 0 || s.attachedLocked() > 0 || s.streams.get != nil && s.streams.get.reader != nil ||
		s.principal != nil && (s.principal.hub.busy() || len(s.principal.internal) > 0)
}

// attachedLocked counts the requests in flight that a client waits for: a
// request whose client left its resumable stream runs on, but holds
// neither the session open past its idle timeout nor a shutdown.
func (s *Session) attachedLocked() int {
	n := 0
	for _, c := range s.calls {
		if c.stream == nil || c.stream.reader != nil {
			n++
		}
	}
	return n
}

// Legacy reports whether s is a 2024-11-05 SSE session.
func (s *Session) Legacy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.streams.get != nil && s.streams.get.legacy
}

// Done is closed when the session ends.
func (s *Session) Done() <-chan struct{} { return s.done }

// IsPrincipal reports whether s is a principal's core (2026-07-28), not a
// session a client named.
func (s *Session) IsPrincipal() bool { return s.principal != nil }

// Streamed reports whether c was answered on a resumable stream.
func (s *Session) Streamed(c *Call) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return c.stream != nil
}
