package core

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkExtensionCall measures calls of extension tools through an
// in-memory MCP session, beside the bash tool, which also starts a
// process (and forks once, for its working directory). The tools add one
// thing at a time: "printed" prints a ready result (a process start, and
// what the core adds to it), "sourced" first sources the SDK, "forked"
// forks once instead, and "hello" is make bench-extension's tool (both,
// plus building the result with the SDK).
func BenchmarkExtensionCall(b *testing.B) {
	dir := b.TempDir()
	project := filepath.Join(dir, "project")
	const result = `printf '%s\\n' '{"content":[{"type":"text","text":"{\\"message\\":\\"hello\\"}"}],"structuredContent":{"message":"hello"},"isError":false}'` + "\n"
	tools := map[string]string{
		"printed": "#!/usr/bin/env bash\n" + result,
		"sourced": "#!/usr/bin/env bash\nset -euo pipefail\nsource \"${MCP_SDK:?}/tool-sdk.sh\"\n" + result,
		"forked":  "#!/usr/bin/env bash\nset -euo pipefail\nx=\"$(:)\"\n" + result,
		"hello":   "#!/usr/bin/env bash\nset -euo pipefail\nsource \"${MCP_SDK:?}/tool-sdk.sh\"\nmcp_result_success \"$(mcp_json_obj message \"hello\")\"\n",
	}
	for name, body := range tools {
		d := filepath.Join(project, "tools", name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
		meta := `{"name":"` + name + `","description":"bench","inputSchema":{"type":"object","properties":{}}}`
		if err := os.WriteFile(filepath.Join(d, "tool.meta.json"), []byte(meta), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "tool.sh"), []byte(body), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	cfg, err := ParseConfig([]string{"--workdir", dir, "--extensions", project, "--checkpoints", "off"}, nil, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	bo, err := newBoris(cfg, os.Environ(), nil, log, log)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(bo.close)
	cs := benchSession(b, bo, "")
	ctx := context.Background()
	for _, c := range []struct {
		name, want string
		args       map[string]any
	}{
		{"bash", "hi", map[string]any{"command": "echo hi"}},
		{"printed", "hello", map[string]any{}},
		{"sourced", "hello", map[string]any{}},
		{"forked", "hello", map[string]any{}},
		{"hello", "hello", map[string]any{}},
	} {
		b.Run(c.name, func(b *testing.B) {
			params := &mcp.CallToolParams{Name: c.name, Arguments: c.args}
			for b.Loop() {
				res, err := cs.CallTool(ctx, params)
				if err != nil || res.IsError {
					b.Fatalf("%s: %v %v", c.name, err, res)
				}
				if txt := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(txt, c.want) {
					b.Fatalf("%s: %q", c.name, txt)
				}
			}
		})
	}
}
