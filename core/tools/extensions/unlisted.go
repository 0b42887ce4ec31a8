package extensions

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/extension"
)

// readUnlisted serves, as mcp-bash-framework's file provider does, a
// resources/read of a file:// URI that no extension resource or template
// lists: the framework reads any file:// URI through its file provider,
// confined to MCP_RESOURCES_ROOTS, which defaults to the project's
// resources/ directory (lib/resources.sh, mcp_resources_read_file). Its
// example 11 reads file://./resources/example.txt that way. Boris does
// the same for the resources/ directory of each extension directory, in
// order; any other URI goes on to the SDK, which answers "not found" for
// what it does not list.
func (b *Set) ReadUnlisted(next mcp.MethodHandler) mcp.MethodHandler {
	if b == nil {
		return next
	}
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		c := b.content
		p, ok := req.GetParams().(*mcp.ReadResourceParams)
		if method != "resources/read" || c == nil || !ok || p == nil || !strings.HasPrefix(p.URI, "file://") {
			return next(ctx, method, req)
		}
		if _, listed := c.source(p.URI); listed {
			return next(ctx, method, req)
		}
		for _, root := range c.cat.Load().roots {
			data, err := extension.ReadResourcesFile(root, p.URI, int64(b.opt.MaxFileSize))
			if err == nil {
				res := &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{extContents(p.URI, resourceType("", p.URI, data), data)}}
				res.CacheScope = "public" // what the SDK's readResource fills in
				return res, nil
			}
		}
		return next(ctx, method, req)
	}
}
