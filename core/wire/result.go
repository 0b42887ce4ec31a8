package wire

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK encodes a tool result in layers: each text content marshals
// itself, the result marshals its contents, and encoding/json re-scans
// (compacts) the output of every layer that has its own MarshalJSON, at
// about 5 ns a byte. For a small result that is a few microseconds; for
// directory_tree of ten thousand files (about 1 MB of text, held twice: as
// text content and as structured content) it is about 30 ms, more than the
// tool itself. PlainResults hands the SDK the plain shape most of boris's
// results have as a struct without a MarshalJSON of its own, which
// encoding/json writes in one pass, to the very bytes the SDK would write
// (TestPlainToolResultMatchesSDK holds it to that).

// plainToolResult is a tool result of the plain shape.
type plainToolResult struct {
	mcp.ResultBase
	Content           []plainText       `json:"content"`
	StructuredContent map[string]string `json:"structuredContent,omitempty"`
	IsError           bool              `json:"isError,omitempty"`
}

// plainText is a text content without _meta or annotations.
type plainText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// PlainResults is the outermost receiving middleware: a tools/call result
// of the plain shape (see plainResult) leaves it as a plainToolResult.
// Requests of the 2026-07-28 revision are left to the SDK, which adds
// members to their results after the middleware.
func PlainResults(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil || method != "tools/call" {
			return res, err
		}
		r, ok := res.(*mcp.CallToolResult)
		if !ok || perRequestRevision(req) {
			return res, err
		}
		if p := plainResult(r); p != nil {
			return p, nil
		}
		return res, err
	}
}

// perRequestRevision reports whether req names its protocol version in its
// _meta, as requests of the 2026-07-28 revision do.
func perRequestRevision(req mcp.Request) bool {
	p := req.GetParams()
	if p == nil {
		return false
	}
	_, ok := p.GetMeta()[mcp.MetaKeyProtocolVersion]
	return ok
}

// plainResult returns res as a plainToolResult when it has the plain
// shape: contents that are all text without _meta or annotations,
// structured content absent or a non-empty map of strings, and nothing
// else but isError. Any other result gives nil, for the SDK to encode.
func plainResult(res *mcp.CallToolResult) *plainToolResult {
	if len(res.Meta) > 0 || res.InputRequests != nil || res.RequestState != "" {
		return nil
	}
	p := &plainToolResult{Content: make([]plainText, len(res.Content)), IsError: res.IsError}
	for i, c := range res.Content {
		t, ok := c.(*mcp.TextContent)
		if !ok || len(t.Meta) > 0 || t.Annotations != nil {
			return nil
		}
		p.Content[i] = plainText{Type: "text", Text: t.Text}
	}
	switch sc := res.StructuredContent.(type) {
	case nil:
	case map[string]any:
		if len(sc) == 0 {
			return nil // null or {}, which omitempty would leave out
		}
		p.StructuredContent = make(map[string]string, len(sc))
		for k, v := range sc {
			s, ok := v.(string)
			if !ok {
				return nil
			}
			p.StructuredContent[k] = s
		}
	default:
		return nil
	}
	return p
}
