package lsp

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"sync"
)

// maxMessage bounds one message from a server: a server that announces
// more is broken or hostile, and its connection ends.
const maxMessage = 64 << 20

// message is one JSON-RPC 2.0 message: a request (ID and Method), a
// notification (Method only) or a response (ID and Result or Error).
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// errClosed is returned by calls on a connection that has ended.
var errClosed = errors.New("the language server's connection ended")

// conn is a JSON-RPC 2.0 connection over the LSP base protocol: each
// message is preceded by a "Content-Length: N" header and a blank line
// (https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#baseProtocol).
// Requests from the server go to handle, whose result is the answer.
type conn struct {
	w       io.WriteCloser
	wmu     sync.Mutex
	mu      sync.Mutex
	next    int
	pending map[string]chan message
	done    chan struct{} // closed when reading ends
	handle  func(msg message) (any, bool)
}

// newConn starts reading r; handle gets every request and notification
// from the server and returns a request's result (and true to answer).
func newConn(r io.Reader, w io.WriteCloser, handle func(message) (any, bool)) *conn {
	c := &conn{w: w, pending: map[string]chan message{}, done: make(chan struct{}), handle: handle}
	go c.read(bufio.NewReaderSize(r, 64<<10))
	return c
}

// read dispatches messages until r ends or sends something malformed.
func (c *conn) read(r *bufio.Reader) {
	defer c.fail()
	for {
		msg, err := readMessage(r)
		if err != nil {
			return
		}
		c.dispatch(msg)
	}
}

// dispatch routes one message: a response to its caller, anything else
// to handle (answering requests).
func (c *conn) dispatch(msg message) {
	if msg.Method == "" {
		c.mu.Lock()
		ch := c.pending[string(msg.ID)]
		delete(c.pending, string(msg.ID))
		c.mu.Unlock()
		if ch != nil {
			ch <- msg
		}
		return
	}
	result, answer := c.handle(msg)
	if msg.ID != nil && answer {
		raw, _ := json.Marshal(result)
		_ = c.send(message{ID: msg.ID, Result: raw})
	}
}

// fail ends every call still waiting.
func (c *conn) fail() {
	c.mu.Lock()
	defer c.mu.Unlock()
	close(c.done)
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
}

// readMessage reads one framed message.
func readMessage(r *bufio.Reader) (message, error) {
	hdr, err := textproto.NewReader(r).ReadMIMEHeader()
	if err != nil {
		return message{}, err
	}
	n, err := strconv.Atoi(hdr.Get("Content-Length"))
	if err != nil || n < 0 || n > maxMessage {
		return message{}, fmt.Errorf("bad Content-Length %q", hdr.Get("Content-Length"))
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return message{}, err
	}
	var msg message
	if err := json.Unmarshal(body, &msg); err != nil {
		return message{}, fmt.Errorf("decode message: %w", err)
	}
	return msg, nil
}

// send writes one framed message.
func (c *conn) send(msg message) error {
	msg.JSONRPC = "2.0"
	body, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		return fmt.Errorf("write to the language server: %w", err)
	}
	return nil
}

// notify sends a notification.
func (c *conn) notify(method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return c.send(message{Method: method, Params: raw})
}

// call sends a request and returns its answer's result; it gives up
// when stop is closed.
func (c *conn) call(stop <-chan struct{}, method string, params any, result any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	ch := make(chan message, 1)
	c.mu.Lock()
	select {
	case <-c.done:
		c.mu.Unlock()
		return errClosed
	default:
	}
	c.next++
	id := json.RawMessage(strconv.Itoa(c.next))
	c.pending[string(id)] = ch
	c.mu.Unlock()
	if err := c.send(message{ID: id, Method: method, Params: raw}); err != nil {
		return err
	}
	select {
	case msg, ok := <-ch:
		if !ok {
			return errClosed
		}
		if msg.Error != nil {
			return fmt.Errorf("%s: %w", method, msg.Error)
		}
		if result == nil || len(msg.Result) == 0 {
			return nil
		}
		return json.Unmarshal(msg.Result, result)
	case <-stop:
		return fmt.Errorf("%s: no answer in time", method)
	}
}
