package test

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestViewFile(t *testing.T) {
	dir := realTempDir(t)
	writeFile(t, filepath.Join(dir, "a.txt"), "alpha\nbeta\n\tgamma\n")
	writeFile(t, filepath.Join(dir, "crlf.txt"), "one\r\ntwo\r\n")
	writeFile(t, filepath.Join(dir, "long.txt"), strings.Repeat("x", 2500)+"\nshort\n")
	var many strings.Builder
	for i := 1; i <= 2500; i++ {
		fmt.Fprintf(&many, "line %d\n", i)
	}
	writeFile(t, filepath.Join(dir, "many.txt"), many.String())
	writeFile(t, filepath.Join(dir, "empty.txt"), "")
	c := startCore(t, "--workdir", dir)

	tests := []struct {
		name string
		args map[string]any
		want []string // substrings, in order
		not  []string
	}{
		{"numbered", map[string]any{"path": "a.txt"}, []string{"     1\talpha\n", "     2\tbeta\n", "     3\t\tgamma\n"}, nil},
		{"absolute path", map[string]any{"path": filepath.Join(dir, "a.txt")}, []string{"     1\talpha\n"}, nil},
		{"crlf shown without carriage returns", map[string]any{"path": "crlf.txt"}, []string{"     1\tone\n", "     2\ttwo\n"}, []string{"\r"}},
		{"range", map[string]any{"path": "a.txt", "view_range": []int{2, 2}}, []string{"     2\tbeta\n"}, []string{"alpha", "gamma"}},
		{"range end clamped", map[string]any{"path": "a.txt", "view_range": []int{2, 99}}, []string{"     2\tbeta\n", "     3\t\tgamma\n"}, []string{"alpha"}},
		{"range to end", map[string]any{"path": "many.txt", "view_range": []int{2499, -1}}, []string{"  2499\tline 2499\n", "  2500\tline 2500\n"}, []string{"line 2498\n"}},
		{"long line cut", map[string]any{"path": "long.txt"}, []string{"\t" + strings.Repeat("x", 2000) + " [... line cut: 2000 of 2500 characters shown]\n", "     2\tshort\n"}, []string{strings.Repeat("x", 2001)}},
		{"default window", map[string]any{"path": "many.txt"}, []string{"  2000\tline 2000\n", "Showing lines 1-2000 of 2500", "[2001, 2500]"}, []string{"line 2001\n"}},
		{"empty file", map[string]any{"path": "empty.txt"}, []string{"empty"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := c.ok("view", tt.args)
			assertInOrder(t, got, tt.want)
			for _, n := range tt.not {
				if strings.Contains(got, n) {
					t.Errorf("view %v: got %q, want no %q", tt.args, got, n)
				}
			}
		})
	}
}

func TestViewErrors(t *testing.T) {
	dir := realTempDir(t)
	writeFile(t, filepath.Join(dir, "a.txt"), "one\ntwo\nthree\n")
	writeFile(t, filepath.Join(dir, "prog.bin"), "\x7fELF\x02\x01\x01\x00\x00\x00binary")
	writeFile(t, filepath.Join(dir, "big.txt"), strings.Repeat("0123456789\n", 200))
	c := startCore(t, "--workdir", dir, "--max-file-size", "1KB")

	tests := []struct {
		name, code string
		args       map[string]any
		want       string
	}{
		{"start past end names line count", "INVALID_INPUT", map[string]any{"path": "a.txt", "view_range": []int{9, 10}}, "has 3 lines"},
		{"reversed range", "INVALID_INPUT", map[string]any{"path": "a.txt", "view_range": []int{3, 1}}, "before start"},
		{"range of one number", "INVALID_INPUT", map[string]any{"path": "a.txt", "view_range": []int{3}}, "[start, end]"},
		{"zero start", "INVALID_INPUT", map[string]any{"path": "a.txt", "view_range": []int{0, 1}}, "1 or more"},
		{"missing path", "INVALID_INPUT", map[string]any{}, "path"},
		{"wrong type", "INVALID_INPUT", map[string]any{"path": 7}, "path"},
		{"unknown parameter", "INVALID_INPUT", map[string]any{"path": "a.txt", "bogus": true}, "bogus"},
		{"not found", "PATH_NOT_FOUND", map[string]any{"path": "nope.txt"}, "nope.txt"},
		{"binary refused with size and type", "BINARY_FILE", map[string]any{"path": "prog.bin"}, "(16 bytes, detected type application/octet-stream)"},
		{"too large without range", "FILE_TOO_LARGE", map[string]any{"path": "big.txt"}, "view_range"},
		{"range on directory", "INVALID_INPUT", map[string]any{"path": ".", "view_range": []int{1, 2}}, "directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := c.fails(tt.code, "view", tt.args)
			if !strings.Contains(got, tt.want) {
				t.Errorf("got %q, want it to mention %q", got, tt.want)
			}
		})
	}
	t.Run("too large file readable by range", func(t *testing.T) {
		got := c.ok("view", map[string]any{"path": "big.txt", "view_range": []int{200, -1}})
		if want := "   200\t0123456789\n"; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
}

func TestViewImage(t *testing.T) {
	dir := realTempDir(t)
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>`)
	writeFile(t, filepath.Join(dir, "dot.png"), string(png))
	writeFile(t, filepath.Join(dir, "icon.svg"), string(svg))
	c := startCore(t, "--workdir", dir)
	for _, tt := range []struct {
		path, mime string
		data       []byte
	}{{"dot.png", "image/png", png}, {"icon.svg", "image/svg+xml", svg}} {
		t.Run(tt.path, func(t *testing.T) {
			res := c.call("view", map[string]any{"path": tt.path})
			if res.IsError || len(res.Content) != 1 {
				t.Fatalf("got %d contents, isError=%v, want one image", len(res.Content), res.IsError)
			}
			img, ok := res.Content[0].(*mcp.ImageContent)
			if !ok {
				t.Fatalf("got %T, want *mcp.ImageContent", res.Content[0])
			}
			if img.MIMEType != tt.mime || string(img.Data) != string(tt.data) {
				t.Errorf("got %s %q, want %s %q", img.MIMEType, base64.StdEncoding.EncodeToString(img.Data), tt.mime, base64.StdEncoding.EncodeToString(tt.data))
			}
		})
	}
}

func TestViewDirectory(t *testing.T) {
	dir := realTempDir(t)
	for _, f := range []string{"README.md", ".env.example", "src/main.go", "src/deep/hidden.go", ".git/HEAD", "node_modules/x/index.js"} {
		writeFile(t, filepath.Join(dir, f), "x\n")
	}
	if err := os.Symlink("src/main.go", filepath.Join(dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	c := startCore(t, "--workdir", dir)
	got := c.ok("view", map[string]any{"path": "."})
	want := dir + "/\n  .env.example\n  README.md\n  link.go -> src/main.go\n  src/\n    deep/\n    main.go\n"
	if got != want {
		t.Errorf("listing:\ngot  %q\nwant %q", got, want)
	}
}

// assertInOrder checks that every want appears in got, in order.
func assertInOrder(t *testing.T, got string, want []string) {
	t.Helper()
	rest := got
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Fatalf("got %q\nwant it to contain %q (in order)", got, w)
		}
		rest = rest[i+len(w):]
	}
}
