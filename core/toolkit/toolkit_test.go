package toolkit

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestCapResult(t *testing.T) {
	small := TextResult("short")
	CapResult(small)
	if got := small.Content[0].(*mcp.TextContent).Text; got != "short" {
		t.Errorf("a small result was changed to %q", got)
	}
	huge := &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: strings.Repeat("é", 2*MaxResultText)},
		&mcp.TextContent{Text: "after"},
	}}
	CapResult(huge)
	if n := len(huge.Content); n != 1 {
		t.Fatalf("got %d content blocks, want the content past the cut dropped", n)
	}
	got := huge.Content[0].(*mcp.TextContent).Text
	if len(got) > MaxResultText+ResultSlack+200 || !utf8.ValidString(got) {
		t.Errorf("cut text: %d bytes, valid UTF-8 %v; want at most about %d and valid", len(got), utf8.ValidString(got), MaxResultText+ResultSlack)
	}
	if !strings.Contains(got, "[Result cut: it held 4194304 bytes") {
		t.Errorf("cut text ends %q, want a note saying it was cut", got[len(got)-200:])
	}
}
