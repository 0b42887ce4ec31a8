package benchkit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// textResult returns a result of one text block.
func textResult(s string, isErr bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}, IsError: isErr}
}

// TestCheckResult checks that only a successful result holding every
// fixture line in order passes.
func TestCheckResult(t *testing.T) {
	fx := Fixture{Path: "/f", Lines: []string{"alpha", "beta"}}
	if err := CheckResult(textResult("     1\talpha\n     2\tbeta\n", false), nil, fx); err != nil {
		t.Errorf("good result: got %v, want nil", err)
	}
	for name, res := range map[string]*mcp.CallToolResult{
		"isError":   textResult("alpha beta", true),
		"missing":   textResult("alpha", false),
		"reordered": textResult("beta alpha", false),
	} {
		if err := CheckResult(res, nil, fx); err == nil {
			t.Errorf("%s result: got nil, want an error", name)
		}
	}
	if err := CheckResult(nil, errors.New("boom"), fx); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("call error: got %v, want it passed through", err)
	}
}

// TestWriteFixture checks that the file holds exactly the fixture's
// lines, each naming the benchmark, under the resolved directory.
func TestWriteFixture(t *testing.T) {
	fx, err := WriteFixture(filepath.Join(t.TempDir(), "files"), "test bench")
	if err != nil {
		t.Fatal(err)
	}
	if len(fx.Lines) != FixtureLines {
		t.Errorf("lines: got %d, want %d", len(fx.Lines), FixtureLines)
	}
	if want := "line 07 of the test bench fixture: "; !strings.HasPrefix(fx.Lines[6], want) {
		t.Errorf("line 7: got %q, want it to start with %q", fx.Lines[6], want)
	}
	if real, _ := filepath.EvalSymlinks(fx.Dir); real != fx.Dir || filepath.Dir(fx.Path) != fx.Dir {
		t.Errorf("dir %q, path %q: want a resolved dir holding the file", fx.Dir, fx.Path)
	}
	data, err := os.ReadFile(fx.Path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(data), strings.Join(fx.Lines, "\n")+"\n"; got != want {
		t.Errorf("file content: got %q, want %q", got, want)
	}
}

// TestResultText checks that text blocks are joined and others skipped.
func TestResultText(t *testing.T) {
	res := &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: "a"}, &mcp.ImageContent{MIMEType: "image/png"}, &mcp.TextContent{Text: "b"},
	}}
	if got := ResultText(res); got != "ab" {
		t.Errorf("ResultText: got %q, want %q", got, "ab")
	}
}

// TestClip checks that short strings pass and long ones are cut and marked.
func TestClip(t *testing.T) {
	if got := Clip("short"); got != "short" {
		t.Errorf("Clip(short): got %q", got)
	}
	long := strings.Repeat("x", clipLimit+1)
	if got, want := Clip(long), long[:clipLimit]+"..."; got != want {
		t.Errorf("Clip(%d bytes): got %d bytes, want %d", len(long), len(got), len(want))
	}
}
