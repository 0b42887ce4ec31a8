package tooltest

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit"
)

// Connect serves tools, registered as a core registers them but with
// nothing around their calls, to a real MCP client over in-memory
// transports; both ends close when the test ends.
func Connect(tb testing.TB, tools []toolkit.Tool) *mcp.ClientSession {
	tb.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "tooltest"}, nil)
	for _, t := range tools {
		t.Register(s, func(ctx context.Context, _ string, run func(context.Context) *mcp.CallToolResult) *mcp.CallToolResult {
			return run(ctx)
		})
	}
	return Serve(tb, s, nil, nil)
}

// Serve connects a real client, made with copt and speaking what sopt
// says (both may be nil: the newest revision, no client capabilities),
// to s over in-memory transports; both ends close when the test ends.
func Serve(tb testing.TB, s *mcp.Server, copt *mcp.ClientOptions, sopt *mcp.ClientSessionOptions) *mcp.ClientSession {
	tb.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		tb.Fatalf("connect the server: %v", err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "tooltest-client"}, copt).Connect(context.Background(), ct, sopt)
	if err != nil {
		ss.Close()
		tb.Fatalf("connect the client: %v", err)
	}
	tb.Cleanup(func() { cs.Close(); ss.Close() })
	return cs
}

// Call calls the tool name with args and returns its result, failing the
// test on a protocol error (a tool's own error is a result).
func Call(tb testing.TB, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	tb.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		tb.Fatalf("call %s: %v", name, err)
	}
	return res
}

// Text is the text of a result's content.
func Text(res *mcp.CallToolResult) string {
	var sb strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(t.Text)
		}
	}
	return sb.String()
}
