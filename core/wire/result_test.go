package wire

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPlainToolResultMatchesSDK: a result boris encodes itself is byte for
// byte what the SDK's encoding writes, for texts with everything encoding
// has to escape or replace; a result of any other shape is left to the SDK.
func TestPlainToolResultMatchesSDK(t *testing.T) {
	texts := []string{
		"",
		"plain",
		"quote \" backslash \\ slash / tab \t newline \n cr \r nul \x00 bell \x07 del \x7f",
		"<html> & \u2028 \u2029 é 漢字 🙂",
		"invalid \xff\xfe utf-8 \xc3",
		strings.Repeat("{\n  \"name\": \"f00.go\",\n  \"type\": \"file\"\n},\n", 2000),
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		b := make([]byte, r.IntN(64))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		texts = append(texts, string(b))
	}
	var results []*mcp.CallToolResult
	for i, text := range texts {
		other := texts[(i+1)%len(texts)]
		results = append(results,
			&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}},
			&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: map[string]any{"content": text}},
			&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}, &mcp.TextContent{Text: other}},
				StructuredContent: map[string]any{"b": other, "a": text, "<&>": text}, IsError: i%2 == 0},
			&mcp.CallToolResult{Content: []mcp.Content{}, IsError: true},
		)
	}
	for i, res := range results {
		want, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		p := plainResult(res)
		if p == nil {
			t.Fatalf("result %d: not taken, though of the plain shape", i)
		}
		got, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("result %d:\nboris %s\nSDK   %s", i, got, want)
		}
	}

	for name, res := range map[string]*mcp.CallToolResult{
		"_meta":              {Meta: mcp.Meta{"k": "v"}, Content: []mcp.Content{&mcp.TextContent{Text: "x"}}},
		"image content":      {Content: []mcp.Content{&mcp.ImageContent{Data: []byte("x"), MIMEType: "image/png"}}},
		"annotated text":     {Content: []mcp.Content{&mcp.TextContent{Text: "x", Annotations: &mcp.Annotations{Priority: 1}}}},
		"text with _meta":    {Content: []mcp.Content{&mcp.TextContent{Text: "x", Meta: mcp.Meta{"k": 1}}}},
		"structured struct":  {Content: []mcp.Content{&mcp.TextContent{Text: "x"}}, StructuredContent: struct{ A int }{1}},
		"structured numbers": {Content: []mcp.Content{&mcp.TextContent{Text: "x"}}, StructuredContent: map[string]any{"n": 1}},
		"nil map":            {Content: []mcp.Content{&mcp.TextContent{Text: "x"}}, StructuredContent: map[string]any(nil)},
		"empty map":          {Content: []mcp.Content{&mcp.TextContent{Text: "x"}}, StructuredContent: map[string]any{}},
		"request state":      {Content: []mcp.Content{&mcp.TextContent{Text: "x"}}, RequestState: "s"},
	} {
		if got := plainResult(res); got != nil {
			t.Errorf("%s: taken as %+v; only the plain shape may be", name, got)
		}
	}
}

// BenchmarkPlainToolResult: a 1 MB text result with the same text as
// structured content, encoded as a plainToolResult and by the SDK.
func BenchmarkPlainToolResult(b *testing.B) {
	text := strings.Repeat("{\n  \"name\": \"f00.go\",\n  \"type\": \"file\"\n},\n", 25000)
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: map[string]any{"content": text}}
	b.Run("boris", func(b *testing.B) {
		for b.Loop() {
			if _, err := json.Marshal(plainResult(res)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sdk", func(b *testing.B) {
		for b.Loop() {
			if _, err := json.Marshal(res); err != nil {
				b.Fatal(err)
			}
		}
	})
}
