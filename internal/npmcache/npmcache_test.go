package npmcache

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstall: the first Install says what it installs where, runs npm ci
// in the cache (never in the source directory), and later ones reuse it
// without running npm; a changed lock file installs afresh beside it.
func TestInstall(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("BORIS_TEST_CACHE", cache)
	bin := t.TempDir()
	count := filepath.Join(bin, "runs")
	// A stand-in npm: "npm ci" makes node_modules/pkg and counts its runs.
	script := "#!/bin/sh\necho run >> " + count + "\nmkdir -p node_modules/pkg && echo x > node_modules/pkg/index.js\n"
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	src := t.TempDir()
	for f, data := range map[string]string{"package.json": `{"name": "boris-x"}`, "package-lock.json": `{"v": 1}`} {
		if err := os.WriteFile(filepath.Join(src, f), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var log bytes.Buffer
	dir, err := Install(context.Background(), src, &log)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(dir, filepath.Join(cache, "npm", "boris-x-")) || !strings.Contains(log.String(), "installing the npm packages pinned in "+src) {
		t.Errorf("Install: dir %s, log %q; want a directory under %s/npm and a line saying what is installed", dir, log.String(), cache)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "pkg", "index.js")); err != nil {
		t.Errorf("installed package: %v", err)
	}
	if _, err := os.Stat(filepath.Join(src, "node_modules")); !os.IsNotExist(err) {
		t.Errorf("node_modules in the source directory: %v, want none", err)
	}
	log.Reset()
	again, err := Install(context.Background(), src, &log)
	if err != nil || again != dir || log.Len() != 0 {
		t.Errorf("second Install: %s, %v, log %q; want %s again, silently", again, err, log.String(), dir)
	}
	if err := os.WriteFile(filepath.Join(src, "package-lock.json"), []byte(`{"v": 2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	changed, err := Install(context.Background(), src, &log)
	if err != nil || changed == dir {
		t.Errorf("Install after the lock file changed: %s, %v; want a new directory", changed, err)
	}
	if runs, _ := os.ReadFile(count); strings.Count(string(runs), "run") != 2 {
		t.Errorf("npm ran %d times, want 2 (once per lock file)", strings.Count(string(runs), "run"))
	}
}
