package core

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The SDK's stdio transport ends the session at the first line it cannot
// decode. A client's bad line must instead get a JSON-RPC error and leave
// the session running (SPEC §2.2: protocol errors stay protocol errors), so
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
	src     *bufio.Reader
	srcC    io.Closer
	out     io.Writer
	max     int
	pending []byte
}

func newScreenedReader(r io.ReadCloser, out io.Writer, maxLine int) *screenedReader {
	return &screenedReader{src: bufio.NewReaderSize(r, 64<<10), srcC: r, out: out, max: maxLine}
}

func (s *screenedReader) Close() error { return s.srcC.Close() }

func (s *screenedReader) Read(p []byte) (int, error) {
	for len(s.pending) == 0 {
		line, tooLong, err := s.readLine()
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			s.screen(line, tooLong)
		}
		if err != nil && len(s.pending) == 0 {
			return 0, err
		}
		if err != nil {
			break
		}
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
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

// screen queues a decodable line for the SDK or answers it with an error.
// Batches (arrays) are passed through: the SDK answers those itself.
func (s *screenedReader) screen(line []byte, tooLong bool) {
	trimmed := bytes.TrimSpace(line)
	switch {
	case tooLong:
		s.reply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message longer than %d bytes", s.max))
	case !json.Valid(trimmed):
		s.reply(nil, jsonrpc.CodeParseError, "parse error: not valid JSON")
	case trimmed[0] == '[':
		s.pending = append(trimmed, '\n')
	default:
		if _, err := jsonrpc.DecodeMessage(trimmed); err != nil {
			s.reply(trimmed, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
			return
		}
		s.pending = append(trimmed, '\n')
	}
}

// reply writes a JSON-RPC error response, echoing the message's id when it
// has a usable one (JSON-RPC 2.0 §5: null when it cannot be determined).
func (s *screenedReader) reply(msg []byte, code int64, text string) {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	id := json.RawMessage("null")
	if msg != nil && json.Unmarshal(msg, &probe) == nil && len(probe.ID) > 0 && (probe.ID[0] == '"' || (probe.ID[0] >= '0' && probe.ID[0] <= '9')) {
		id = probe.ID
	}
	resp, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      id,
		"error":   map[string]any{"code": code, "message": text},
	})
	_, _ = s.out.Write(append(resp, '\n'))
}
