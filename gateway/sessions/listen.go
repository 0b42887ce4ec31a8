package sessions

import (
	"encoding/json"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/gateway/wire"
)

// listenHub multiplexes the subscriptions/listen streams of one
// principal's clients over one listen of the gateway's own on the core.
// The core keeps one subscription per session, and a principal's clients
// share a session: each listens through the hub, which asks the core for
// every change notification it offers (and every resource any client
// watches) and passes each on to the clients that asked for it, under
// their own listen's id.
type listenHub struct {
	s *Session
	// opening serializes changes of the gateway's listen (open, and what
	// subscribe decides before and after it): two at once would leave one
	// listen the hub no longer knows parked in the core, or lose a
	// resource one of them added.
	opening sync.Mutex

	mu      sync.Mutex
	subs    map[*listener]struct{}
	current *Call                         // the gateway's listen on the core; nil if none is open
	acked   chan struct{}                 // closed when current is acknowledged or answered
	allowed mcp.NotificationSubscriptions // what the core agreed to, valid once acked
	uris    []string                      // resources current watches
	// refused is the core's error answer to the last listen, if it
	// refused it (a resource it does not serve), valid once acked.
	refused *jsonrpc.Error
}

// listener is one client's subscriptions/listen stream.
type listener struct {
	id   json.RawMessage // the client's request id
	want mcp.NotificationSubscriptions
	ch   chan []byte
}

func newListenHub(s *Session) *listenHub {
	return &listenHub{s: s, subs: map[*listener]struct{}{}}
}

// busy reports whether a client listens: its core is not idle.
func (hb *listenHub) busy() bool {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	return len(hb.subs) > 0
}

// open starts the gateway's listen on the core for every change it offers
// and uris (the caller holds opening), replacing the one open (the core keeps one per session, and
// forgets it once the old one is answered, so the old one is cancelled and
// its answer awaited first). It returns the channel closed once the core
// has acknowledged.
func (hb *listenHub) open(uris []string) chan struct{} {
	hb.mu.Lock()
	old := hb.current
	hb.mu.Unlock()
	if old != nil {
		hb.s.cancelAtCore(old)
		select {
		case <-old.ended:
		case <-hb.s.done:
		case <-time.After(listenTimeout):
		}
		hb.s.principal.dropInternal(old)
	}
	c, raw, err := hb.s.principal.internalCall("subscriptions/listen", map[string]any{"notifications": mcp.NotificationSubscriptions{
		ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true, ResourceSubscriptions: uris,
	}})
	acked := make(chan struct{})
	hb.mu.Lock()
	hb.current, hb.acked, hb.uris, hb.allowed, hb.refused = c, acked, uris, mcp.NotificationSubscriptions{}, nil
	hb.mu.Unlock()
	if err != nil || hb.s.Core.Send(raw) != nil {
		close(acked)
	}
	return acked
}

// answered takes note that the core answered c, and reports whether c
// was the hub's listen: then there is none open any more (the core offered
// nothing to listen to, was told to stop, or refused the listen), and c's
// ended is closed.
func (hb *listenHub) answered(c *Call, raw []byte) bool {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	if c != hb.current {
		return false
	}
	hb.current = nil
	close(c.ended)
	if msg, err := jsonrpc.DecodeMessage(raw); err == nil {
		if res, ok := msg.(*jsonrpc.Response); ok && res.Error != nil {
			hb.refused = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: res.Error.Error()}
		}
	}
	select {
	case <-hb.acked:
	default:
		close(hb.acked)
	}
	return true
}

// owns reports whether a core notification belongs to the gateway's
// listen: its _meta names that listen's id.
func (hb *listenHub) owns(params json.RawMessage) bool {
	id, ok := wire.Member(params, "_meta", mcp.MetaKeySubscriptionID)
	if !ok {
		return false
	}
	hb.mu.Lock()
	defer hb.mu.Unlock()
	return hb.current != nil && wire.RawIDKey(id) == hb.current.key
}

// dispatch handles a notification of the gateway's listen: the
// acknowledgement, or a change passed on to the clients that asked for it.
func (hb *listenHub) dispatch(method string, raw, params json.RawMessage) {
	if method == "notifications/tools/list_changed" {
		hb.s.principal.tools.stale.Add(1)
	}
	hb.mu.Lock()
	defer hb.mu.Unlock()
	if method == "notifications/subscriptions/acknowledged" {
		var p struct {
			Notifications mcp.NotificationSubscriptions `json:"notifications"`
		}
		_ = json.Unmarshal(params, &p)
		hb.allowed = p.Notifications
		select {
		case <-hb.acked:
		default:
			close(hb.acked)
		}
		return
	}
	var uri string
	if method == "notifications/resources/updated" {
		var p struct {
			URI string `json:"uri"`
		}
		_ = json.Unmarshal(params, &p)
		uri = p.URI
	}
	for l := range hb.subs {
		if !l.wants(method, uri) {
			continue
		}
		out, ok := wire.WithMember(raw, l.id, "params", "_meta", mcp.MetaKeySubscriptionID)
		if !ok {
			continue
		}
		select {
		case l.ch <- out:
		default: // a client not reading loses notifications, not the core's time
		}
	}
}

// wants reports whether l asked for a notification.
func (l *listener) wants(method, uri string) bool {
	switch method {
	case "notifications/tools/list_changed":
		return l.want.ToolsListChanged
	case "notifications/prompts/list_changed":
		return l.want.PromptsListChanged
	case "notifications/resources/list_changed":
		return l.want.ResourcesListChanged
	case "notifications/resources/updated":
		return slices.Contains(l.want.ResourceSubscriptions, uri)
	}
	return false
}

// subscribe adds a client's listen asking for want: the hub's listen on
// the core is reopened first if want watches a resource it does not. It
// returns the listener, whose want is what the core agreed to, or the
// core's refusal (the hub's listen is then reopened as it was).
func (hb *listenHub) subscribe(r *http.Request, id json.RawMessage, want mcp.NotificationSubscriptions) (*listener, error) {
	hb.opening.Lock()
	defer hb.opening.Unlock()
	hb.mu.Lock()
	acked, old := hb.acked, hb.uris
	var missing []string
	for _, u := range want.ResourceSubscriptions {
		if !slices.Contains(old, u) && !slices.Contains(missing, u) {
			missing = append(missing, u)
		}
	}
	hb.mu.Unlock()
	if len(missing) > 0 {
		acked = hb.open(append(slices.Clone(old), missing...))
	}
	select {
	case <-acked:
	case <-r.Context().Done():
	case <-hb.s.done:
	case <-time.After(listenTimeout):
	}
	hb.mu.Lock()
	if refused := hb.refused; refused != nil && len(missing) > 0 {
		hb.mu.Unlock()
		hb.open(old)
		return nil, refused
	}
	defer hb.mu.Unlock()
	l := &listener{id: id, ch: make(chan []byte, 64), want: mcp.NotificationSubscriptions{
		ToolsListChanged:     want.ToolsListChanged && hb.allowed.ToolsListChanged,
		PromptsListChanged:   want.PromptsListChanged && hb.allowed.PromptsListChanged,
		ResourcesListChanged: want.ResourcesListChanged && hb.allowed.ResourcesListChanged,
	}}
	for _, u := range want.ResourceSubscriptions {
		if slices.Contains(hb.allowed.ResourceSubscriptions, u) {
			l.want.ResourceSubscriptions = append(l.want.ResourceSubscriptions, u)
		}
	}
	hb.subs[l] = struct{}{}
	return l, nil
}

func (hb *listenHub) unsubscribe(l *listener) {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	delete(hb.subs, l)
}

// empty reports whether a listen asks for nothing the core will send.
func (l *listener) empty() bool {
	w := l.want
	return !w.ToolsListChanged && !w.PromptsListChanged && !w.ResourcesListChanged && len(w.ResourceSubscriptions) == 0
}

// Listen serves a client's subscriptions/listen on a principal's core s: an SSE stream that opens
// with the acknowledgement of what it will carry and then carries those
// change notifications until the client closes it (or, if it asked for
// nothing the core offers, ends with the result at once).
func (sw *Streamer) Listen(w http.ResponseWriter, r *http.Request, s *Session, m *wire.Message) {
	var p struct {
		Notifications *mcp.NotificationSubscriptions `json:"notifications"`
	}
	if json.Unmarshal(m.Req.Params, &p) != nil || p.Notifications == nil {
		wire.WriteError(w, http.StatusBadRequest, m.Req.ID, jsonrpc.CodeInvalidParams, "subscriptions/listen needs params.notifications: the notifications to deliver")
		return
	}
	id := wire.RawID(m.Req.ID)
	hub := s.principal.hub
	l, err := hub.subscribe(r, id, *p.Notifications)
	if err != nil {
		wire.WriteError(w, http.StatusBadRequest, m.Req.ID, jsonrpc.CodeInvalidParams, err.Error())
		return
	}
	defer hub.unsubscribe(l)
	meta := map[string]json.RawMessage{mcp.MetaKeySubscriptionID: id}
	ack, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
		"params": map[string]any{"_meta": meta, "notifications": l.want}})
	result, _ := wire.EncodeResponse(&jsonrpc.Response{ID: m.Req.ID, Result: mustJSON(map[string]any{"resultType": "complete", "_meta": meta})})
	if r.ContentLength == 0 {
		wire.UnboundReads(w)
	}
	sse := wire.StartSSE(w, sw.WriteTimeout)
	if sse.Event(ack) != nil {
		return
	}
	if l.empty() {
		_ = sse.Event(result)
		return
	}
	tick := time.NewTicker(sw.KeepAlive)
	defer tick.Stop()
	for {
		var err error
		select {
		case n := <-l.ch:
			err = sse.Event(n)
		case <-tick.C:
			err = sse.Comment("keep-alive")
		case <-r.Context().Done():
			return
		case <-s.done:
			_ = sse.Event(wire.ErrorResponse(m.Req.ID, jsonrpc.CodeInternalError, "core ended: "+s.reason+"; listen again"))
			return
		case <-sw.Draining:
			_ = sse.Event(result)
			return
		}
		if err != nil {
			return
		}
		s.Touch()
	}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
