package filesystem

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit/tooltest"
)

// abc is a small file of three lines.
var abc = map[string]string{"a.txt": "one\ntwo\nthree\n"}

// TestReadTools: read_text_file (and read_file) return a file's text,
// its head or its tail; read_multiple_files each file's or its error in
// its place; what may not be read is refused with its code.
func TestReadTools(t *testing.T) {
	big := strings.Repeat("0123456789abcdef\n", 70000) // over the 1MB a result holds
	runScenarios(t, []scenario{
		{name: "text", files: abc, steps: []tooltest.Step{
			{Tool: "read_text_file", Args: map[string]any{"path": "a.txt"}, Want: "one\ntwo\nthree\n"},
			{Tool: "read_file", Args: map[string]any{"path": "$DIR/a.txt"}, Want: "one\ntwo\nthree\n"},
			{Tool: "read_text_file", Args: map[string]any{"path": "a.txt", "head": 2}, Want: "one\ntwo", Not: "three"},
			{Tool: "read_text_file", Args: map[string]any{"path": "a.txt", "tail": 2}, Want: "three\n", Not: "two"},
			{Tool: "read_text_file", Args: map[string]any{"path": "a.txt", "head": 0}, Want: "one\ntwo\nthree\n"},
			{Tool: "read_text_file", Args: map[string]any{"path": "a.txt", "head": 1, "tail": 1}, IsError: true, Want: "[INVALID_INPUT] Cannot specify both head and tail parameters simultaneously"},
		}},
		{name: "refusals", maxSize: 8, files: map[string]string{"a.txt": "one\ntwo\nthree\n", "sub/f": "", ".env": "K=secret\n"}, steps: []tooltest.Step{
			{Tool: "read_text_file", Args: map[string]any{"path": "a.txt"}, IsError: true, Want: "[FILE_TOO_LARGE] $DIR/a.txt is 14 bytes, over the 8 limit"},
			{Tool: "read_text_file", Args: map[string]any{"path": "missing.txt"}, IsError: true, Want: "[PATH_NOT_FOUND]"},
			{Tool: "read_text_file", Args: map[string]any{"path": "sub"}, IsError: true, Want: "[IS_DIRECTORY] $DIR/sub is a directory, not a file"},
			{Tool: "read_text_file", Args: map[string]any{"path": ".env"}, IsError: true, Want: "[ACCESS_DENIED]", Not: "secret"},
			{Tool: "read_text_file", Args: map[string]any{"path": "/etc/passwd"}, IsError: true, Want: "[ACCESS_DENIED]", Not: "root:"},
			{Tool: "read_text_file", Args: map[string]any{"path": "C:\\Windows\\win.ini"}, IsError: true, Want: "[ACCESS_DENIED] Windows-style path received on a POSIX host"},
		}},
		{name: "a result stops at 1MB of text", files: map[string]string{"big.txt": big}, steps: []tooltest.Step{
			{Tool: "read_text_file", Args: map[string]any{"path": "big.txt"}, Want: "\n[Result cut: it held 1190000 bytes, more than the 1048576 a result may hold. Ask for less: head or tail, a narrower path or pattern.]\n"},
		}},
		{name: "multiple", files: map[string]string{"a.txt": "A\n", "b.txt": "B", ".env": "K=secret\n"}, steps: []tooltest.Step{
			{Tool: "read_multiple_files", Args: map[string]any{"paths": []string{"a.txt", "b.txt"}}, Want: "a.txt:\nA\n\n\n---\nb.txt:\nB\n"},
			{Tool: "read_multiple_files", Args: map[string]any{"paths": []string{"missing.txt", "a.txt", ".env"}},
				Want: "missing.txt: Error - [PATH_NOT_FOUND]", Not: "secret"},
			{Tool: "read_multiple_files", Args: map[string]any{"paths": []string{".env", "a.txt"}}, Want: ".env: Error - [ACCESS_DENIED]"},
			{Tool: "read_multiple_files", Args: map[string]any{"paths": []string{".env", "a.txt"}}, Want: "\n---\na.txt:\nA\n"},
			{Tool: "read_multiple_files", Args: map[string]any{"paths": []string{}}, IsError: true, Want: "paths"},
		}},
	})
}

// TestReadMediaFile: read_media_file returns images and audio as their
// content blocks and any other file as an embedded blob, each also as
// structuredContent; a refused path is refused.
func TestReadMediaFile(t *testing.T) {
	data := []byte("\x89PNG\r\n\x1a\n\x00\x01")
	for _, tt := range []struct {
		file, mime string
		kind       string // image, audio or resource; "" for an error
		want       string // the error
	}{
		{"pic.PNG", "image/png", "image", ""},
		{"song.mp3", "audio/mpeg", "audio", ""},
		{"blob.dat", "application/octet-stream", "resource", ""},
		{".env", "", "", "[ACCESS_DENIED]"},
		{"gone.png", "", "", "[PATH_NOT_FOUND]"},
	} {
		t.Run(tt.file, func(t *testing.T) {
			d := tooltest.New(t, "**/.env")
			if tt.file != "gone.png" {
				tooltest.WriteFiles(t, d.Dir(), map[string]string{tt.file: string(data)})
			}
			res := tooltest.Call(t, tooltest.Connect(t, Tools(d, Options{MaxFileSize: 10 << 20})), "read_media_file", map[string]any{"path": tt.file})
			if tt.kind == "" {
				if got := tooltest.Text(res); !res.IsError || !strings.HasPrefix(got, tt.want) {
					t.Errorf("read_media_file %s: got isError=%v %q, want %s", tt.file, res.IsError, got, tt.want)
				}
				return
			}
			if res.IsError || len(res.Content) != 1 {
				t.Fatalf("read_media_file %s: got isError=%v %d blocks, want one block", tt.file, res.IsError, len(res.Content))
			}
			var got struct {
				mime, kind string
				data       []byte
			}
			switch c := res.Content[0].(type) {
			case *mcp.ImageContent:
				got.mime, got.kind, got.data = c.MIMEType, "image", c.Data
			case *mcp.AudioContent:
				got.mime, got.kind, got.data = c.MIMEType, "audio", c.Data
			case *mcp.EmbeddedResource:
				got.mime, got.kind, got.data = c.Resource.MIMEType, "resource", c.Resource.Blob
				if want := "file://" + filepath.Join(d.Dir(), tt.file); c.Resource.URI != want {
					t.Errorf("resource URI %q, want %q", c.Resource.URI, want)
				}
			}
			if got.kind != tt.kind || got.mime != tt.mime || !bytes.Equal(got.data, data) {
				t.Errorf("read_media_file %s: got a %s block of %s, %d bytes; want a %s block of %s, the file's %d bytes", tt.file, got.kind, got.mime, len(got.data), tt.kind, tt.mime, len(data))
			}
			raw, _ := json.Marshal(res.StructuredContent)
			var structured struct {
				Content []struct{ Type string } `json:"content"`
			}
			if err := json.Unmarshal(raw, &structured); err != nil || len(structured.Content) != 1 || structured.Content[0].Type != tt.kind {
				t.Errorf("structuredContent %s (%v), want the %s block under content", raw, err, tt.kind)
			}
		})
	}
}

// TestGetFileInfo: get_file_info describes what a path names, a
// symlink's target included; a denied path is refused.
func TestGetFileInfo(t *testing.T) {
	runScenarios(t, []scenario{{name: "info", files: map[string]string{"a.txt": "hello", "sub/f": "", ".env": "K=v"}, setup: func(t *testing.T, dir string) {
		if err := os.Symlink("a.txt", filepath.Join(dir, "link")); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(dir, "a.txt"), 0o640); err != nil {
			t.Fatal(err)
		}
	}, steps: []tooltest.Step{
		{Tool: "get_file_info", Args: map[string]any{"path": "a.txt"}, Want: "size: 5\ncreated: "},
		{Tool: "get_file_info", Args: map[string]any{"path": "a.txt"}, Want: "\nisDirectory: false\nisFile: true\npermissions: 640"},
		{Tool: "get_file_info", Args: map[string]any{"path": "link"}, Want: "size: 5\n"},
		{Tool: "get_file_info", Args: map[string]any{"path": "sub"}, Want: "isDirectory: true\nisFile: false\npermissions: 755"},
		{Tool: "get_file_info", Args: map[string]any{"path": "a.txt"}, Want: " GMT"},
		{Tool: "get_file_info", Args: map[string]any{"path": ".env"}, IsError: true, Want: "[ACCESS_DENIED]"},
		{Tool: "get_file_info", Args: map[string]any{"path": "nope"}, IsError: true, Want: "[PATH_NOT_FOUND]"},
	}}})
}
