package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// toolHeaders knows which arguments of a principal core's tools their
// schemas mirror into Mcp-Param-* headers (x-mcp-header): the gateway
// must check those headers against the body. It asks the core for its
// tools when it first needs to and again after the core said its list
// changed.
type toolHeaders struct {
	stale atomic.Uint64 // bumped by every tools/list_changed

	mu     sync.Mutex
	at     uint64                   // the value of stale byTool was read at
	byTool map[string][]paramHeader // nil until read
}

// paramHeader is one argument mirrored into a header.
type paramHeader struct {
	name string   // the header is Mcp-Param-{name}
	path []string // properties chain to the argument
}

// paramHeaders returns the mirrored arguments of tool.
func (s *session) paramHeaders(ctx context.Context, tool string) ([]paramHeader, error) {
	th := &s.principal.tools
	th.mu.Lock()
	defer th.mu.Unlock()
	if gen := th.stale.Load(); th.byTool == nil || th.at != gen {
		byTool, err := s.readToolHeaders(ctx)
		if err != nil {
			return nil, err
		}
		th.byTool, th.at = byTool, gen
	}
	return th.byTool[tool], nil
}

// readToolHeaders lists the core's tools, every page, and collects their
// x-mcp-header annotations.
func (s *session) readToolHeaders(ctx context.Context) (map[string][]paramHeader, error) {
	out := map[string][]paramHeader{}
	cursor := ""
	for range 1000 {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		res, err := s.ask(ctx, "tools/list", params)
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
			if hs := schemaHeaders(t.InputSchema, nil); len(hs) > 0 {
				out[t.Name] = hs
			}
		}
		if cursor = page.NextCursor; cursor == "" {
			return out, nil
		}
	}
	return nil, fmt.Errorf("the core's tools/list did not end after 1000 pages")
}

// schemaHeaders collects x-mcp-header annotations reachable from a schema
// through "properties" alone, as the revision allows them.
func schemaHeaders(schema json.RawMessage, path []string) []paramHeader {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	var out []paramHeader
	for name, prop := range s.Properties {
		p := append(append([]string(nil), path...), name)
		var ann struct {
			Header string `json:"x-mcp-header"`
		}
		if json.Unmarshal(prop, &ann) == nil && ann.Header != "" {
			out = append(out, paramHeader{name: ann.Header, path: p})
		}
		out = append(out, schemaHeaders(prop, p)...)
	}
	return out
}

// checkParamHeaders validates a tools/call's Mcp-Param-* headers against
// its arguments, for the arguments the tool's schema mirrors: a value
// present needs its header, equal after decoding (integers compared as
// numbers); an absent or null value must have none. An error that is a
// *jsonrpc.Error means the gateway could not learn the tool's schema.
func (s *session) checkParamHeaders(ctx context.Context, hdr http.Header, p *request2026) error {
	want, err := s.paramHeaders(ctx, str(p.params["name"]))
	if err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "cannot read the core's tool list to check Mcp-Param headers: " + err.Error()}
	}
	for _, ph := range want {
		header := "Mcp-Param-" + ph.name
		raw, sent := hdr[http.CanonicalHeaderKey(header)]
		val, ok := argument(p.params["arguments"], ph.path)
		switch {
		case !ok && sent:
			return fmt.Errorf("%s header sent, but arguments.%s has no value", header, strings.Join(ph.path, "."))
		case !ok:
			continue
		case !sent:
			return fmt.Errorf("missing %s header for arguments.%s", header, strings.Join(ph.path, "."))
		}
		hv, err := decodeHeader(raw[0])
		if err != nil {
			return fmt.Errorf("%s: %v", header, err)
		}
		if !sameValue(hv, val) {
			return fmt.Errorf("%s header value '%s' does not match body value %s", header, hv, val)
		}
	}
	return nil
}

// argument returns the value at path in a tool's arguments; null counts
// as absent.
func argument(args json.RawMessage, path []string) (json.RawMessage, bool) {
	for _, key := range path {
		var obj map[string]json.RawMessage
		if json.Unmarshal(args, &obj) != nil {
			return nil, false
		}
		args = obj[key]
	}
	if len(args) == 0 || string(args) == "null" {
		return nil, false
	}
	return args, true
}

// sameValue compares a header's decoded value with a JSON primitive:
// strings as text, numbers as numbers, booleans as true/false.
func sameValue(header string, val json.RawMessage) bool {
	switch val[0] {
	case '"':
		var s string
		return json.Unmarshal(val, &s) == nil && s == header
	case 't', 'f':
		return string(val) == header
	case '{', '[':
		return false
	}
	a, ok1 := new(big.Float).SetString(string(bytes.TrimSpace(val)))
	b, ok2 := new(big.Float).SetString(header)
	return ok1 && ok2 && a.Cmp(b) == 0
}
