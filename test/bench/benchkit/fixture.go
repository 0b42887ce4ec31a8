package benchkit

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FixtureLines is how many lines the fixture file has: a small read, about
// 4 KB, where the server's overhead rather than the file shows.
const FixtureLines = 50

// Fixture is the small file a benchmark's servers read, with what every
// result of reading it must contain.
type Fixture struct {
	Dir   string   // directory the servers are scoped to (--workdir)
	Path  string   // absolute path of the file, small.txt in Dir
	Lines []string // every line of the file, without newlines
}

// WriteFixture creates dir with small.txt, FixtureLines distinct lines
// naming the benchmark ("line 01 of the NAME fixture: ..."). dir is
// resolved through symlinks so every server sees one real path.
func WriteFixture(dir, name string) (Fixture, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Fixture{}, fmt.Errorf("create fixture dir: %w", err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return Fixture{}, fmt.Errorf("resolve fixture dir: %w", err)
	}
	fx := Fixture{Dir: real, Path: filepath.Join(real, "small.txt")}
	var buf bytes.Buffer
	for i := 1; i <= FixtureLines; i++ {
		line := fmt.Sprintf("line %02d of the %s fixture: the quick brown fox jumps over the lazy dog", i, name)
		fx.Lines = append(fx.Lines, line)
		buf.WriteString(line + "\n")
	}
	if err := os.WriteFile(fx.Path, buf.Bytes(), 0o644); err != nil {
		return Fixture{}, fmt.Errorf("write fixture: %w", err)
	}
	return fx, nil
}

// CheckResult fails unless the call succeeded (err is nil), res is not an
// isError result and its text holds every line of fx in order: proof that
// the server really read the file, whatever it wraps the lines in.
func CheckResult(res *mcp.CallToolResult, err error, fx Fixture) error {
	if err != nil {
		return err
	}
	text := ResultText(res)
	if res.IsError {
		return fmt.Errorf("isError result: %s", Clip(text))
	}
	rest := text
	for n, line := range fx.Lines {
		i := strings.Index(rest, line)
		if i < 0 {
			return fmt.Errorf("result lacks line %d of %s (%q); got %q", n+1, fx.Path, line, Clip(text))
		}
		rest = rest[i+len(line):]
	}
	return nil
}

// ResultText joins the text content blocks of res.
func ResultText(res *mcp.CallToolResult) string {
	var sb strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(t.Text)
		}
	}
	return sb.String()
}

// clipLimit is how many bytes of a result or log Clip keeps.
const clipLimit = 300

// Clip shortens s to its first 300 bytes, marked with "...", for an error
// message.
func Clip(s string) string {
	if len(s) <= clipLimit {
		return s
	}
	return s[:clipLimit] + "..."
}
