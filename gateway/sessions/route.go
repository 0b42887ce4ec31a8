package sessions

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mjkoo/boris/gateway/wire"
)

// Route reads the core's stdout until it closes, delivering each message
// where docs/reference/gateway.md#http-surface says, then ends the session. A message is held only
// within the session's budget and the message limit; one that does not fit
// costs its own request (a JSON-RPC error), never the session.
func (s *Session) Route(end func(*Session, string)) {
	cr := coreReader{s}
	for {
		head, more, err := s.Core.ReadChunk()
		if err == nil && more {
			err = cr.receiveLarge(head)
		} else if err == nil {
			cr.receive(bytes.Clone(head))
		}
		if err != nil {
			cr.coreGone(end)
			return
		}
	}
}

// coreReader reads what a session's core writes on stdout: each message
// within the message limit and the budgets, or refused at the cost of its
// own request; then, once stdout closes, the core's end.
type coreReader struct{ s *Session }

// coreGone ends the session of a core whose stdout closed. A core that
// exits while its session is open (a crash, a signal, a failed start) says
// why on stderr: its last lines are logged at warn level, since the
// gateway's log is where an operator looks.
func (cr coreReader) coreGone(end func(*Session, string)) {
	select {
	case <-cr.s.done: // the gateway ended the session: nothing to explain
	default:
		select {
		case <-cr.s.Core.Exited:
		case <-time.After(time.Second):
		}
		status := "still running"
		select {
		case <-cr.s.Core.Exited:
			status = exitStatus(cr.s.Core.Err)
		default:
		}
		cr.s.log.Warn("core exited", "session", cr.s.ID, "subject", cr.s.Subject, "status", status,
			"stderr", strings.Join(cr.s.Core.Logs.Last(time.Second), "\n"))
	}
	end(cr.s, "core exited")
}

func exitStatus(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// receive routes a message read whole.
func (cr coreReader) receive(raw []byte) {
	p, err := wire.Peek(raw)
	if err != nil {
		cr.s.log.Warn("undecodable message from core", "session", cr.s.ID, "err", err)
		return
	}
	if full := cr.s.take(int64(len(raw))); full != "" {
		cr.refuse(p.ID, p.Method == "", cr.fullReason(full))
		return
	}
	cr.s.deliver(coreMsg{raw: raw, held: int64(len(raw))}, p)
}

// receiveLarge reads a message longer than one chunk, whose head is
// given, piece by piece against the session's budget and the message
// limit. A response nobody waits for any more is skipped without being
// held at all.
func (cr coreReader) receiveLarge(head []byte) error {
	p, isResponse := wire.PeekHead(head)
	if isResponse && !cr.awaited(p.ID) {
		cr.dropResponse(p.ID)
		return cr.s.Core.SkipLine()
	}
	var buf []byte
	why := ""
	for piece, more := head, true; ; {
		switch {
		case why != "":
		case int64(len(buf)+len(piece)) > cr.s.lim.MaxMessage:
			why = fmt.Sprintf("the core's reply is over the gateway's message limit of %s; ask for less (e.g. a view_range, or a head_limit)", sizeString(cr.s.lim.MaxMessage))
		default:
			why = cr.fullReason(cr.s.take(int64(len(piece))))
		}
		if why == "" {
			buf = append(buf, piece...)
		} else if buf != nil {
			cr.s.held.give(int64(len(buf)))
			buf = nil
		}
		if !more {
			break
		}
		var err error
		if piece, more, err = cr.s.Core.ReadChunk(); err != nil {
			cr.s.held.give(int64(len(buf)))
			return err
		}
	}
	if why != "" {
		cr.refuse(p.ID, isResponse, why)
		return nil
	}
	if p, err := wire.Peek(buf); err == nil {
		cr.s.deliver(coreMsg{raw: buf, held: int64(len(buf))}, p)
		return nil
	}
	cr.s.held.give(int64(len(buf)))
	cr.s.log.Warn("undecodable message from core", "session", cr.s.ID, "bytes", len(buf))
	return nil
}

// fullReason says why a budget refused a message ("" if it did not).
func (cr coreReader) fullReason(which string) string {
	switch which {
	case "session":
		return fmt.Sprintf("reply dropped: this session's client has not read earlier replies, and the gateway holds at most %s of them; read (or give up on) them, then retry", sizeString(cr.s.lim.Buffered))
	case "gateway":
		return "reply dropped: the gateway holds its maximum of messages clients have not read yet; retry later"
	}
	return ""
}

// refuse answers the request a dropped response was for with a JSON-RPC
// error instead; a dropped message of another kind (progress for a client
// that does not read) is only logged, at debug level.
func (cr coreReader) refuse(idk string, isResponse bool, why string) {
	if !isResponse {
		cr.s.log.Debug("core message dropped", "session", cr.s.ID, "subject", cr.s.Subject, "reason", why)
		return
	}
	cr.s.log.Warn("core message dropped", "session", cr.s.ID, "subject", cr.s.Subject, "reason", why)
	cr.s.mu.Lock()
	defer cr.s.mu.Unlock()
	c := cr.s.calls[idk]
	if c == nil {
		cr.s.dropResponseLocked(idk)
		return
	}
	cr.s.forgetLocked(c)
	c.resp <- coreMsg{raw: wire.ErrorResponse(c.id, jsonrpc.CodeInternalError, why)}
}

// awaited reports whether a request in flight waits for the response idk.
func (cr coreReader) awaited(idk string) bool {
	cr.s.mu.Lock()
	defer cr.s.mu.Unlock()
	return cr.s.calls[idk] != nil
}

// dropResponse takes note that the core answered a request whose requester
// is gone: its id is free again.
func (cr coreReader) dropResponse(idk string) {
	cr.s.mu.Lock()
	defer cr.s.mu.Unlock()
	cr.s.dropResponseLocked(idk)
}

func (s *Session) dropResponseLocked(idk string) { delete(s.reserved, idk) }

// deliver sends one core message to its destination: a response to the
// request with its id, progress to the request with its token, other
// request-scoped messages to the only request in flight (on a principal's
// core, logs to the request they are tagged with), the rest to the GET
// stream. A message that goes nowhere is released at once.
func (s *Session) deliver(msg coreMsg, m wire.Peeked) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var dest *Call
	switch {
	case s.principal != nil && s.principal.deliver(msg, m):
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
		dest, msg = s.principal.relatedCall(msg, m)
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
func (s *Session) toStreamLocked(msg coreMsg) {
	if s.principal != nil { // no GET stream will ever take it
		s.release(msg)
		return
	}
	s.streams.appendLocked(s.streams.getStreamLocked(), msg)
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
