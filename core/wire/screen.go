// Package wire provides the core's side of the JSON-RPC wire: the stdio
// transport (Stdio) with the screen that answers a bad line instead of
// ending the session, the encoding of plain tool results (PlainResults),
// and the check that vouches for simple tool arguments by scanning their
// bytes (ArgCheck). It knows MCP's messages, never Boris's tools.
package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/internal/jsonscan"
)

// The SDK's stdio transport ends the session at the first line it cannot
// decode. A client's bad line must instead get a JSON-RPC error and leave
// the session running (docs/reference/core.md#errors: protocol errors stay protocol errors), so
// boris screens each line before the SDK sees it.

// lockedWriter serializes whole-message writes to stdout: the SDK writes
// each message with one Write call, and so does the line screen, so lines
// never interleave.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// screenedReader yields only lines the SDK can decode. Other lines are
// answered on out with a JSON-RPC error and dropped.
type screenedReader struct {
	src       *bufio.Reader
	srcC      io.Closer
	out       io.Writer
	max       int
	noBatches bool // the session's protocol has no JSON-RPC batches
}

func newScreenedReader(r io.ReadCloser, out io.Writer, maxLine int) *screenedReader {
	return &screenedReader{src: bufio.NewReaderSize(r, 64<<10), srcC: r, out: out, max: maxLine}
}

func (s *screenedReader) Close() error { return s.srcC.Close() }

// next returns the next line that passed the screen, without its newline,
// and whether it is a plain message (see plainMessage). Lines the screen
// answered are skipped.
func (s *screenedReader) next() (msg []byte, plain bool, err error) {
	for {
		line, tooLong, err := s.readLine()
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			if msg, plain := s.screen(line, tooLong); msg != nil {
				return msg, plain, nil // an error comes again at the next read
			}
		}
		if err != nil {
			return nil, false, err
		}
	}
}

// readLine reads one line, keeping at most max bytes of it.
func (s *screenedReader) readLine() (line []byte, tooLong bool, err error) {
	for {
		chunk, err := s.src.ReadSlice('\n')
		if len(line)+len(chunk) > s.max {
			tooLong = true
		} else {
			line = append(line, chunk...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, tooLong, err
		}
	}
}

// screen returns a line the SDK can decode, trimmed, or answers it with
// an error and returns nil. plain reports that the line is a plain message:
// recognised by plainMessage without the cost of decoding it, as nearly
// every line is; only the others are decoded here to be sure.
func (s *screenedReader) screen(line []byte, tooLong bool) (msg []byte, plain bool) {
	trimmed := bytes.TrimSpace(line)
	if tooLong {
		s.reply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message longer than %d bytes", s.max))
		return nil, false
	}
	if method, ok := plainMessage(trimmed); ok {
		if string(method) == "initialize" {
			s.noteInitialize(trimmed)
		}
		return trimmed, true
	}
	switch {
	case !json.Valid(trimmed):
		s.reply(nil, jsonrpc.CodeParseError, "parse error: not valid JSON")
	case jsonscan.TooDeep(trimmed, sdkMaxDepth):
		s.reply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: nested more than %d deep", sdkMaxDepth))
	case trimmed[0] == '[':
		if s.screenBatch(trimmed) {
			return trimmed, false
		}
	default:
		if err := s.check(trimmed); err != nil {
			s.reply(trimmed, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
			return nil, false
		}
		return trimmed, false
	}
	return nil, false
}

// check decodes one message as the SDK will, noting an initialize request.
func (s *screenedReader) check(raw []byte) error {
	msg, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		return err
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "initialize" {
		s.noteInitialize(raw)
	}
	return nil
}

// screenBatch reports whether a JSON-RPC batch (an array) may pass: a
// non-empty array of decodable messages, on a session whose protocol
// still has batches; anything else is answered with an error.
func (s *screenedReader) screenBatch(raw []byte) bool {
	if s.noBatches {
		s.reply(nil, jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported from protocol version 2025-06-18 on")
		return false
	}
	var msgs []json.RawMessage
	if err := json.Unmarshal(raw, &msgs); err != nil || len(msgs) == 0 {
		s.reply(nil, jsonrpc.CodeInvalidRequest, "invalid request: an empty batch")
		return false
	}
	for i, m := range msgs {
		if err := s.check(m); err != nil {
			s.reply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: message %d of the batch: %v", i+1, err))
			return false
		}
	}
	return true
}

// batchesEnd is the first protocol version without JSON-RPC batches.
const batchesEnd = "2025-06-18"

// noteInitialize records whether the session an initialize request opens
// may send batches: the SDK refuses them (ending the session) unless the
// version the client asks for is one it supports from before batchesEnd.
// Once refused, they stay refused: the screen errs on the side that costs
// a request, never the session. Members are matched exactly, as the SDK
// matches them.
func (s *screenedReader) noteInitialize(raw []byte) {
	var msg map[string]json.RawMessage
	var params map[string]json.RawMessage
	var version string
	_ = json.Unmarshal(raw, &msg)
	_ = json.Unmarshal(msg["params"], &params)
	_ = json.Unmarshal(params["protocolVersion"], &version)
	if !slices.Contains(mcp.SupportedProtocolVersions(), version) || version >= batchesEnd {
		s.noBatches = true
	}
}

// sdkMaxDepth is the nesting the SDK's decoder accepts; deeper messages
// end its read loop.
const sdkMaxDepth = jsonscan.SDKMaxDepth

// plainMessage reports whether msg is certainly a JSON-RPC message the
// SDK decodes, and returns its method (nil for a response): valid JSON and UTF-8, nested no deeper than sdkMaxDepth, an
// object with "jsonrpc": "2.0", a "method" string without escapes or an id,
// an id (if any) that is null, a string without escapes or an integer of at
// most 15 digits, "params" and "result" as they come, no "error", no
// member twice, no member whose name differs from these only in case
// (other members are ignored by the SDK, as here). That is a subset of what
// jsonrpc.DecodeMessage accepts, found by scanning the bytes: the SDK's
// decoder allocates 32 KB or more per call, which on a small request costs
// more than the request. false means only "not certain"; screen then
// decodes the line. FuzzPlainMessage holds it to never accepting a line
// DecodeMessage refuses.
func plainMessage(msg []byte) (method []byte, ok bool) {
	if len(msg) < 2 || msg[0] != '{' || !utf8.Valid(msg) || !json.Valid(msg) || jsonscan.TooDeep(msg, sdkMaxDepth) {
		return nil, false
	}
	var seen struct{ version, id, method, params, result, hasID bool }
	ok = plainMembers(msg, func(key, val []byte) bool {
		var dup bool
		switch string(key) {
		case "jsonrpc":
			dup, seen.version = seen.version, true
			if string(val) != `"2.0"` {
				return false
			}
		case "id":
			dup, seen.id = seen.id, true
			if !plainID(val) {
				return false
			}
			seen.hasID = string(val) != "null"
		case "method":
			dup, seen.method = seen.method, true
			m, n, isPlain := plainString(val, 0)
			if !isPlain || n != len(val) {
				return false
			}
			method = m
		case "params":
			dup, seen.params = seen.params, true
		case "result":
			dup, seen.result = seen.result, true
		default:
			for _, k := range []string{"jsonrpc", "id", "method", "params", "result", "error"} {
				if strings.EqualFold(string(key), k) {
					return false
				}
			}
		}
		return !dup
	})
	if !ok || !seen.version || !(seen.method || seen.hasID) {
		return nil, false
	}
	return method, true
}

// plainMembers calls fn with the name and raw value of each member of the
// JSON object in b, a valid document, in order. It reports false, calling
// fn no further, when b is not an object, a name has a backslash escape
// (fn would see it undecoded), or fn returns false.
func plainMembers(b []byte, fn func(key, val []byte) bool) bool {
	whole := true
	err := jsonscan.Members(b, func(name []byte, start, end int) bool {
		whole = bytes.IndexByte(name, '\\') < 0 && fn(name, b[start:end])
		return whole
	})
	return err == nil && whole
}

// plainID reports whether an id's raw value is null, a string without
// escapes, or an integer of at most 15 digits (exact as the float64 the
// SDK decodes it into).
func plainID(v []byte) bool {
	if string(v) == "null" {
		return true
	}
	if _, n, ok := plainString(v, 0); ok {
		return n == len(v)
	}
	digits := bytes.TrimPrefix(v, []byte("-"))
	if len(digits) == 0 || len(digits) > 15 {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// plainString returns the contents of the JSON string starting at b[i] and
// the index after it, if it is a string without backslash escapes.
func plainString(b []byte, i int) (s []byte, next int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, i, false
	}
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			return nil, i, false
		case '"':
			return b[i+1 : j], j + 1, true
		}
	}
	return nil, i, false
}

// reply writes a JSON-RPC error response, echoing the message's id when it
// has a usable one (JSON-RPC 2.0 §5: null when it cannot be determined),
// found as the SDK finds it: the last member named exactly "id".
func (s *screenedReader) reply(msg []byte, code int64, text string) {
	id := json.RawMessage("null")
	if v, ok := jsonscan.Member(msg, "id"); ok && len(v) > 0 && (v[0] == '"' || v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) {
		id = v
	}
	resp, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      id,
		"error":   map[string]any{"code": code, "message": text},
	})
	_, _ = s.out.Write(append(resp, '\n'))
}
