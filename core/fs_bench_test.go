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
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchFsBoris returns a boris with the filesystem toolset over a
// directory written by writeFsFixture.
func benchFsBoris(b *testing.B) (*boris, string) {
	dir := writeFsFixture(b)
	return newBenchBoris(b, "--toolset", "filesystem", "--allow-dir", dir, "--checkpoints", "off"), dir
}

// writeFsFixture writes a directory holding small.txt (50 lines), edit.go
// (2,000 lines) and tree/, 10,000 small files in 100 leaf directories, as
// test/bench/fstools builds them, and returns it.
func writeFsFixture(b *testing.B) string {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "small.txt"), []byte(strings.Repeat("a line of the small file\n", 50)), 0o644); err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&sb, "\tx%d := compute(%d) // line %d of the file\n", i, i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "edit.go"), []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	for p := range 10 {
		for q := range 10 {
			leaf := filepath.Join(dir, "tree", fmt.Sprintf("p%02d", p), fmt.Sprintf("q%d", q))
			if err := os.MkdirAll(leaf, 0o755); err != nil {
				b.Fatal(err)
			}
			for f := range 100 {
				if err := os.WriteFile(filepath.Join(leaf, fmt.Sprintf("f%02d.go", f)), []byte("package x\n"), 0o644); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	return dir
}

// BenchmarkFsEditDryRun: edit_file's dry run of one line in 2,000, the
// handler alone.
func BenchmarkFsEditDryRun(b *testing.B) {
	bo, dir := benchFsBoris(b)
	p := fsEditParams{Path: filepath.Join(dir, "edit.go"), DryRun: true,
		Edits: []fsEdit{{OldText: "\tx1000 := compute(1000) // line 1000 of the file", NewText: "\tx1000 := compute(1001) // changed"}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bo.fsEditFile(context.Background(), nil, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFsDirectoryTree: directory_tree of 10,000 files, the handler
// alone.
func BenchmarkFsDirectoryTree(b *testing.B) {
	bo, dir := benchFsBoris(b)
	p := fsTreeParams{Path: filepath.Join(dir, "tree")}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bo.fsDirectoryTree(context.Background(), nil, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFsSession measures the filesystem tools through an in-memory
// MCP session: the server-side cost behind test/bench/fstools's figures
// (the client's decoding included, as the go-sdk client pays it).
func BenchmarkFsSession(b *testing.B) {
	bo, dir := benchFsBoris(b)
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
