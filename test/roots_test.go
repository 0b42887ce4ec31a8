package test

//lint:file-ignore SA1019 the tests speak to the core as 2025 clients do: roots are deprecated by 2026-07-28, not gone

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRootsDecideAllowedDirectories: with no --allow-dir, a client's MCP
// roots (2025 revisions: the session asks for them) become the directories the file tools may touch, and follow
// notifications/roots/list_changed; a root that is not a directory is
// skipped; --allow-dir, when given, is never widened by roots.
func TestRootsDecideAllowedDirectories(t *testing.T) {
	a, b, outside := realTempDir(t), realTempDir(t), realTempDir(t)
	for _, d := range []string{a, b, outside} {
		writeFile(t, filepath.Join(d, "f.txt"), "in "+filepath.Base(d)+"\n")
	}
	notADir := filepath.Join(outside, "f.txt")
	c := startCoreWith(t, coreOptions{
		args:     []string{"--workdir", a},
		roots:    []*mcp.Root{{URI: "file://" + a}, {URI: "file://" + notADir}},
		protocol: "2025-11-25",
	})
	c.ok("view", map[string]any{"path": filepath.Join(a, "f.txt")})
	c.fails("ACCESS_DENIED", "view", map[string]any{"path": filepath.Join(outside, "f.txt")})
	c.fails("ACCESS_DENIED", "create_file", map[string]any{"path": filepath.Join(b, "new.txt"), "content": "x"})

	// The client changes its roots: b in, a out.
	c.client.AddRoots(&mcp.Root{URI: "file://" + b})
	c.client.RemoveRoots("file://" + a)
	waitFor(t, "the roots change to apply", func() bool {
		res := c.call("view", map[string]any{"path": filepath.Join(a, "f.txt")})
		return res.IsError && strings.HasPrefix(text(res), "[ACCESS_DENIED]")
	})
	c.ok("create_file", map[string]any{"path": filepath.Join(b, "new.txt"), "content": "x"})
	c.fails("ACCESS_DENIED", "view", map[string]any{"path": filepath.Join(outside, "f.txt")})

	// --allow-dir wins: roots naming another directory change nothing.
	c2 := startCoreWith(t, coreOptions{
		args:     []string{"--workdir", a, "--allow-dir", a},
		roots:    []*mcp.Root{{URI: "file://" + outside}},
		protocol: "2025-11-25",
	})
	c2.ok("view", map[string]any{"path": filepath.Join(a, "f.txt")})
	c2.fails("ACCESS_DENIED", "view", map[string]any{"path": filepath.Join(outside, "f.txt")})

	// No roots offered and no --allow-dir: everything, as documented.
	c3 := startCoreWith(t, coreOptions{args: []string{"--workdir", a}})
	c3.ok("view", map[string]any{"path": filepath.Join(outside, "f.txt")})
}
