package core

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchBoris returns a boris serving a directory holding small.txt, 50 lines.
func benchBoris(b *testing.B) *boris {
	dir := b.TempDir()
	var sb strings.Builder
	for i := range 50 {
		fmt.Fprintf(&sb, "line %d of a small file\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "small.txt"), []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return newBenchBoris(b, "--workdir", dir)
}

// newBenchBoris returns a boris started with args, without logs, closed
// when the benchmark ends.
func newBenchBoris(b testing.TB, args ...string) *boris {
	cfg, err := ParseConfig(args, nil, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	bo, err := newBoris(cfg, nil, nil, log, log)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(bo.close)
	return bo
}

// benchSession connects an in-memory client session to a new server of
// bo, asking for protocol ("" for the SDK's default); both end with the
// benchmark.
func benchSession(b testing.TB, bo *boris, protocol string) *mcp.ClientSession {
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := bo.newServer().Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ss.Close() })
	var opts *mcp.ClientSessionOptions
	if protocol != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: protocol}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx, ct, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

// BenchmarkViewSmall measures a small view call through an in-memory MCP
// session: the server-side cost behind test/bench's small-call latency,
// at a session revision and at 2026-07-28 (per-request _meta, no
// initialize).
func BenchmarkViewSmall(b *testing.B) {
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		b.Run(rev, func(b *testing.B) {
			cs := benchSession(b, benchBoris(b), rev)
			ctx := context.Background()
			if got := cs.InitializeResult().ProtocolVersion; got != rev {
				b.Fatalf("negotiated %s, want %s", got, rev)
			}
			params := &mcp.CallToolParams{Name: "view", Arguments: map[string]any{"path": "small.txt"}}
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(ctx, params)
				if err != nil || res.IsError {
					b.Fatalf("view: %v %v", err, res)
				}
			}
		})
	}
}
