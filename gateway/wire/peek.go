package wire

import (
	"cmp"
	"encoding/json"

	"github.com/mjkoo/boris/internal/jsonscan"
)

// errMalformed is a core message the routing scan cannot read.
var errMalformed = jsonscan.ErrMalformed

// Peek reads a core message's routing fields: id, method and params. It
// scans the top-level object and skips other values (a result can be
// megabytes of file content) with a byte loop instead of decoding them:
// this runs for every message a core sends. A core's messages come from
// go-sdk's encoder over a pipe the gateway owns, so the scan checks
// structure, not every detail of JSON.
func Peek(raw []byte) (Peeked, error) {
	var p Peeked
	var err error
	scanErr := eachMember(raw, func(key string, val []byte) bool {
		err = p.set(key, val)
		return err == nil
	})
	return p, cmp.Or(scanErr, err)
}

// PeekHead reads the routing fields of a message's first piece. A core's
// messages come from go-sdk's encoder, which writes "jsonrpc", "id" and
// "method" before "params", "result" or "error": the head of a message too
// large to hold at once still says where it goes. isResponse reports
// whether the head shows a response (a "result" or "error" member, cut or
// not, and no method).
func PeekHead(head []byte) (p Peeked, isResponse bool) {
	payload := false
	_ = eachMemberHead(head, func(key string, val []byte, whole bool) bool {
		if key == "result" || key == "error" {
			payload = true
		}
		if !whole {
			return false
		}
		return p.set(key, val) == nil
	})
	return p, payload && p.Method == "" && p.ID != ""
}

// eachMemberHead is eachMember for an object that may be cut short: fn
// also gets the member whose value runs past the end (whole false), and
// nothing after it.
func eachMemberHead(raw []byte, fn func(key string, val []byte, whole bool) bool) error {
	i := jsonscan.SkipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return errMalformed
	}
	for i++; ; {
		i = jsonscan.SkipSpace(raw, i)
		if i >= len(raw) || raw[i] != '"' {
			return errMalformed
		}
		keyEnd, err := jsonscan.SkipString(raw, i)
		if err != nil {
			return err
		}
		key := string(raw[i+1 : keyEnd-1])
		if i = jsonscan.SkipSpace(raw, keyEnd); i >= len(raw) || raw[i] != ':' {
			return errMalformed
		}
		i = jsonscan.SkipSpace(raw, i+1)
		end, err := jsonscan.SkipValue(raw, i)
		if err != nil || end >= len(raw) {
			fn(key, nil, false)
			return err
		}
		if !fn(key, raw[i:end], true) {
			return nil
		}
		if i = jsonscan.SkipSpace(raw, end); i < len(raw) && raw[i] == ',' {
			i++
		}
	}
}

// eachMember calls fn with every member of the JSON object in raw, in
// order, until fn returns false.
func eachMember(raw []byte, fn func(key string, val []byte) bool) error {
	return eachMemberAt(raw, func(key string, start, end int) bool { return fn(key, raw[start:end]) })
}

// eachMemberAt is eachMember giving where in raw each value lies. Names
// are compared as written: a core's messages come from go-sdk's encoder,
// which escapes no character of the names routing reads.
func eachMemberAt(raw []byte, fn func(key string, start, end int) bool) error {
	return jsonscan.Members(raw, func(name []byte, start, end int) bool { return fn(string(name), start, end) })
}

// Member returns the raw value at path, a chain of object members, in a
// core's message.
func Member(obj []byte, path ...string) ([]byte, bool) {
	start, end, ok := memberAt(obj, path[0])
	switch {
	case !ok:
		return nil, false
	case len(path) > 1:
		return Member(obj[start:end], path[1:]...)
	}
	return obj[start:end], true
}

// WithMember returns a copy of a core's message obj with the value at
// path replaced by val, or false if there is none. The copy is the only
// one made: a message is forwarded from the bytes the core wrote.
func WithMember(obj, val []byte, path ...string) ([]byte, bool) {
	start, end, ok := memberAt(obj, path[0])
	if !ok {
		return nil, false
	}
	if len(path) > 1 {
		if val, ok = WithMember(obj[start:end], val, path[1:]...); !ok {
			return nil, false
		}
	}
	out := make([]byte, 0, len(obj)-(end-start)+len(val))
	return append(append(append(out, obj[:start]...), val...), obj[end:]...), true
}

// memberAt finds the top-level member key of obj.
func memberAt(obj []byte, key string) (start, end int, ok bool) {
	_ = eachMemberAt(obj, func(k string, s, e int) bool {
		if k == key {
			start, end, ok = s, e, true
		}
		return !ok
	})
	return start, end, ok
}

// ResponseOutcome summarises a response for the log without decoding it:
// "error" for a JSON-RPC error, "tool_error" for a result with isError
// true, "input_required" for a 2026-07-28 round that asks the client for
// input (SEP-2322), else "ok".
func ResponseOutcome(raw []byte) string {
	out := "ok"
	_ = eachMember(raw, func(key string, val []byte) bool {
		switch key {
		case "error":
			out = "error"
		case "result":
			_ = eachMember(val, func(k string, v []byte) bool {
				switch {
				case k == "isError" && string(v) == "true":
					out = "tool_error"
				case k == "resultType" && string(v) == `"input_required"`:
					out = "input_required"
				}
				return out == "ok"
			})
		}
		return out == "ok"
	})
	return out
}

// set records one top-level member the router needs.
func (p *Peeked) set(key string, val []byte) error {
	switch key {
	case "id":
		if string(val) != "null" {
			p.ID = RawIDKey(val)
		}
	case "method":
		return json.Unmarshal(val, &p.Method)
	case "params":
		p.Params = val
	}
	return nil
}
