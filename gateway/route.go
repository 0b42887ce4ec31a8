package gateway

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mjkoo/boris/gateway/wire"
)

// route reads the core's stdout until it closes, delivering each message
// where docs/reference/gateway.md#http-surface says, then ends the session. A message is held only
// within the session's budget and the message limit; one that does not fit
// costs its own request (a JSON-RPC error), never the session.
func (s *session) route(end func(*session, string)) {
	for {
		head, more, err := s.core.ReadChunk()
		if err == nil && more {
			err = s.receiveLarge(head)
		} else if err == nil {
			s.receive(bytes.Clone(head))
		}
		if err != nil {
			s.coreGone(end)
			return
		}
	}
}

// coreGone ends the session of a core whose stdout closed. A core that
// exits while its session is open (a crash, a signal, a failed start) says
// why on stderr: its last lines are logged at warn level, since the
// gateway's log is where an operator looks.
func (s *session) coreGone(end func(*session, string)) {
	select {
	case <-s.done: // the gateway ended the session: nothing to explain
	default:
		select {
		case <-s.core.Exited:
		case <-time.After(time.Second):
		}
		status := "still running"
		select {
		case <-s.core.Exited:
			status = exitStatus(s.core.Err)
		default:
		}
		s.log.Warn("core exited", "session", s.id, "subject", s.subject, "status", status,
			"stderr", strings.Join(s.core.Logs.Last(time.Second), "\n"))
	}
	end(s, "core exited")
}

func exitStatus(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// receive routes a message read whole.
func (s *session) receive(raw []byte) {
	p, err := wire.Peek(raw)
	if err != nil {
		s.log.Warn("undecodable message from core", "session", s.id, "err", err)
		return
	}
	if full := s.take(int64(len(raw))); full != "" {
		s.refuse(p.ID, p.Method == "", s.fullReason(full))
		return
	}
	s.deliver(coreMsg{raw: raw, held: int64(len(raw))}, p)
}

// receiveLarge reads a message longer than one chunk, whose head is
// given, piece by piece against the session's budget and the message
// limit. A response nobody waits for any more is skipped without being
// held at all.
func (s *session) receiveLarge(head []byte) error {
	p, isResponse := wire.PeekHead(head)
	if isResponse && !s.awaited(p.ID) {
		s.dropResponse(p.ID)
		return s.core.SkipLine()
	}
	var buf []byte
	why := ""
	for piece, more := head, true; ; {
		switch {
		case why != "":
		case int64(len(buf)+len(piece)) > s.lim.maxMessage:
			why = fmt.Sprintf("the core's reply is over the gateway's message limit of %s; ask for less (e.g. a view_range, or a head_limit)", sizeString(s.lim.maxMessage))
		default:
			why = s.fullReason(s.take(int64(len(piece))))
		}
		if why == "" {
			buf = append(buf, piece...)
		} else if buf != nil {
			s.held.give(int64(len(buf)))
			buf = nil
		}
		if !more {
			break
		}
		var err error
		if piece, more, err = s.core.ReadChunk(); err != nil {
			s.held.give(int64(len(buf)))
			return err
		}
	}
	if why != "" {
		s.refuse(p.ID, isResponse, why)
		return nil
	}
	if p, err := wire.Peek(buf); err == nil {
		s.deliver(coreMsg{raw: buf, held: int64(len(buf))}, p)
		return nil
	}
	s.held.give(int64(len(buf)))
	s.log.Warn("undecodable message from core", "session", s.id, "bytes", len(buf))
	return nil
}

// fullReason says why a budget refused a message ("" if it did not).
func (s *session) fullReason(which string) string {
	switch which {
	case "session":
		return fmt.Sprintf("reply dropped: this session's client has not read earlier replies, and the gateway holds at most %s of them; read (or give up on) them, then retry", sizeString(s.lim.buffered))
	case "gateway":
		return "reply dropped: the gateway holds its maximum of messages clients have not read yet; retry later"
	}
	return ""
}

// refuse answers the request a dropped response was for with a JSON-RPC
// error instead; a dropped message of another kind (progress for a client
// that does not read) is only logged, at debug level.
func (s *session) refuse(idk string, isResponse bool, why string) {
	if !isResponse {
		s.log.Debug("core message dropped", "session", s.id, "subject", s.subject, "reason", why)
		return
	}
	s.log.Warn("core message dropped", "session", s.id, "subject", s.subject, "reason", why)
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.calls[idk]
	if c == nil {
		s.dropResponseLocked(idk)
		return
	}
	s.forgetLocked(c)
	c.resp <- coreMsg{raw: wire.ErrorResponse(c.id, jsonrpc.CodeInternalError, why)}
}

// awaited reports whether a request in flight waits for the response idk.
func (s *session) awaited(idk string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[idk] != nil
}

// dropResponse takes note that the core answered a request whose requester
// is gone: its id is free again.
func (s *session) dropResponse(idk string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropResponseLocked(idk)
}

func (s *session) dropResponseLocked(idk string) { delete(s.reserved, idk) }

// deliver sends one core message to its destination: a response to the
// request with its id, progress to the request with its token, other
// request-scoped messages to the only request in flight (on a principal's
// core, logs to the request they are tagged with), the rest to the GET
// stream. A message that goes nowhere is released at once.
func (s *session) deliver(msg coreMsg, m wire.Peeked) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var dest *call
	switch {
	case s.principal != nil && s.deliverPrincipal(msg, m):
		return
	case m.Method == "":
		if dest = s.calls[m.ID]; dest != nil {
			s.forgetLocked(dest)
			dest.resp <- dest.restore(msg, dest.clientID, "id")
			return
		}
		// A response whose request was abandoned or cancelled is dropped,
		// and its id may be used again.
		s.dropResponseLocked(m.ID)
		s.release(msg)
		return
	case m.Method == "notifications/progress":
		if dest = s.progress[wire.NotifiedToken(m.Params)]; dest != nil {
			msg = dest.restore(msg, dest.clientToken, "params", "progressToken")
		}
	case s.principal != nil && m.Method == "notifications/message":
		dest, msg = s.relatedCall(msg, m)
	case !sessionScoped(m.Method) && len(s.calls) == 1:
		for _, c := range s.calls {
			dest = c
		}
	}
	if dest == nil && s.principal != nil {
		// No GET stream will ever take it: a message a principal's core
		// sends that concerns no one request in flight is dropped.
		s.release(msg)
		return
	}
	if dest != nil {
		select {
		case dest.notes <- msg:
		default: // a client not reading does not block routing
			s.release(msg)
		}
		return
	}
	s.toStreamLocked(msg)
}

// sessionScoped lists messages that concern the session, never a request.
func sessionScoped(method string) bool {
	return strings.HasSuffix(method, "/list_changed") || method == "notifications/resources/updated"
}

// toStreamLocked hands a message to the GET stream, which keeps it
// (within its replay bounds) until a GET reads it.
func (s *session) toStreamLocked(msg coreMsg) {
	if s.principal != nil { // no GET stream will ever take it
		s.release(msg)
		return
	}
	s.appendLocked(s.getStreamLocked(), msg)
}

// sizeString spells a byte count for messages: 64 MiB, 512 KiB, 100 bytes.
func sizeString(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
