package test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestFilesystemMissingAllowDir: with --toolset filesystem, as with
// server-filesystem, an --allow-dir that does not exist (yet) or is not a
// directory is skipped with a warning and the rest are served; with none
// left boris exits 1. The default toolset still refuses it as a bad
// setting (exit 2, TestCLIBadValues).
func TestFilesystemMissingAllowDir(t *testing.T) {
	good := realTempDir(t)
	missing := filepath.Join(realTempDir(t), "not-yet")
	file := filepath.Join(good, "file.txt")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("some left", func(t *testing.T) {
		c := startCore(t, "--toolset", "filesystem", "--allow-dir", missing, "--allow-dir", file, "--allow-dir", good, "--workdir", good, "--checkpoints", "off")
		res, err := c.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_allowed_directories", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := res.Content[0].(*mcp.TextContent).Text, "Allowed directories:\n"+good; got != want {
			t.Errorf("list_allowed_directories: %q, want %q", got, want)
		}
		log := c.stderr.String()
		for _, dir := range []string{missing, file} {
			if !strings.Contains(log, "skipping") || !strings.Contains(log, dir) {
				t.Errorf("stderr %q: want a warning that %s is skipped", log, dir)
			}
		}
	})
	t.Run("none left", func(t *testing.T) {
		stdout, stderr, code := runBoris(t, nil, "--toolset", "filesystem", "--allow-dir", missing, "--allow-dir", file, "--workdir", good)
		if code != 1 {
			t.Errorf("exit %d, want 1 (stderr %q)", code, stderr)
		}
		if stdout != "" {
			t.Errorf("stdout %q, want nothing", stdout)
		}
		if !strings.Contains(stderr, "none of the --allow-dir directories is accessible") {
			t.Errorf("stderr %q: want it to say no directory is accessible", stderr)
		}
	})
	t.Run("default toolset", func(t *testing.T) {
		if _, stderr, code := runBoris(t, nil, "--allow-dir", missing, "--allow-dir", good, "--workdir", good); code != 2 {
			t.Errorf("exit %d, want 2 (stderr %q)", code, stderr)
		}
	})
}
