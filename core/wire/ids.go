package wire

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mjkoo/boris/internal/jsonscan"
)

// JSON-RPC 2.0 §5: the response's id "MUST be the same as the value of the
// id member in the Request Object". go-sdk keeps an id as an int64 or a
// string and writes it back with encoding/json: a number that is not an
// integer within float64's exact range (1.5, -0, 1e2, 2^63, a 23-digit
// integer) comes back altered, and so does a string encoding/json would
// spell differently (an escape, "<", "&"). A client then never matches its
// answer. So a request whose id would not come back byte for byte gets a
// stand-in id, a string no client sends, while the SDK answers it; the
// response is written with the client's id as it was sent, and a
// notifications/cancelled naming that id names the stand-in.

// idKeeper maps stand-in ids to the ids clients sent.
type idKeeper struct {
	mu     sync.Mutex
	prefix string                     // "boris-id-" and a random part: no client's id
	seq    uint64                     // the last stand-in's number
	byRaw  map[string]jsonrpc.ID      // client id as sent → its stand-in, while in flight
	byID   map[string]json.RawMessage // stand-in → client id as sent
	quoted map[string][]byte          // stand-in → its JSON string, as written
}

// exactID reports whether go-sdk writes id back as raw.
func exactID(id jsonrpc.ID, raw []byte) bool {
	enc, err := json.Marshal(id.Raw())
	return err == nil && bytes.Equal(enc, raw)
}

// keep gives msg, decoded from the line raw, a stand-in id when its own
// would not come back byte for byte, and points a cancellation at the
// stand-in of the request it names.
func (k *idKeeper) keep(msg jsonrpc.Message, raw []byte) jsonrpc.Message {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return msg
	}
	if req.IsCall() {
		if id, ok := jsonscan.Member(raw, "id"); ok && !exactID(req.ID, id) {
			req.ID = k.standIn(id)
		}
		return msg
	}
	if req.Method == "notifications/cancelled" {
		req.Params = k.cancelled(req.Params)
	}
	return msg
}

// standIn returns the stand-in of the client id raw, the one already given
// while a request with that id is in flight (so a duplicate is seen as one).
func (k *idKeeper) standIn(raw []byte) jsonrpc.ID {
	k.mu.Lock()
	defer k.mu.Unlock()
	if id, ok := k.byRaw[string(raw)]; ok {
		return id
	}
	if k.prefix == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		k.prefix = "boris-id-" + hex.EncodeToString(b[:]) + "-"
		k.byRaw, k.byID, k.quoted = map[string]jsonrpc.ID{}, map[string]json.RawMessage{}, map[string][]byte{}
	}
	k.seq++
	s := k.prefix + strconv.FormatUint(k.seq, 10)
	id, _ := jsonrpc.MakeID(s)
	k.byRaw[string(raw)] = id
	k.byID[s] = bytes.Clone(raw)
	k.quoted[s] = []byte(strconv.Quote(s))
	return id
}

// cancelled returns a cancellation's params with a requestId that names a
// stand-in replaced by the stand-in.
func (k *idKeeper) cancelled(params json.RawMessage) json.RawMessage {
	raw, ok := jsonscan.Member(params, "requestId")
	if !ok {
		return params
	}
	k.mu.Lock()
	id, ok := k.byRaw[string(raw)]
	k.mu.Unlock()
	if !ok {
		return params
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return params
	}
	p["requestId"], _ = json.Marshal(id.Raw())
	out, err := json.Marshal(p)
	if err != nil {
		return params
	}
	return out
}

// restore returns line, the encoded response to id, with the client's id
// in place of a stand-in, and forgets the stand-in.
func (k *idKeeper) restore(id jsonrpc.ID, line []byte) []byte {
	s, ok := id.Raw().(string)
	if !ok {
		return line
	}
	k.mu.Lock()
	raw, ok := k.byID[s]
	quoted := k.quoted[s]
	if ok {
		delete(k.byID, s)
		delete(k.quoted, s)
		delete(k.byRaw, string(raw))
	}
	k.mu.Unlock()
	if !ok {
		return line
	}
	// The id is the response's first member after "jsonrpc": the first
	// occurrence of the stand-in, which nothing before it can hold.
	return bytes.Replace(line, quoted, raw, 1)
}

// clientID returns the id a client sent for id, a stand-in or its own.
func (k *idKeeper) clientID(id jsonrpc.ID) json.RawMessage {
	if s, ok := id.Raw().(string); ok {
		k.mu.Lock()
		raw, ok := k.byID[s]
		k.mu.Unlock()
		if ok {
			return raw
		}
	}
	raw, _ := json.Marshal(id.Raw())
	return raw
}
