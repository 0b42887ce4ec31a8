package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Stdio is boris's stdio transport: the lines of stdin that pass
// the screen in, newline-delimited messages out. It does what the SDK's
// IOTransport does at a fraction of its cost per message:
//   - a plain message (see plainMessage), nearly every line, is decoded with
//     encoding/json straight into the SDK's jsonrpc types; the SDK's decoder
//     allocates 32 KB or more per message;
//   - a response is written around its result as the SDK encoded it,
//     instead of re-encoding the result, which re-scans it (about 5 ns a
//     byte: 15 ms for directory_tree's 1 MB twice over).
//
// Other lines are decoded by jsonrpc.DecodeMessage, and batches (protocol
// revisions before 2025-06-18, which the screen alone lets through) are
// answered with one array once every request in them is answered, as the
// IOTransport answers them.
//
// A request's id must be unique among the requests still being answered
// (JSON-RPC 2.0 §4: the response "MUST be the same as the value of the id
// member in the Request Object"; MCP: "the request ID MUST NOT have been
// previously used by the requestor within the same session"). One that
// repeats the id of a request in flight, or of another request of its
// batch, never reaches the server: it is answered with -32600 and a null
// id (it cannot be told from the other request by its id), and the
// session goes on. The SDK would instead end the session over a batch, or
// drop the request unanswered, and a batch's answer could take the other
// request's response.
type Stdio struct {
	in  *screenedReader
	out io.WriteCloser

	// stdoutGone is set once a write found stdout closed by the client.
	stdoutGone atomic.Bool

	afterResponse func() // called once each response is written; nil for none
}

// NewStdio returns the transport reading messages from in, lines of at
// most maxLine bytes, and writing them to out.
func NewStdio(in io.ReadCloser, out io.WriteCloser, maxLine int) *Stdio {
	w := &lockedWriter{w: out}
	return &Stdio{in: newScreenedReader(in, w, maxLine), out: w}
}

// AfterResponse has f called once each response (or batch of them) is
// written, before Connect: f must not block.
func (t *Stdio) AfterResponse(f func()) { t.afterResponse = f }

// StdoutGone reports whether a write found stdout closed by the client:
// the session ended because the client went away.
func (t *Stdio) StdoutGone() bool { return t.stdoutGone.Load() }

// ErrStdoutClosed ends a session whose client closed its end of stdout:
// nothing boris writes can reach it any more.
var ErrStdoutClosed = errors.New("the client closed boris's stdout")

// Connect starts reading stdin's lines.
func (t *Stdio) Connect(context.Context) (mcp.Connection, error) {
	c := &stdioConn{in: t.in, out: t.out, incoming: make(chan screenedLine), closed: make(chan struct{}), stdoutGone: &t.stdoutGone, afterResponse: t.afterResponse}
	go c.readLines()
	return c, nil
}

// screenedLine is what the screen passed, or the error that ended stdin.
type screenedLine struct {
	msg   []byte
	plain bool
	err   error
}

// stdioConn is a connection of Stdio.
type stdioConn struct {
	in       *screenedReader
	out      io.WriteCloser
	incoming chan screenedLine // fed by readLines, so Close can end a Read
	closed   chan struct{}

	closeOnce sync.Once
	closeErr  error

	queue []jsonrpc.Message // the rest of a batch, read by Read only

	ids idKeeper // stand-ins for ids go-sdk would alter (see ids.go)

	writeMu  sync.Mutex
	inflight map[jsonrpc.ID]bool        // ids of the requests read and not yet answered
	batches  map[jsonrpc.ID]*stdioBatch // requests of batches not yet answered in full

	// stdoutGone is the transport's: set once a write found stdout closed
	// by the client. The SDK then closes the connection, and the read that
	// fails because of it reports that cause, not "file already closed".
	stdoutGone *atomic.Bool

	afterResponse func() // the transport's
}

// stdioBatch collects the responses to a batch's requests, encoded.
type stdioBatch struct {
	index     map[jsonrpc.ID]int // request id → place in responses
	responses [][]byte           // nil until answered
	left      int
}

// readLines passes the screen's lines to Read until stdin ends or the
// connection closes. Reading stdin cannot be interrupted portably, so
// Read waits on this goroutine and Close lets it go.
func (c *stdioConn) readLines() {
	for {
		msg, plain, err := c.in.next()
		select {
		case c.incoming <- screenedLine{msg, plain, err}:
		case <-c.closed:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read returns the next message. Lines it answers itself (a request
// whose id is in use, a batch of nothing else) are skipped.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(c.queue) > 0 {
			msg := c.queue[0]
			c.queue = c.queue[1:]
			return msg, nil
		}
		var l screenedLine
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case l = <-c.incoming:
		}
		msg, err := c.decode(l)
		if msg != nil || err != nil {
			return msg, err
		}
	}
}

// decode returns the message of a screened line, or the first of a
// batch's, or nil when Read has nothing to pass on.
func (c *stdioConn) decode(l screenedLine) (jsonrpc.Message, error) {
	var msg jsonrpc.Message
	var err error
	switch {
	case l.err != nil && c.stdoutGone.Load():
		return nil, fmt.Errorf("%w (%w)", ErrStdoutClosed, l.err)
	case l.err != nil:
		return nil, l.err
	case l.msg[0] == '[':
		return c.readBatch(l.msg)
	case l.plain:
		msg, err = decodePlain(l.msg)
	default:
		msg, err = jsonrpc.DecodeMessage(l.msg)
	}
	if err != nil {
		return nil, err
	}
	msg = c.ids.keep(msg, l.msg)
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() && !c.claim(req.ID) {
		return nil, c.writeLine(duplicateID(c.ids.clientID(req.ID), "a request still being answered"))
	}
	return msg, nil
}

// claim notes that the request id is being answered, or reports false when
// another request holds it.
func (c *stdioConn) claim(id jsonrpc.ID) bool {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if c.inflight[id] {
		return false
	}
	if c.inflight == nil {
		c.inflight = map[jsonrpc.ID]bool{}
	}
	c.inflight[id] = true
	return true
}

// duplicateID is the error response to a request whose id holder already
// uses: Invalid Request (-32600), with a null id, naming the id.
func duplicateID(raw json.RawMessage, holder string) []byte {
	line, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      nil,
		"error": map[string]any{
			"code":    jsonrpc.CodeInvalidRequest,
			"message": fmt.Sprintf("invalid request: id %s is already used by %s; give each request an id of its own", raw, holder),
		},
	})
	return line
}

// plainWire holds what the SDK reads of a plain message. plainMessage
// admits no member the SDK reads besides these and none whose name differs
// from theirs only in case (which encoding/json would match too), so this
// decodes it as jsonrpc.DecodeMessage does.
type plainWire struct {
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
}

// decodePlain decodes a plain message.
func decodePlain(msg []byte) (jsonrpc.Message, error) {
	var w plainWire
	if err := json.Unmarshal(msg, &w); err != nil {
		return nil, fmt.Errorf("decoding a message: %w", err)
	}
	id, err := plainMessageID(w.ID)
	if err != nil {
		return nil, err
	}
	if w.Method != nil {
		return &jsonrpc.Request{ID: id, Method: *w.Method, Params: w.Params}, nil
	}
	return &jsonrpc.Response{ID: id, Result: w.Result}, nil
}

// plainMessageID makes the id of a plain message, which is absent, null,
// a string without escapes or an integer (see plainID).
func plainMessageID(raw json.RawMessage) (jsonrpc.ID, error) {
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return jsonrpc.ID{}, nil
	case raw[0] == '"':
		return jsonrpc.MakeID(string(raw[1 : len(raw)-1]))
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return jsonrpc.ID{}, fmt.Errorf("decoding a message's id %s: %w", raw, err)
	}
	return jsonrpc.MakeID(float64(n))
}

// readBatch decodes a batch, returns its first message and queues the
// rest; the batch's requests are noted for Write to answer together. A
// request whose id another of the batch or one in flight holds is answered
// in the batch's array and not passed on; nil means nothing is.
func (c *stdioConn) readBatch(line []byte) (jsonrpc.Message, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(line, &raws); err != nil || len(raws) == 0 {
		return nil, fmt.Errorf("decoding a batch: %v", err) // the screen passes only non-empty arrays
	}
	msgs := make([]jsonrpc.Message, 0, len(raws))
	batch := &stdioBatch{index: map[jsonrpc.ID]int{}}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	for _, raw := range raws {
		msg, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			return nil, err
		}
		msg = c.ids.keep(msg, raw)
		req, ok := msg.(*jsonrpc.Request)
		if !ok || !req.IsCall() {
			msgs = append(msgs, msg)
			continue
		}
		if _, dup := batch.index[req.ID]; dup || c.inflight[req.ID] {
			holder := "a request still being answered"
			if dup {
				holder = "another request of this batch"
			}
			batch.responses = append(batch.responses, duplicateID(c.ids.clientID(req.ID), holder))
			continue
		}
		batch.index[req.ID] = len(batch.responses)
		batch.responses = append(batch.responses, nil)
		msgs = append(msgs, msg)
	}
	if c.inflight == nil {
		c.inflight = map[jsonrpc.ID]bool{}
	}
	if c.batches == nil {
		c.batches = map[jsonrpc.ID]*stdioBatch{}
	}
	for id := range batch.index {
		c.inflight[id] = true
		c.batches[id] = batch
	}
	if batch.left = len(batch.index); batch.left == 0 && len(batch.responses) > 0 {
		if err := c.writeBatch(batch.responses); err != nil {
			return nil, err
		}
	}
	if len(msgs) == 0 {
		return nil, nil
	}
	c.queue = msgs[1:]
	return msgs[0], nil
}

// Write writes msg as one line; a response to a batch's request waits for
// the others and goes out with them.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	line, err := encodeMessage(msg)
	if err != nil {
		return err
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		line = c.ids.restore(resp.ID, line)
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	resp, isResponse := msg.(*jsonrpc.Response)
	if isResponse {
		delete(c.inflight, resp.ID)
		if batch, ok := c.batches[resp.ID]; ok {
			delete(c.batches, resp.ID)
			batch.responses[batch.index[resp.ID]] = line
			if batch.left--; batch.left > 0 {
				return nil
			}
			defer c.responded()
			return c.writeBatch(batch.responses)
		}
		defer c.responded()
	}
	_, err = c.out.Write(append(line, '\n'))
	return c.noteWrite(err)
}

// responded calls the transport's AfterResponse function, if any, once a
// response (or a batch's) has been written.
func (c *stdioConn) responded() {
	if c.afterResponse != nil {
		c.afterResponse()
	}
}

// writeLine writes one encoded message as a line.
func (c *stdioConn) writeLine(line []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(append(line, '\n'))
	return c.noteWrite(err)
}

// noteWrite notes a write that found stdout closed, and returns err.
func (c *stdioConn) noteWrite(err error) error {
	if errors.Is(err, syscall.EPIPE) {
		c.stdoutGone.Store(true)
		return fmt.Errorf("%w: %w", ErrStdoutClosed, err)
	}
	return err
}

// writeBatch writes a batch's encoded responses as one array. Called with
// writeMu held.
func (c *stdioConn) writeBatch(responses [][]byte) error {
	line := []byte{'['}
	for i, enc := range responses {
		if i > 0 {
			line = append(line, ',')
		}
		line = append(line, enc...)
	}
	_, err := c.out.Write(append(line, ']', '\n'))
	return c.noteWrite(err)
}

// encodeMessage encodes msg. A response with a result is written around
// the result as it is: the SDK encoded it with json.Marshal, so it is
// valid and compact, and jsonrpc.EncodeMessage would only scan it again.
func encodeMessage(msg jsonrpc.Message) ([]byte, error) {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error != nil || len(resp.Result) == 0 || !resp.ID.IsValid() {
		return jsonrpc.EncodeMessage(msg)
	}
	id, err := json.Marshal(resp.ID.Raw())
	if err != nil {
		return nil, err
	}
	line := make([]byte, 0, len(resp.Result)+len(id)+32)
	line = append(line, `{"jsonrpc":"2.0","id":`...)
	line = append(line, id...)
	line = append(line, `,"result":`...)
	line = append(line, resp.Result...)
	return append(line, '}'), nil
}

// Close closes stdin and stdout and ends a Read.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() {
		c.closeErr = errors.Join(c.in.Close(), c.out.Close())
		close(c.closed)
	})
	return c.closeErr
}

// SessionID is empty: stdio has no sessions.
func (c *stdioConn) SessionID() string { return "" }
