package gateway

import (
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// backlogLimit bounds messages kept for a GET stream that is not open.
const backlogLimit = 256

// session is one MCP session: a core process and the routing of its
// messages to the HTTP requests waiting for them (SPEC §3.2).
type session struct {
	id      string
	subject string
	core    *coreProc
	log     *slog.Logger
	created time.Time
	last    atomic.Int64 // unix nanos of the last request

	mu       sync.Mutex
	calls    map[string]*call // in-flight client requests, by id key
	progress map[string]*call // the same, by progress token key
	stream   chan []byte      // the open GET stream, or nil
	backlog  [][]byte         // messages for a GET stream not yet open

	done      chan struct{} // closed when the session ends
	closeOnce sync.Once
	reason    string // why it ended, valid after done
}

// call is a client request waiting for its response.
type call struct {
	id    jsonrpc.ID
	token string        // progress token key, or ""
	notes chan []byte   // notifications and requests tied to it; dropped when full
	resp  chan []byte   // its response; capacity 1, never blocks routing
	ended chan struct{} // closed when the client cancelled it
}

func newSession(id, subject string, core *coreProc, log *slog.Logger) *session {
	s := &session{
		id: id, subject: subject, core: core, log: log, created: time.Now(),
		calls: map[string]*call{}, progress: map[string]*call{}, done: make(chan struct{}),
	}
	s.touch()
	return s
}

func (s *session) touch() { s.last.Store(time.Now().UnixNano()) }

// register records an in-flight request so its messages find their way.
// It fails if the id is already in flight (JSON-RPC ids must be unique).
func (s *session) register(m *message) (*call, bool) {
	c := &call{
		id: m.req.ID, token: progressTokenOf(m.req.Params),
		notes: make(chan []byte, 64), resp: make(chan []byte, 1), ended: make(chan struct{}),
	}
	key := idKey(c.id)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.calls[key]; dup {
		return nil, false
	}
	s.calls[key] = c
	if c.token != "" {
		s.progress[c.token] = c
	}
	return c, true
}

// forget drops a request: answered, abandoned by its client, or cancelled.
func (s *session) forget(c *call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forgetLocked(c)
}

func (s *session) forgetLocked(c *call) {
	key := idKey(c.id)
	if s.calls[key] == c {
		delete(s.calls, key)
	}
	if c.token != "" && s.progress[c.token] == c {
		delete(s.progress, c.token)
	}
}

// inFlight reports whether anything keeps the session busy.
func (s *session) inFlight() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.calls) > 0 || s.stream != nil
}

// route reads the core's stdout until it closes, delivering each message
// where SPEC §3.2 says, then ends the session.
func (s *session) route(end func(*session, string)) {
	for {
		raw, err := s.core.readMessage()
		if err != nil {
			end(s, "core exited")
			return
		}
		p, err := peek(raw)
		if err != nil {
			s.log.Warn("undecodable message from core", "session", s.id, "err", err)
			continue
		}
		s.deliver(raw, p)
	}
}

// deliver sends one core message to its destination: a response to the
// request with its id, progress to the request with its token, other
// request-scoped messages to the only request in flight, the rest to the
// GET stream.
func (s *session) deliver(raw []byte, m peeked) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var dest *call
	switch {
	case m.method == "":
		if dest = s.calls[m.id]; dest != nil {
			s.forgetLocked(dest)
			dest.resp <- raw
		}
		return // a response whose request was abandoned or cancelled is dropped
	case m.method == "notifications/progress":
		dest = s.progress[notifiedToken(m.params)]
	case !sessionScoped(m.method) && len(s.calls) == 1:
		for _, c := range s.calls {
			dest = c
		}
	}
	if dest != nil {
		select {
		case dest.notes <- raw:
		default: // a client not reading does not block routing
		}
		return
	}
	s.toStreamLocked(raw)
}

// sessionScoped lists messages that concern the session, never a request.
func sessionScoped(method string) bool {
	return strings.HasSuffix(method, "/list_changed") || method == "notifications/resources/updated"
}

// toStreamLocked hands a message to the GET stream, or keeps it (bounded)
// until one opens.
func (s *session) toStreamLocked(raw []byte) {
	if s.stream != nil {
		select {
		case s.stream <- raw:
			return
		default: // a stalled stream does not block routing
		}
	}
	if len(s.backlog) < backlogLimit {
		s.backlog = append(s.backlog, raw)
	}
}

// openStream attaches a GET stream, returning false if one is already open.
// Queued messages are handed over first.
func (s *session) openStream() (chan []byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stream != nil {
		return nil, false
	}
	s.stream = make(chan []byte, backlogLimit)
	for _, raw := range s.backlog {
		s.stream <- raw
	}
	s.backlog = nil
	return s.stream, true
}

func (s *session) closeStream(ch chan []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stream == ch {
		s.stream = nil
	}
}

// cancel handles a client's notifications/cancelled: the request it names
// will get no response (the core does not answer cancelled requests), so
// its HTTP request is ended now.
func (s *session) cancel(idk string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.calls[idk]; c != nil {
		s.forgetLocked(c)
		close(c.ended)
	}
}
