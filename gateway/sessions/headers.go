package sessions

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mjkoo/boris/gateway/wire"
)

// toolHeaders knows which arguments of a principal core's tools their
// schemas mirror into Mcp-Param-* headers (x-mcp-header): the gateway
// must check those headers against the body. It asks the core for its
// tools when it first needs to and again after the core said its list
// changed.
type toolHeaders struct {
	stale atomic.Uint64 // bumped by every tools/list_changed

	mu     sync.Mutex
	at     uint64                        // the value of stale byTool was read at
	byTool map[string][]wire.ParamHeader // nil until read
}

// paramHeaders returns the mirrored arguments of tool.
func (pc *principalCore) paramHeaders(ctx context.Context, tool string) ([]wire.ParamHeader, error) {
	th := &pc.tools
	th.mu.Lock()
	defer th.mu.Unlock()
	if gen := th.stale.Load(); th.byTool == nil || th.at != gen {
		byTool, err := pc.readToolHeaders(ctx)
		if err != nil {
			return nil, err
		}
		th.byTool, th.at = byTool, gen
	}
	return th.byTool[tool], nil
}

// readToolHeaders lists the core's tools, every page, and collects their
// x-mcp-header annotations.
func (pc *principalCore) readToolHeaders(ctx context.Context) (map[string][]wire.ParamHeader, error) {
	out := map[string][]wire.ParamHeader{}
	cursor := ""
	for range 1000 {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		res, err := pc.ask(ctx, "tools/list", params)
		if err != nil {
			return nil, err
		}
		var page struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(res, &page); err != nil {
			return nil, err
		}
		for _, t := range page.Tools {
			if hs := wire.SchemaHeaders(t.InputSchema, nil); len(hs) > 0 {
				out[t.Name] = hs
			}
		}
		if cursor = page.NextCursor; cursor == "" {
			return out, nil
		}
	}
	return nil, fmt.Errorf("the core's tools/list did not end after 1000 pages")
}

// CheckParamHeaders validates a tools/call's Mcp-Param-* headers against
// its arguments, for the arguments the tool's schema mirrors: a value
// present needs its header, equal after decoding (integers compared as
// numbers); an absent or null value must have none. An error that is a
// *jsonrpc.Error means the gateway could not learn the tool's schema.
func (s *Session) CheckParamHeaders(ctx context.Context, hdr http.Header, p *wire.Request2026) error {
	want, err := s.principal.paramHeaders(ctx, wire.StringValue(p.Params["name"]))
	if err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "cannot read the core's tool list to check Mcp-Param headers: " + err.Error()}
	}
	for _, ph := range want {
		header := "Mcp-Param-" + ph.Name
		raw, sent := hdr[http.CanonicalHeaderKey(header)]
		val, ok := wire.Argument(p.Params["arguments"], ph.Path)
		switch {
		case !ok && sent:
			return fmt.Errorf("%s header sent, but arguments.%s has no value", header, strings.Join(ph.Path, "."))
		case !ok:
			continue
		case !sent:
			return fmt.Errorf("missing %s header for arguments.%s", header, strings.Join(ph.Path, "."))
		}
		hv, err := wire.DecodeHeader(raw[0])
		if err != nil {
			return fmt.Errorf("%s: %v", header, err)
		}
		if !wire.SameValue(hv, val) {
			return fmt.Errorf("%s header value '%s' does not match body value %s", header, hv, val)
		}
	}
	return nil
}
