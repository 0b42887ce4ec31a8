// Command server is the floor test/bench/floor measures boris against: a
// bare go-sdk server over stdio with one tool, view, that returns a
// constant (the fixture as boris's view shows it, read once at start-up).
// What boris costs beyond it is what boris itself adds to a small view:
// its stdin screen, argument decoding, path scoping and the read.
//
// Usage: server typed|raw FILE [N]. "typed" registers the tool with
// mcp.AddTool and a typed argument struct, as a go-sdk server usually
// does (the SDK validates and decodes the arguments); "raw" registers it
// with Server.AddTool and does nothing with them. With N, it registers N
// such tools (view, view_2, ... view_N): the floor for a server of N
// tools, such as boris's tools/list.
//
// Usage: server defs FILE TOOLS: registers with Server.AddTool every tool
// of TOOLS (a JSON array of tool definitions, as a tools/list lists them:
// boris's own), their schemas as given: the floor for a server listing
// exactly boris's definitions.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// viewArgs are the arguments the typed tool accepts, as boris's view does.
type viewArgs struct {
	Path      string `json:"path" jsonschema:"file to view"`
	ViewRange []int  `json:"view_range,omitempty" jsonschema:"optional line range"`
}

func main() {
	if len(os.Args) == 4 && os.Args[1] == "defs" {
		serveDefs(os.Args[2], os.Args[3])
		return
	}
	n, err := 1, error(nil)
	if len(os.Args) == 4 {
		n, err = strconv.Atoi(os.Args[3])
	}
	if len(os.Args) < 3 || len(os.Args) > 4 || (os.Args[1] != "typed" && os.Args[1] != "raw") || err != nil || n < 1 {
		fmt.Fprintln(os.Stderr, "usage: server typed|raw FILE [N], or server defs FILE TOOLS")
		os.Exit(2)
	}
	text, err := numbered(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
	result := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	s := mcp.NewServer(&mcp.Implementation{Name: "floor", Version: "1"}, nil)
	for i := range n {
		tool := &mcp.Tool{Name: "view", Description: "returns a constant"}
		if i > 0 {
			tool.Name = fmt.Sprintf("view_%d", i+1)
		}
		add(s, tool, os.Args[1] == "typed", result)
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}

// serveDefs serves every tool of the JSON array in the file defs, each
// returning file's numbered text.
func serveDefs(file, defs string) {
	text, err := numbered(file)
	if err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
	data, err := os.ReadFile(defs)
	if err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
	var tools []struct {
		mcp.Tool
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	}
	if err := json.Unmarshal(data, &tools); err != nil || len(tools) == 0 {
		fmt.Fprintf(os.Stderr, "server: %s: want a JSON array of tools (%v)\n", defs, err)
		os.Exit(1)
	}
	result := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	s := mcp.NewServer(&mcp.Implementation{Name: "floor", Version: "1"}, nil)
	for _, t := range tools {
		tool := t.Tool
		tool.InputSchema = t.InputSchema
		if t.OutputSchema != nil {
			tool.OutputSchema = t.OutputSchema
		}
		s.AddTool(&tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return result, nil
		})
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}

// add registers tool, returning result: typed with mcp.AddTool, else raw.
func add(s *mcp.Server, tool *mcp.Tool, typed bool, result *mcp.CallToolResult) {
	if typed {
		mcp.AddTool(s, tool, func(context.Context, *mcp.CallToolRequest, viewArgs) (*mcp.CallToolResult, any, error) {
			return result, nil, nil
		})
		return
	}
	tool.InputSchema = map[string]any{"type": "object"}
	s.AddTool(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return result, nil
	})
}

// numbered returns the file's lines in cat -n style, as boris shows them.
func numbered(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		fmt.Fprintf(&b, "%6d\t%s\n", n, sc.Text())
	}
	return b.String(), sc.Err()
}
