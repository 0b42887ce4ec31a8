package boris

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit/tooltest"
	"github.com/mjkoo/boris/internal/flagenv"
)

// abc is a small file of three lines.
var abc = map[string]string{"a.txt": "one\ntwo\nthree\n"}

// TestView: view numbers a file's lines, shows the range asked for, lists
// directories two levels deep, and refuses what it cannot show with its
// code.
func TestView(t *testing.T) {
	long := strings.Repeat("x", 2500)
	many := strings.Repeat("line\n", 2500)
	wide := strings.Repeat(strings.Repeat("w", 1000)+"\n", 1100) // over the 1MB a result holds
	runScenarios(t, []scenario{
		{name: "lines and ranges", files: abc, steps: []tooltest.Step{
			{Tool: "view", Args: map[string]any{"path": "a.txt"}, Want: "     1\tone\n     2\ttwo\n     3\tthree\n"},
			{Tool: "view", Args: map[string]any{"path": "$DIR/a.txt", "view_range": []int{2, 2}}, Want: "     2\ttwo\n", Not: "one"},
			{Tool: "view", Args: map[string]any{"path": "a.txt", "view_range": []int{2, -1}}, Want: "     2\ttwo\n     3\tthree\n", Not: "one"},
			{Tool: "view", Args: map[string]any{"path": "a.txt", "view_range": []int{1}}, IsError: true, Want: "[INVALID_INPUT] view_range must be [start, end], got 1 number"},
			{Tool: "view", Args: map[string]any{"path": "a.txt", "view_range": []int{0, 2}}, IsError: true, Want: "[INVALID_INPUT] view_range start must be 1 or more, got 0"},
			{Tool: "view", Args: map[string]any{"path": "a.txt", "view_range": []int{3, 2}}, IsError: true, Want: "view_range end 2 is before start 3"},
			{Tool: "view", Args: map[string]any{"path": "a.txt", "view_range": []int{9, 10}}, IsError: true, Want: "view_range start 9 is past the end of $DIR/a.txt, which has 3 lines"},
		}},
		{name: "empty, long lines, long files", files: map[string]string{"empty.txt": "", "long.txt": long + "\n", "many.txt": many}, steps: []tooltest.Step{
			{Tool: "view", Args: map[string]any{"path": "empty.txt"}, Want: "$DIR/empty.txt is empty."},
			{Tool: "view", Args: map[string]any{"path": "long.txt"}, Want: "[... line cut: 2000 of 2500 characters shown]"},
			{Tool: "view", Args: map[string]any{"path": "many.txt"}, Want: "[Showing lines 1-2000 of 2500. Pass view_range, e.g. [2001, 2500], to see more.]"},
			{Tool: "view", Args: map[string]any{"path": "many.txt", "view_range": []int{2400, -1}}, Want: "  2500\tline\n", Not: "Showing"},
		}},
		{name: "a result stops at 1MB of text", files: map[string]string{"wide.txt": wide}, steps: []tooltest.Step{
			{Tool: "view", Args: map[string]any{"path": "wide.txt", "view_range": []int{1, -1}}, Want: "of 1100: a result holds at most 1MB of text. Pass view_range"},
		}},
		{name: "refusals", files: map[string]string{"bin.dat": "\x00\x01\x02", "bad.txt": "ok \xff\xfe\xfd more", ".env": "SECRET=1\n"}, steps: []tooltest.Step{
			{Tool: "view", Args: map[string]any{"path": "bin.dat"}, IsError: true, Want: "[BINARY_FILE] $DIR/bin.dat is a binary file (3 bytes"},
			{Tool: "view", Args: map[string]any{"path": "bad.txt"}, IsError: true, Want: "[BINARY_FILE]"},
			{Tool: "view", Args: map[string]any{"path": "missing.txt"}, IsError: true, Want: "[PATH_NOT_FOUND]"},
			{Tool: "view", Args: map[string]any{"path": ""}, IsError: true, Want: "[INVALID_INPUT] path is required"},
			{Tool: "view", Args: map[string]any{"path": "/etc/passwd"}, IsError: true, Want: "[ACCESS_DENIED]", Not: "root:"},
			{Tool: "view", Args: map[string]any{"path": "../outside.txt"}, IsError: true, Want: "[ACCESS_DENIED]"},
			{Tool: "view", Args: map[string]any{"path": ".env"}, IsError: true, Want: "[ACCESS_DENIED]", Not: "SECRET"},
		}},
		{name: "over --max-file-size without a range", opt: func(o *Options) { o.MaxFileSize = 8 }, files: abc, steps: []tooltest.Step{
			{Tool: "view", Args: map[string]any{"path": "a.txt"}, IsError: true, Want: "[FILE_TOO_LARGE] $DIR/a.txt is 14 bytes, over the 8 limit; pass view_range"},
			{Tool: "view", Args: map[string]any{"path": "a.txt", "view_range": []int{3, 3}}, Want: "     3\tthree"},
		}},
		{name: "directories", files: map[string]string{
			"top.txt": "", "sub/inner.txt": "", "sub/deeper/hidden.txt": "", ".git/HEAD": "", "node_modules/m/index.js": "", ".env": "",
		}, setup: func(t *testing.T, dir string) {
			if err := os.Symlink("top.txt", filepath.Join(dir, "link")); err != nil {
				t.Fatal(err)
			}
		}, steps: []tooltest.Step{
			{Tool: "view", Args: map[string]any{"path": "."}, Want: "$DIR/\n  link -> top.txt\n  sub/\n    deeper/\n    inner.txt\n  top.txt\n"},
			{Tool: "view", Args: map[string]any{"path": "."}, Not: "hidden.txt"},
			{Tool: "view", Args: map[string]any{"path": "."}, Not: ".git"},
			{Tool: "view", Args: map[string]any{"path": "."}, Not: "node_modules"},
			{Tool: "view", Args: map[string]any{"path": "."}, Not: ".env"},
			{Tool: "view", Args: map[string]any{"path": "sub", "view_range": []int{1, 2}}, IsError: true, Want: "[INVALID_INPUT] view_range applies to files, but $DIR/sub is a directory"},
		}},
	})
}

// TestViewListingCapped: a directory of more entries than a listing
// holds is listed in part, saying where it stopped.
func TestViewListingCapped(t *testing.T) {
	files := map[string]string{}
	for i := range maxListEntries + 10 {
		files[fmt.Sprintf("d/f%04d", i)] = ""
	}
	runScenarios(t, []scenario{{name: "capped", files: files, steps: []tooltest.Step{
		{Tool: "view", Args: map[string]any{"path": "d"}, Want: "  f0999\n\n[Listing stopped at 1000 entries (at most 1000, in 1MB of text). View a subdirectory", Not: "f1000"},
	}}})
}

// TestViewImage: images come back whole as image content of their type;
// an image over the limit is refused.
func TestViewImage(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{0}, 9000)...) // larger than the head view sniffs
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`)
	for _, tt := range []struct {
		name, file string
		data       []byte
		max        int
		mime       string // "" for an error
		want       string // the error's text
	}{
		{"png", "p.png", png, 10 << 20, "image/png", ""},
		{"svg by its extension", "s.svg", svg, 10 << 20, "image/svg+xml", ""},
		{"image over --max-file-size", "p.png", png, 4096, "", "[FILE_TOO_LARGE] image $DIR/p.png is 9008 bytes, over the 4KB limit for images"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := tooltest.New(t)
			if err := os.WriteFile(filepath.Join(d.Dir(), tt.file), tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			opt := defaultOptions()
			opt.MaxFileSize = flagenv.Size(tt.max)
			res := tooltest.Call(t, tooltest.Connect(t, Tools(d, opt)), "view", map[string]any{"path": tt.file})
			if tt.mime == "" {
				want := strings.ReplaceAll(tt.want, "$DIR", d.Dir())
				if got := tooltest.Text(res); !res.IsError || !strings.Contains(got, want) {
					t.Errorf("view %s: got isError=%v %q, want %q", tt.file, res.IsError, got, want)
				}
				return
			}
			img, ok := res.Content[0].(*mcp.ImageContent)
			if res.IsError || !ok || img.MIMEType != tt.mime || !bytes.Equal(img.Data, tt.data) {
				t.Errorf("view %s: got isError=%v %T; want the whole file (%d bytes) as %s", tt.file, res.IsError, res.Content[0], len(tt.data), tt.mime)
			}
		})
	}
}
