package test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mjkoo/boris/internal/npmcache"
)

// goplsVersion is the gopls the diagnostics tests run.
const goplsVersion = "v0.23.0"

// lspServers are the real language servers the diagnostics tests run,
// installed once per machine into the test cache (npmcache.Root), never
// into the checkout: gopls with go install, pyright and
// typescript-language-server with npm ci from test/lsp's pins.
type lspServers struct {
	gopls, pyright, typescript string
	goplsErr, npmErr           error
}

var (
	lspOnce  sync.Once
	lspFound lspServers
)

// installLSP installs what is missing, once per test run.
func installLSP() lspServers {
	lspOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
		defer cancel()
		lspFound.gopls, lspFound.goplsErr = installGopls(ctx)
		dir, err := npmcache.Install(ctx, "lsp", os.Stderr)
		if err != nil {
			lspFound.npmErr = err
			return
		}
		bin := filepath.Join(dir, "node_modules", ".bin")
		lspFound.pyright = filepath.Join(bin, "pyright-langserver")
		lspFound.typescript = filepath.Join(bin, "typescript-language-server")
	})
	return lspFound
}

// installGopls returns gopls goplsVersion, installed with go install into
// the test cache the first time (a fresh directory renamed into place, or
// the one another test process renamed there first).
func installGopls(ctx context.Context) (string, error) {
	root, err := npmcache.Root()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, "gopls", goplsVersion)
	bin := filepath.Join(dir, "gopls")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	fmt.Fprintf(os.Stderr, "installing gopls %s with go install into %s (once, for the diagnostics tests)\n", goplsVersion, dir)
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "gopls-install-")
	if err != nil && os.MkdirAll(filepath.Dir(dir), 0o755) == nil {
		tmp, err = os.MkdirTemp(filepath.Dir(dir), "gopls-install-")
	}
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	// Static and -trimpath, as make test builds the binaries: the standard
	// library's packages compiled for those are found in the build cache.
	cmd := exec.CommandContext(ctx, "go", "install", "-trimpath", "golang.org/x/tools/gopls@"+goplsVersion)
	cmd.Env = append(os.Environ(), "GOBIN="+tmp, "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install gopls@%s: %w\n%s", goplsVersion, err, out)
	}
	if err := os.Rename(tmp, dir); err != nil {
		// The test processes of make test's shards install it at once on
		// a cold cache: the first to rename wins, the others use its.
		if _, statErr := os.Stat(bin); statErr == nil {
			return bin, nil
		}
		return "", err
	}
	return bin, nil
}

// needGopls returns gopls, or skips the test saying why it is missing.
func needGopls(t *testing.T) string {
	t.Helper()
	s := installLSP()
	if s.goplsErr != nil {
		t.Skipf("gopls %s could not be installed with go install (needs the Go module proxy): %v", goplsVersion, s.goplsErr)
	}
	return s.gopls
}

// needNodeServers returns pyright-langserver and typescript-language-server,
// or skips the test saying why they are missing.
func needNodeServers(t *testing.T) (pyright, typescript string) {
	t.Helper()
	s := installLSP()
	if s.npmErr != nil {
		t.Skipf("pyright and typescript-language-server could not be installed from test/lsp's pins with npm ci (needs npm and the npm registry): %v", s.npmErr)
	}
	return s.pyright, s.typescript
}
