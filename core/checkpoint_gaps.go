package core

import (
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sayGaps adds a line to res for each gap not yet said.
func (b *boris) sayGaps(res *mcp.CallToolResult) {
	if res == nil {
		return
	}
	gaps := b.rec.TakeGaps()
	if len(gaps) == 0 {
		return
	}
	res.Content = append(res.Content, &mcp.TextContent{
		Text: "[checkpoint] " + strings.Join(gaps, "\n[checkpoint] "),
	})
}
