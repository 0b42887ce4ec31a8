package filesystem

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit"
)

// newFsBoris returns the filesystem tools on a new allowed directory.
func newFsBoris(t *testing.T) (*tools, string) {
	t.Helper()
	b := newTestTools(t, t.TempDir())
	return b, b.d.Dir()
}

// fsText is a filesystem tool's result text, or its error as "[CODE] ...".
func fsText(res *mcp.CallToolResult, err error) string {
	if err != nil {
		return toolkit.Classify(err).Error()
	}
	return res.Content[0].(*mcp.TextContent).Text
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestFsUnicodeEquivalence: a name stored in one normalization form is
// found when asked for in the other, as server-filesystem finds it, and
// write_file rewrites it instead of making a second file.
func TestFsUnicodeEquivalence(t *testing.T) {
	ctx := context.Background()
	const nfc, nfd = "caf\u00e9", "cafe\u0301"
	for _, c := range []struct{ stored, asked string }{{nfd, nfc}, {nfc, nfd}} {
		b, dir := newFsBoris(t)
		if err := os.MkdirAll(filepath.Join(dir, c.stored+"-dir"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, c.stored+"-dir", c.stored+".txt"), []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		asked := filepath.Join(dir, c.asked+"-dir", c.asked+".txt")
		if got := fsText(b.fsReadTextFile(ctx, nil, fsReadTextParams{Path: asked})); got != "old\n" {
			t.Errorf("stored %q, asked %q: read %q, want %q", c.stored, c.asked, got, "old\n")
		}
		if got := fsText(b.fsWriteFile(ctx, nil, fsWriteParams{Path: asked, Content: "new\n"})); !strings.HasPrefix(got, "Successfully wrote") {
			t.Fatalf("write_file: %s", got)
		}
		if got, want := names(t, filepath.Join(dir, c.stored+"-dir")), []string{c.stored + ".txt"}; !slices.Equal(got, want) {
			t.Errorf("stored %q, asked %q: the directory holds %q after write_file, want %q", c.stored, c.asked, got, want)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, c.stored+"-dir", c.stored+".txt")); string(b) != "new\n" {
			t.Errorf("stored %q, asked %q: the file holds %q, want the new content", c.stored, c.asked, b)
		}
		// A new file in a directory asked for in the other form lands there.
		fresh := filepath.Join(dir, c.asked+"-dir", "fresh.txt")
		if got := fsText(b.fsWriteFile(ctx, nil, fsWriteParams{Path: fresh, Content: "x"})); !strings.HasPrefix(got, "Successfully wrote") {
			t.Errorf("write_file %q: %s", fresh, got)
		}
		if got := names(t, dir); len(got) != 1 {
			t.Errorf("stored %q, asked %q: the top holds %q, want one directory", c.stored, c.asked, got)
		}
	}
	t.Run("ambiguous", func(t *testing.T) {
		b, dir := newFsBoris(t)
		for _, n := range []string{"a\u0323\u0302", "a\u0302\u0323"} { // both NFC "\u1ead"
			if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got := fsText(b.fsReadTextFile(ctx, nil, fsReadTextParams{Path: filepath.Join(dir, "\u1ead")}))
		if !strings.HasPrefix(got, "[INVALID_INPUT] Ambiguous Unicode path component") {
			t.Errorf("read of a name two entries mean: %q, want [INVALID_INPUT] Ambiguous ...", got)
		}
	})
}

// TestFsDanglingLinks: a symlink whose target is missing is neither
// written through nor replaced by write_file, move_file or
// create_directory, and search_files does not list it.
func TestFsDanglingLinks(t *testing.T) {
	ctx := context.Background()
	b, dir := newFsBoris(t)
	for link, target := range map[string]string{"dangling": "missing.txt", "dangling-dir": "missing-dir", "out": "/nonexistent/boris-fsparity"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "src.txt"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		call func() (*mcp.CallToolResult, error)
	}{
		{"write_file", func() (*mcp.CallToolResult, error) {
			return b.fsWriteFile(ctx, nil, fsWriteParams{Path: filepath.Join(dir, "dangling"), Content: "through"})
		}},
		{"write_file below", func() (*mcp.CallToolResult, error) {
			return b.fsWriteFile(ctx, nil, fsWriteParams{Path: filepath.Join(dir, "dangling-dir", "x.txt"), Content: "through"})
		}},
		{"write_file out", func() (*mcp.CallToolResult, error) {
			return b.fsWriteFile(ctx, nil, fsWriteParams{Path: filepath.Join(dir, "out"), Content: "through"})
		}},
		{"move_file", func() (*mcp.CallToolResult, error) {
			return b.fsMoveFile(ctx, nil, fsMoveParams{Source: filepath.Join(dir, "src.txt"), Destination: filepath.Join(dir, "dangling")})
		}},
		{"create_directory", func() (*mcp.CallToolResult, error) {
			return b.fsCreateDirectory(ctx, nil, fsPathParams{Path: filepath.Join(dir, "dangling-dir")})
		}},
		{"create_directory below", func() (*mcp.CallToolResult, error) {
			return b.fsCreateDirectory(ctx, nil, fsPathParams{Path: filepath.Join(dir, "dangling-dir", "sub")})
		}},
	} {
		if got := fsText(c.call()); !strings.HasPrefix(got, "[PATH_NOT_FOUND] ") && !strings.HasPrefix(got, "[ACCESS_DENIED] ") {
			t.Errorf("%s: %q, want a refusal", c.name, got)
		}
	}
	if got, want := names(t, dir), []string{"dangling", "dangling-dir", "out", "src.txt"}; !slices.Equal(got, want) {
		t.Errorf("the directory holds %q, want %q: something was written through a link", got, want)
	}
	got := fsText(b.fsSearchFiles(ctx, nil, fsSearchParams{Path: dir, Pattern: "**"}))
	if want := filepath.Join(dir, "src.txt"); got != want {
		t.Errorf("search_files **: %q, want only %q", got, want)
	}
}

// TestFsEmptyPath: "" names the allowed directory, as in server-filesystem.
func TestFsEmptyPath(t *testing.T) {
	ctx := context.Background()
	b, dir := newFsBoris(t)
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := fsText(b.fsListDirectory(ctx, nil, fsPathParams{Path: ""})); got != "[FILE] f.txt" {
		t.Errorf(`list_directory "": %q, want "[FILE] f.txt"`, got)
	}
	if got := fsText(b.fsSearchFiles(ctx, nil, fsSearchParams{Path: "", Pattern: "*.txt"})); got != filepath.Join(dir, "f.txt") {
		t.Errorf(`search_files "": %q, want f.txt's path`, got)
	}
	if got := fsText(b.fsReadTextFile(ctx, nil, fsReadTextParams{Path: ""})); !strings.HasPrefix(got, "[IS_DIRECTORY] ") {
		t.Errorf(`read_text_file "": %q, want [IS_DIRECTORY]`, got)
	}
}

// TestFsNameNotUTF8: an entry whose name is not UTF-8 is shown decoded
// (one U+FFFD per maximal subpart), and that decoded name is refused
// rather than taken as a new file's, as in server-filesystem.
func TestFsNameNotUTF8(t *testing.T) {
	ctx := context.Background()
	b, dir := newFsBoris(t)
	if err := os.WriteFile(filepath.Join(dir, "bad\xe2\x82.txt"), []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	shown := "bad\uFFFD.txt"
	if got := fsText(b.fsListDirectory(ctx, nil, fsPathParams{Path: dir})); got != "[FILE] "+shown {
		t.Errorf("list_directory: %q, want %q", got, "[FILE] "+shown)
	}
	if got := fsText(b.fsListDirectoryWithSizes(ctx, nil, fsListSizesParams{Path: dir})); !strings.HasPrefix(got, "[FILE] "+shown+strings.Repeat(" ", 22)+"        0 B\n") {
		t.Errorf("list_directory_with_sizes: %q, want the decoded name at 0 B", got)
	}
	if got := fsText(b.fsWriteFile(ctx, nil, fsWriteParams{Path: filepath.Join(dir, shown), Content: "x"})); !strings.HasPrefix(got, "[PATH_NOT_FOUND] ") {
		t.Errorf("write_file to the decoded name: %q, want [PATH_NOT_FOUND]", got)
	}
	if got := names(t, dir); len(got) != 1 {
		t.Errorf("the directory holds %q, want the one file", got)
	}
	if got := fsText(b.fsSearchFiles(ctx, nil, fsSearchParams{Path: dir, Pattern: "**"})); got != "No matches found" {
		t.Errorf("search_files: %q, want no match (server-filesystem cannot name it)", got)
	}
	// A link to it resolves to a path Node cannot name: refused, neither
	// read nor replaced by a file of the decoded name.
	if err := os.Symlink("bad\xe2\x82.txt", filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	for _, got := range []string{
		fsText(b.fsReadTextFile(ctx, nil, fsReadTextParams{Path: filepath.Join(dir, "l")})),
		fsText(b.fsWriteFile(ctx, nil, fsWriteParams{Path: filepath.Join(dir, "l"), Content: "x"})),
	} {
		if !strings.HasPrefix(got, "[PATH_NOT_FOUND] ") || !strings.Contains(got, "not UTF-8") {
			t.Errorf("through a link to it: %q, want [PATH_NOT_FOUND] ... not UTF-8", got)
		}
	}
	if got := names(t, dir); len(got) != 2 {
		t.Errorf("the directory holds %q, want the file and the link", got)
	}
}

// TestFsWindowsPathRefused: a Windows drive path is refused as
// server-filesystem refuses it on a POSIX host, and names that only begin
// like one are paths like any other.
func TestFsWindowsPathRefused(t *testing.T) {
	b, _ := newFsBoris(t)
	for _, tc := range []struct {
		path    string
		refused bool
	}{
		{`C:\Users\me\file.txt`, true},
		{"c:/work/file.txt", true},
		{"Z:", true},
		{"C:file.txt", false},
		{"1:/file.txt", false},
		{"@:/file.txt", false},
		{"file.txt", false},
	} {
		_, _, err := b.fsResolve("", tc.path)
		refused := err != nil && strings.Contains(err.Error(), "Windows-style path")
		if refused != tc.refused {
			t.Errorf("%q: got refused=%v (%v), want %v", tc.path, refused, err, tc.refused)
		}
	}
}
