package core

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// writeFsFixture writes benchkit's filesystem tree to a new directory.
func writeFsFixture(b *testing.B) string {
	dir := b.TempDir()
	if err := benchkit.WriteFsTree(dir); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkFsSession measures the filesystem tools through an in-memory
// MCP session: the server-side cost behind test/bench/fstools's figures
// (the client's decoding included, as the go-sdk client pays it).
func BenchmarkFsSession(b *testing.B) {
	dir := writeFsFixture(b)
	bo := newBenchBoris(b, "--toolset", "filesystem", "--allow-dir", dir, "--checkpoints", "off")
	cs := benchSession(b, bo, "2025-11-25")
	ctx := context.Background()
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"read_text_file", map[string]any{"path": filepath.Join(dir, "small.txt")}},
		{"edit_file", map[string]any{"path": filepath.Join(dir, "edit.go"), "dryRun": true,
			"edits": []any{map[string]any{"oldText": "\tx1000 := compute(1000) // line 1000 of the file", "newText": "\tx1000 := compute(1001) // changed"}}}},
		{"directory_tree", map[string]any{"path": filepath.Join(dir, "tree")}},
	} {
		b.Run(c.name, func(b *testing.B) {
			params := &mcp.CallToolParams{Name: c.name, Arguments: c.args}
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(ctx, params)
				if err != nil || res.IsError {
					b.Fatalf("%s: %v %v", c.name, err, res)
				}
			}
		})
	}
}

// BenchmarkFsStdio measures the filesystem tools through Main over pipes,
// as test/bench/fstools's raw client drives the binary: one request line
// written, the response line read, nothing decoded.
func BenchmarkFsStdio(b *testing.B) {
	dir := writeFsFixture(b)
	inR, inW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- Main(context.Background(), []string{"--toolset", "filesystem", "--allow-dir", dir, "--checkpoints", "off", "--log-level", "error"},
			os.Environ(), inR, outW, io.Discard)
	}()
	defer func() { inW.Close(); <-done; outR.Close() }()
	rd := bufio.NewReaderSize(outR, 1<<20)
	// roundTrip sends line and reads lines up to the response, which it
	// returns whole when keep is set.
	roundTrip := func(line string, keep bool) []byte {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			b.Fatal(err)
		}
		for {
			var resp []byte
			chunk, err := rd.ReadSlice('\n')
			first := bytes.Clone(chunk[:min(len(chunk), 64)])
			if keep {
				resp = append(resp, chunk...)
			}
			for errors.Is(err, bufio.ErrBufferFull) {
				chunk, err = rd.ReadSlice('\n')
				if keep {
					resp = append(resp, chunk...)
				}
			}
			if err != nil {
				b.Fatal(err)
			}
			if !bytes.Contains(first, []byte(`"method"`)) { // not a notification
				return resp
			}
		}
	}
	roundTrip(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`, false)
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	call := func(tool string, args map[string]any) string {
		a, _ := json.Marshal(args)
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, tool, a)
	}
	for _, c := range []struct{ name, line string }{
		{"ping", `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{"read_text_file", call("read_text_file", map[string]any{"path": filepath.Join(dir, "small.txt")})},
		{"edit_file", call("edit_file", map[string]any{"path": filepath.Join(dir, "edit.go"), "dryRun": true,
			"edits": []any{map[string]any{"oldText": "\tx1000 := compute(1000) // line 1000 of the file", "newText": "\tx1000 := compute(1001) // changed"}}})},
		{"directory_tree", call("directory_tree", map[string]any{"path": filepath.Join(dir, "tree")})},
	} {
		b.Run(c.name, func(b *testing.B) {
			if resp := roundTrip(c.line, true); !bytes.Contains(resp, []byte(`"result"`)) || bytes.Contains(resp, []byte(`"isError":true`)) {
				b.Fatalf("%s: %.300s", c.name, resp)
			}
			for b.Loop() {
				roundTrip(c.line, false)
			}
		})
	}
}
