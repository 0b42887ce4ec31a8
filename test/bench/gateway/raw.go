package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// The hop: the go-sdk client's Streamable HTTP transport costs a client
// more per call than its stdio transport does (building the request,
// parsing the response stream, goroutine hand-offs), and that difference
// is in "small call p50 - stdio p50" though it is no gateway's. So the hop
// is also measured with minimal clients on both sides: benchkit.RawSession
// over stdio, and here one POST per call written by hand on a kept-alive
// connection, timed from the request sent to the response's last byte
// read, decoded after.

// The two minimal clients take turns on one fixture, in runs of -block
// calls (benchkit.TakeTurns): stdio calls, then gateway calls, and so on.
// Whatever slows this machine down for a while (another tenant of the
// host, a page-cache flush) then slows both columns alike, and the hop is
// the difference of two medians taken under the same conditions.

// measureRawHop times cfg.calls small calls (after cfg.warmup) made by
// minimal clients straight to boris over stdio and through the gateway at
// url, taking turns. It returns the stdio calls' stats, then the gateway's.
func measureRawHop(ctx context.Context, cfg config, boris, url string, fx benchkit.Fixture) (stdio, gateway benchkit.Stats, err error) {
	rs, _, err := benchkit.StartRaw(exec.Command(boris, "--workdir", fx.Dir), protocolVersion)
	if err != nil {
		return stdio, gateway, fmt.Errorf("raw stdio: %w", err)
	}
	defer rs.Close()
	c := &rawHTTP{url: url}
	init := fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"boris-bench-raw","version":"1"}}}`, protocolVersion)
	if _, _, err := c.post(ctx, init); err != nil {
		return stdio, gateway, fmt.Errorf("raw HTTP initialize: %w", err)
	}
	if _, _, err := c.post(ctx, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return stdio, gateway, fmt.Errorf("raw HTTP initialized: %w", err)
	}
	defer c.end(ctx)
	args, _ := json.Marshal(map[string]any{"path": fx.Path})
	overStdio := func() (*mcp.CallToolResult, time.Duration, error) {
		return rs.CallTool("view", map[string]any{"path": fx.Path})
	}
	id := 0
	overHTTP := func() (*mcp.CallToolResult, time.Duration, error) {
		id++
		body, d, err := c.post(ctx, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"view","arguments":%s}}`, id, args))
		if err != nil {
			return nil, d, err
		}
		res, err := decodeCallResponse(body)
		return res, d, err
	}
	ds := [2][]time.Duration{make([]time.Duration, 0, cfg.calls), make([]time.Duration, 0, cfg.calls)}
	calls := [2]func() (*mcp.CallToolResult, time.Duration, error){overStdio, overHTTP}
	total := cfg.warmup + cfg.calls
	err = benchkit.TakeTurns(2, total, benchkit.RunLength(cfg.block, total), func(k, i int) error {
		res, d, err := calls[k]()
		if err := benchkit.CheckResult(res, err, fx); err != nil {
			return fmt.Errorf("call %d (%s): %w", i, [2]string{"stdio", "gateway"}[k], err)
		}
		if i >= cfg.warmup {
			ds[k] = append(ds[k], d)
		}
		return nil
	})
	if err != nil {
		return stdio, gateway, err
	}
	return benchkit.Summarize(ds[0]), benchkit.Summarize(ds[1]), nil
}

// rawHTTP is one session of a minimal Streamable HTTP client: HTTP/1.1
// written and read by hand on one kept-alive TCP connection, with no
// goroutine of its own (net/http's client hands each request to two).
type rawHTTP struct {
	url, session string
	conn         net.Conn
	r            *bufio.Reader
}

// post sends one message and returns the response body, read whole, and
// the time from sending to the body's last byte.
func (c *rawHTTP) post(ctx context.Context, msg string) ([]byte, time.Duration, error) {
	return c.do(ctx, http.MethodPost, msg)
}

// do makes one request on the connection, dialing it first if need be.
func (c *rawHTTP) do(ctx context.Context, method, msg string) ([]byte, time.Duration, error) {
	u, err := neturl.Parse(c.url)
	if err != nil {
		return nil, 0, err
	}
	if c.conn == nil {
		var d net.Dialer
		if c.conn, err = d.DialContext(ctx, "tcp", u.Host); err != nil {
			return nil, 0, err
		}
		c.r = bufio.NewReaderSize(c.conn, 64<<10)
	}
	var req bytes.Buffer
	fmt.Fprintf(&req, "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n", method, u.RequestURI(), u.Host)
	fmt.Fprintf(&req, "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: %s\r\n", protocolVersion)
	if c.session != "" {
		fmt.Fprintf(&req, "Mcp-Session-Id: %s\r\n", c.session)
	}
	fmt.Fprintf(&req, "Content-Length: %d\r\n\r\n%s", len(msg), msg)
	_ = c.conn.SetDeadline(time.Now().Add(connectTimeout))
	start := time.Now()
	if _, err := c.conn.Write(req.Bytes()); err != nil {
		return nil, 0, err
	}
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		return nil, 0, err
	}
	body, err := io.ReadAll(resp.Body)
	d := time.Since(start)
	resp.Body.Close()
	if err != nil {
		return nil, 0, err
	}
	if resp.Close {
		c.conn.Close()
		c.conn = nil
	}
	if resp.StatusCode/100 != 2 {
		return nil, 0, fmt.Errorf("HTTP %d: %s", resp.StatusCode, benchkit.Clip(string(body)))
	}
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		c.session = sid
	}
	return body, d, nil
}

// end closes the session (DELETE) and the connection.
func (c *rawHTTP) end(ctx context.Context) {
	_, _, _ = c.do(ctx, http.MethodDelete, "")
	if c.conn != nil {
		c.conn.Close()
	}
}

// decodeCallResponse decodes the tools/call result in a response body:
// a JSON-RPC response, or an event stream whose data lines carry it.
func decodeCallResponse(body []byte) (*mcp.CallToolResult, error) {
	msg := body
	if !bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
		msg = nil
		for _, line := range bytes.Split(body, []byte("\n")) {
			if data, ok := bytes.CutPrefix(line, []byte("data:")); ok && bytes.Contains(data, []byte(`"result"`)) {
				msg = data
			}
		}
		if msg == nil {
			return nil, fmt.Errorf("no result in the event stream: %s", benchkit.Clip(string(body)))
		}
	}
	var resp struct {
		Result *mcp.CallToolResult `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(msg, &resp); err != nil {
		return nil, err
	}
	if resp.Error != nil {
		return nil, errors.New(resp.Error.Message)
	}
	if resp.Result == nil {
		return nil, fmt.Errorf("no result: %s", benchkit.Clip(string(msg)))
	}
	return resp.Result, nil
}
