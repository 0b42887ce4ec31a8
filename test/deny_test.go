package test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDenyPatternsCleaned checks through the built core that deny rules
// written with "./", "//" and ".." deny what they mean (issue 10, item 6),
// and that a rule which can never match stops boris at start-up.
func TestDenyPatternsCleaned(t *testing.T) {
	dir := realTempDir(t)
	for _, f := range []string{"secret/a.txt", "keys/k.pem", "env/x/.env", "ok.txt"} {
		writeFile(t, filepath.Join(dir, f), "data\n")
	}
	c := startCore(t, "--workdir", dir, "--deny-dir", "./secret/*", "--deny-dir", "sub/../keys//*.pem", "--deny-dir", "./**/.env")
	for _, f := range []string{"secret/a.txt", "keys/k.pem", "env/x/.env"} {
		c.fails("ACCESS_DENIED", "view", map[string]any{"path": f})
	}
	c.ok("view", map[string]any{"path": "ok.txt"})
	if got := c.ok("grep", map[string]any{"pattern": "data"}); strings.Contains(got, "secret") || strings.Contains(got, "k.pem") || strings.Contains(got, ".env") {
		t.Errorf("grep shows denied files:\n%s", got)
	}

	_, stderr, code := runBoris(t, nil, "--workdir", dir, "--deny-dir", "/../secret/*")
	if code != 2 || !strings.Contains(stderr, "/../secret/*") || !strings.Contains(stderr, "can never match") {
		t.Errorf("deny rule above /: got exit %d, stderr %q; want 2 and a message naming the rule and why", code, stderr)
	}
}
