package gateway

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mjkoo/boris/gateway/launch"
)

// TestLaunchForCaches: a principal's cores get build caches of their own,
// never the operator's (whose GOCACHE, XDG_CACHE_HOME, GOPATH and npm
// cache are in the gateway's environment): in CachesDir/NAME, granted to
// its commands with --sandbox-write, or without a caches directory in its
// working directory; GOPATH and XDG directories follow its HOME under
// --workdir-template.
func TestLaunchForCaches(t *testing.T) {
	operator := []string{"HOME=/home/op", "XDG_CACHE_HOME=/home/op/.cache", "GOCACHE=/home/op/.cache/go-build",
		"GOMODCACHE=/home/op/go/pkg/mod", "GOPATH=/home/op/go", "npm_config_cache=/home/op/.npm", "XDG_CONFIG_HOME=/home/op/.config"}
	tests := []struct {
		name      string
		template  bool
		caches    bool
		wantCache string // the principal's cache directory, relative to the test's directory
		wantGrant bool   // --sandbox-write of it
		wantHome  bool   // GOPATH and XDG_CONFIG_HOME under the principal's HOME
	}{
		{"template with a state directory", true, true, "caches/alice", true, true},
		{"template without a state directory", true, false, "alice/.cache", false, true},
		{"several principals, one working directory", false, true, "caches/alice", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			h := &starter{opts: Options{Environ: operator, PrincipalsDir: filepath.Join(dir, "principals")}}
			if err := os.Mkdir(h.opts.PrincipalsDir, 0o700); err != nil {
				t.Fatal(err)
			}
			if tt.caches {
				h.opts.CachesDir = filepath.Join(dir, "caches")
			}
			p := Principal{Subject: "alice", SubjectKey: "token\x00alice"}
			if tt.template {
				p.Workdir = filepath.Join(dir, "alice")
			}
			l, err := h.launchFor(p)
			if err != nil {
				t.Fatal(err)
			}
			cache := filepath.Join(dir, tt.wantCache)
			want := map[string]string{"XDG_CACHE_HOME": cache, "GOCACHE": filepath.Join(cache, "go-build"),
				"GOMODCACHE": filepath.Join(cache, "go-mod"), "npm_config_cache": filepath.Join(cache, "npm")}
			if tt.wantHome {
				want["GOPATH"], want["XDG_CONFIG_HOME"] = filepath.Join(p.Workdir, "go"), filepath.Join(p.Workdir, ".config")
			} else {
				want["GOPATH"], want["XDG_CONFIG_HOME"] = "/home/op/go", "/home/op/.config"
			}
			for name, v := range want {
				if got := launch.EnvValue(l.Env, name); got != v {
					t.Errorf("%s: got %q, want %q", name, got, v)
				}
			}
			if got := slices.Contains(l.Args, "--sandbox-write") && slices.Contains(l.Args, cache); got != tt.wantGrant {
				t.Errorf("args %q: --sandbox-write %s: got %v, want %v", l.Args, cache, got, tt.wantGrant)
			}
		})
	}
}
