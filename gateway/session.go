package gateway

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

// limits are the bounds every session of a Handler keeps.
type limits struct {
	maxMessage  int64   // largest core message
	buffered    int64   // bytes of core messages held per session
	total       *budget // the gateway's budget, shared by sessions
	maxInFlight int     // client requests in flight, reserved ids included
	replay      replayLimits
	// shedElsewhere sheds replay history another session keeps, the
	// largest's first, when the gateway's budget is full: one tenant's
	// history never keeps another's replies out. nil in tests of one
	// session.
	shedElsewhere func(except *session) bool
}

// session is one MCP session: a core process and the routing of its
// messages to the HTTP requests waiting for them (docs/reference/gateway.md#http-surface).
type session struct {
	id      string
	subject string
	core    *launch.Core
	log     *slog.Logger
	lim     limits
	held    *budget // bytes of this session's core messages the gateway holds
	created time.Time
	last    atomic.Int64 // unix nanos of the last request

	mu       sync.Mutex
	calls    map[string]*call // in-flight client requests, by id key
	progress map[string]*call // the same, by progress token key
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
	// streams are the session's resumable SSE streams, by id (see
	// replay.go); get is its GET stream among them, nil until used.
	streams map[string]*stream
	get     *stream

	// principal is set on a principal's core, which serves the 2026-07-28
	// requests of one principal (docs/reference/gateway.md#stateless-requests-2026-07-28) instead of one session.
	principal *principalCore

	done      chan struct{} // closed when the session ends
	closeOnce sync.Once
	reason    string // why it ended, valid after done
}

// call is a client request waiting for its response.
type call struct {
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
	// busy. Under session.mu.
	stream *stream
	// finished, if set, is told the response of a call answered on a
	// resumable stream when it comes, whether a client reads it or not
	// (the tool call's log line). Set before the call is awaited.
	finished func(res []byte)
	notes    chan coreMsg  // notifications and requests tied to it; dropped when full
	resp     chan coreMsg  // its response; capacity 1, never blocks routing
	ended    chan struct{} // closed when the client cancelled it
}

func newSession(id, subject string, core *launch.Core, lim limits, log *slog.Logger) *session {
	s := &session{
		id: id, subject: subject, core: core, log: log, lim: lim, created: time.Now(),
		held:  &budget{max: lim.buffered, parent: lim.total},
		calls: map[string]*call{}, progress: map[string]*call{}, reserved: map[string]struct{}{},
		streams: map[string]*stream{}, done: make(chan struct{}),
	}
	s.touch()
	return s
}

func (s *session) touch() { s.last.Store(time.Now().UnixNano()) }

// Refusals of register.
var (
	errDuplicateID = errors.New("a request with this id is already in flight")
	errReservedID  = errors.New("this request id was cancelled or abandoned and the core has not answered it yet; use a new id (MCP forbids reusing request ids within a session)")
	errTooMany     = errors.New("too many requests in flight in this session")
)

// register records an in-flight request so its messages find their way.
// It fails if the id is in flight or reserved (JSON-RPC ids must be
// unique), or if the session has lim.maxInFlight requests in flight.
func (s *session) register(m *wire.Message) (*call, error) {
	c := newCall(m.Req.ID, m.Req.ID, wire.ProgressTokenOf(m.Req.Params))
	if err := s.add(c); err != nil {
		return nil, err
	}
	return c, nil
}

// newCall returns the call of a request the client sent with id and the
// core is sent with coreID and the progress token key token.
func newCall(id, coreID jsonrpc.ID, token string) *call {
	return &call{
		id: id, coreID: coreID, key: wire.IDKey(coreID), token: token,
		notes: make(chan coreMsg, 64), resp: make(chan coreMsg, 1), ended: make(chan struct{}),
	}
}

// add records c as in flight; see register.
func (s *session) add(c *call) error {
	key := c.key
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.calls[key]; dup {
		return errDuplicateID
	}
	if _, dup := s.reserved[key]; dup {
		return errReservedID
	}
	if n := len(s.calls) + len(s.reserved); n >= s.lim.maxInFlight {
		return fmt.Errorf("%w (%d, cancelled ones the core has not finished included); wait for some to finish", errTooMany, n)
	}
	s.calls[key] = c
	if c.token != "" {
		s.progress[c.token] = c
	}
	return nil
}

// forget drops a request whose core has answered, or never saw it.
func (s *session) forget(c *call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forgetLocked(c)
}

func (s *session) forgetLocked(c *call) {
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
func (s *session) retireLocked(c *call) bool {
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
func (s *session) leave(c *call) {
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

// cancel handles a client's notifications/cancelled: the core will still
// answer the request (go-sdk answers every request), but the client must
// not see that answer, so the HTTP request is ended now and the id
// reserved until the answer comes.
func (s *session) cancel(keys ...string) {
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
func (s *session) release(m coreMsg) { s.held.give(m.held) }

// inFlight reports whether anything keeps the session busy: a request a
// client waits for, an open GET stream, or, on a principal's core, a
// subscription or the gateway's own request made for a client's (its
// tools/list, read to check Mcp-Param headers), which a slow core start
// must not let the idle timeout cut short.
func (s *session) inFlight() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.attachedLocked() > 0 || s.get != nil && s.get.reader != nil ||
		s.principal != nil && (s.principal.hub.busy() || len(s.principal.internal) > 0)
}

// attachedLocked counts the requests in flight that a client waits for: a
// request whose client left its resumable stream runs on, but holds
// neither the session open past its idle timeout nor a shutdown.
func (s *session) attachedLocked() int {
	n := 0
	for _, c := range s.calls {
		if c.stream == nil || c.stream.reader != nil {
			n++
		}
	}
	return n
}
