package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/corecheck"
	"github.com/mjkoo/boris/gateway/wire"
	"github.com/mjkoo/boris/internal/version"
)

// principalCore is what a core kept for one principal's 2026-07-28
// requests holds beside its session: the ids it gives requests, the
// subscriptions/listen streams it multiplexes, and what it knows of the
// core's tools' x-mcp-header parameters.
type principalCore struct {
	s        *Session         // the session it is the principal's core of
	seq      atomic.Uint64    // numbers the ids and progress tokens the core is sent
	internal map[string]*Call // the gateway's own requests, by id key; under Session.mu
	hub      *listenHub
	tools    toolHeaders
}

// rewrite gives a client's request an id (and, if it has one, a progress
// token) the core has not seen from another client of this principal, and
// returns what to send the core and the call that waits for the answer.
func (pc *principalCore) rewrite(m *wire.Message, p *wire.Request2026) ([]byte, *Call, error) {
	tag := "gw-" + strconv.FormatUint(pc.seq.Add(1), 10)
	coreID, _ := jsonrpc.MakeID(tag)
	// The client's id goes back as it was sent, byte for byte (JSON-RPC
	// 2.0 §5): an id decoded and encoded again would not be its own (1.5
	// as 1, 2^63 as -2^63).
	clientID := wire.RawID(m.Req.ID)
	var clientToken json.RawMessage
	if tok := p.Meta["progressToken"]; len(tok) > 0 && string(tok) != "null" {
		clientToken = tok
		p.Meta["progressToken"] = mustJSON(tag)
	}
	// The core copies the tag into its logs about the request, which the
	// gateway routes by it (see relatedCall); a client's own value is
	// replaced.
	p.Meta[corecheck.RelatedRequestMeta] = mustJSON(tag)
	p.Params["_meta"] = mustJSON(p.Meta)
	params, err := json.Marshal(p.Params)
	if err != nil {
		return nil, nil, err
	}
	m.Req.Params = params // what the gateway logs (the tool's name) is what the core is sent
	method, _ := json.Marshal(m.Req.Method)
	raw := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%q,"method":%s,"params":%s}`, tag, method, params)
	token := ""
	if clientToken != nil {
		token = wire.TokenKey(tag)
	}
	c := NewCall(m.Req.ID, coreID, token)
	c.clientID, c.clientToken = clientID, clientToken
	return raw, c, nil
}

// ask sends the core a request of the gateway's own and returns the
// response, or an error if ctx ends, the core ends or the response is an
// error.
func (pc *principalCore) ask(ctx context.Context, method string, params map[string]any) (json.RawMessage, error) {
	c, raw, err := pc.internalCall(method, params)
	if err != nil {
		return nil, err
	}
	defer pc.dropInternal(c)
	if err := pc.s.Core.Send(raw); err != nil {
		return nil, err
	}
	select {
	case m := <-c.resp:
		pc.s.release(m)
		msg, err := jsonrpc.DecodeMessage(m.raw)
		if err != nil {
			return nil, err
		}
		res, ok := msg.(*jsonrpc.Response)
		switch {
		case !ok:
			return nil, errors.New("the core answered with a request")
		case res.Error != nil:
			return nil, res.Error
		}
		return res.Result, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-pc.s.done:
		return nil, errors.New("core ended: " + pc.s.reason)
	}
}

// internalCall registers a request of the gateway's own.
func (pc *principalCore) internalCall(method string, params map[string]any) (*Call, []byte, error) {
	tag := "gw-internal-" + strconv.FormatUint(pc.seq.Add(1), 10)
	id, _ := jsonrpc.MakeID(tag)
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = gatewayMeta()
	p, err := json.Marshal(params)
	if err != nil {
		return nil, nil, err
	}
	raw, err := jsonrpc.EncodeMessage(&jsonrpc.Request{ID: id, Method: method, Params: p})
	if err != nil {
		return nil, nil, err
	}
	c := NewCall(id, id, "")
	pc.s.mu.Lock()
	pc.internal[c.key] = c
	pc.s.mu.Unlock()
	return c, raw, nil
}

func (pc *principalCore) dropInternal(c *Call) {
	pc.s.Touch() // the idle clock starts once the gateway's own request ended
	pc.s.mu.Lock()
	defer pc.s.mu.Unlock()
	if pc.internal[c.key] == c {
		delete(pc.internal, c.key)
	}
}

// gatewayMeta is the _meta of the gateway's own requests to a principal's
// core: the gateway speaks 2026-07-28 and offers no client capabilities.
func gatewayMeta() map[string]any {
	return map[string]any{
		mcp.MetaKeyProtocolVersion:    wire.StatelessVersion,
		mcp.MetaKeyClientCapabilities: map[string]any{},
		mcp.MetaKeyClientInfo:         map[string]any{"name": "boris-gateway", "version": version.Version},
	}
}

// deliver routes what a principal's core sends that is not a
// response to a client's request: responses to the gateway's own requests,
// notifications of subscriptions, and requests, which a 2026-07-28 client
// cannot be sent (the revision has none from server to client) and which
// are refused at once so the core never waits for an answer. It reports
// whether it took msg. Called with s.mu held.
func (pc *principalCore) deliver(msg coreMsg, m wire.Peeked) bool {
	switch {
	case m.Method == "" && pc.internal[m.ID] != nil:
		c := pc.internal[m.ID]
		delete(pc.internal, m.ID)
		if pc.hub.answered(c, msg.raw) {
			pc.s.release(msg)
		} else {
			c.resp <- msg
		}
		return true
	case m.Method != "" && m.ID != "":
		pc.s.release(msg)
		if id, ok := wire.Member(msg.raw, "id"); ok {
			refusal := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, id, jsonrpc.CodeMethodNotFound,
				m.Method+" cannot reach a 2026-07-28 client: that revision has no requests from server to client")
			go func() { _ = pc.s.Core.Send(refusal) }()
		}
		return true
	case m.Method != "" && pc.hub.owns(m.Params):
		pc.hub.dispatch(m.Method, msg.raw, m.Params)
		pc.s.release(msg)
		return true
	}
	return false
}

// relatedCall returns the request a principal's core tagged a log with
// (see corecheck.RelatedRequestMeta), and the log with the gateway's tag
// taken out; nil if the tag names no request in flight or there is none:
// a log of a principal's core goes to the request it is about, or
// nowhere, never to another client's request. Called with s.mu held.
func (pc *principalCore) relatedCall(msg coreMsg, m wire.Peeked) (*Call, coreMsg) {
	tag, ok := wire.Member(m.Params, "_meta", corecheck.RelatedRequestMeta)
	if !ok {
		return nil, msg
	}
	c := pc.s.calls[wire.RawIDKey(tag)]
	if c == nil {
		return nil, msg
	}
	if raw, ok := wire.WithMember(msg.raw, []byte("{}"), "params", "_meta"); ok {
		msg.raw = raw
	}
	return c, msg
}

// restore puts the client's val (its id or progress token, nil on a
// session) back at path in a message the core sent for c.
func (c *Call) restore(msg coreMsg, val json.RawMessage, path ...string) coreMsg {
	if val == nil {
		return msg
	}
	if raw, ok := wire.WithMember(msg.raw, val, path...); ok {
		msg.raw = raw
	}
	return msg
}

// cancelAtCore tells the core a request's client closed its response
// stream: the 2026-07-28 cancellation.
func (s *Session) cancelAtCore(c *Call) {
	id, err := json.Marshal(c.coreID.Raw())
	if err != nil {
		return
	}
	_ = s.Core.Send(fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"the client closed its response stream"}}`, id))
}

// listenTimeout bounds how long the gateway waits for its core to
// acknowledge a subscription.
const listenTimeout = 10 * time.Second

// Rewrite gives a 2026-07-28 request on a principal's core an id of the
// gateway's own (see principalCore.rewrite).
func (s *Session) Rewrite(m *wire.Message, p *wire.Request2026) ([]byte, *Call, error) {
	return s.principal.rewrite(m, p)
}

// StartListen opens the gateway's own listen on a principal's core, before
// any client's: the core learns of no client's capabilities as the
// session's, and list changes reach the gateway from the start (the
// tools' header cache depends on them).
func (s *Session) StartListen() {
	hub := s.principal.hub
	hub.opening.Lock()
	hub.open(nil)
	hub.opening.Unlock()
}
