package benchkit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RawSession is a minimal MCP client over a stdio server's pipes: it
// writes one JSON-RPC request line and reads lines until the response
// with its id. The time of a call runs from the request's first byte
// written to the response's last byte read, and nothing is decoded in
// between except the envelope of lines that are not the response, so
// what is timed is the server and the pipes, not a client's JSON
// decoding (which, for a 1 MB result, costs a client far more than it
// costs either server). Results are decoded after the clock stops.
type RawSession struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	line   []byte // the last line read, reused
	nextID int64

	// Timeout bounds one call: a server that has not answered by then is
	// killed and the call fails, instead of the run hanging.
	Timeout time.Duration
}

// rawEnvelope is what RawSession decodes of a line: enough to tell a
// response from a notification or a request of the server.
type rawEnvelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// StartRaw starts cmd and completes the handshake as a client without
// capabilities asking for protocol: initialize, its response, then
// notifications/initialized. It returns the time from starting the
// process to the notification written.
func StartRaw(cmd *exec.Cmd, protocol string) (*RawSession, time.Duration, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, 0, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, 0, err
	}
	cmd.WaitDelay = TerminateAfter
	s := &RawSession{cmd: cmd, stdin: stdin, stdout: bufio.NewReaderSize(stdout, 1<<20), Timeout: 2 * time.Minute}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	init := map[string]any{"protocolVersion": protocol, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "boris-bench-raw", "version": "1"}}
	if _, _, err := s.Call("initialize", init); err != nil {
		s.Close()
		return nil, 0, fmt.Errorf("initialize: %w", err)
	}
	if _, err := s.stdin.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")); err != nil {
		s.Close()
		return nil, 0, err
	}
	return s, time.Since(start), nil
}

// Call sends method with params and returns the response's result and
// the round trip's time. A JSON-RPC error is returned as an error.
// Notifications are skipped; a request from the server is answered with
// "method not found", as a client without capabilities would.
func (s *RawSession) Call(method string, params any) (json.RawMessage, time.Duration, error) {
	s.nextID++
	id := strconv.FormatInt(s.nextID, 10)
	p, err := json.Marshal(params)
	if err != nil {
		return nil, 0, err
	}
	req := make([]byte, 0, len(p)+len(method)+64)
	req = append(req, `{"jsonrpc":"2.0","id":`...)
	req = append(req, id...)
	req = append(req, `,"method":`...)
	req = strconv.AppendQuote(req, method)
	req = append(req, `,"params":`...)
	req = append(req, p...)
	req = append(req, "}\n"...)
	watchdog := time.AfterFunc(s.Timeout, func() { s.cmd.Process.Kill() })
	defer watchdog.Stop()
	start := time.Now()
	if _, err := s.stdin.Write(req); err != nil {
		return nil, 0, err
	}
	for {
		if err := s.readLine(); err != nil {
			return nil, 0, fmt.Errorf("reading the response to %s: %w", method, err)
		}
		d := time.Since(start)
		var env rawEnvelope
		if err := json.Unmarshal(s.line, &env); err != nil {
			return nil, 0, fmt.Errorf("server wrote a line that is not JSON: %w: %s", err, Clip(string(s.line)))
		}
		switch {
		case env.Method != "" && len(env.ID) > 0:
			reply := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`+"\n", env.ID)
			if _, err := s.stdin.Write([]byte(reply)); err != nil {
				return nil, 0, err
			}
		case env.Method != "":
			// a notification
		case string(env.ID) != id:
			return nil, 0, fmt.Errorf("response to id %s while waiting for %s", env.ID, id)
		case env.Error != nil:
			return nil, d, fmt.Errorf("%s: JSON-RPC error %d: %s", method, env.Error.Code, env.Error.Message)
		default:
			return env.Result, d, nil
		}
	}
}

// readLine reads the next line of stdout into s.line.
func (s *RawSession) readLine() error {
	s.line = s.line[:0]
	for {
		chunk, err := s.stdout.ReadSlice('\n')
		s.line = append(s.line, chunk...)
		switch {
		case err == nil:
			s.line = bytes.TrimSpace(s.line)
			if len(s.line) == 0 {
				continue
			}
			return nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return err
		}
	}
}

// CallTool calls the tool name with args and returns its decoded result
// and the round trip's time (decoding not included).
func (s *RawSession) CallTool(name string, args map[string]any) (*mcp.CallToolResult, time.Duration, error) {
	raw, d, err := s.Call("tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return nil, d, err
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, d, fmt.Errorf("decoding the result of %s: %w", name, err)
	}
	return &res, d, nil
}

// ToolNames lists the server's tools (the first page of tools/list).
func (s *RawSession) ToolNames() ([]string, error) {
	raw, _, err := s.Call("tools/list", map[string]any{})
	if err != nil {
		return nil, err
	}
	var res struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, err
	}
	names := make([]string, len(res.Tools))
	for i, t := range res.Tools {
		names[i] = t.Name
	}
	return names, nil
}

// Close closes the server's stdin and waits for it to exit, ending it
// with SIGKILL if it has not within TerminateAfter.
func (s *RawSession) Close() error {
	s.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(TerminateAfter):
		s.cmd.Process.Kill()
		<-done
		return fmt.Errorf("%s did not exit within %s of its stdin closing", s.cmd.Path, TerminateAfter)
	}
}
