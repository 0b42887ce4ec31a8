package gateway

import (
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mjkoo/boris/core/corecheck"
	"github.com/mjkoo/boris/core/sandbox"
)

func TestTemplateRoot(t *testing.T) {
	for tmpl, want := range map[string]string{
		"/srv/boris/{sub}":      "/srv/boris",
		"/srv/{sub}/work":       "/srv",
		"/srv/boris/u-{sub}":    "/srv/boris",
		"/srv/boris/{sub}/../x": "/srv/boris",
		"":                      "",
	} {
		c := &Config{WorkdirTemplate: tmpl}
		if got := c.templateRoot(); got != want {
			t.Errorf("templateRoot(%q): got %q, want %q", tmpl, got, want)
		}
	}
}

// TestCheckSecrets: a secret under anything a confined command may read
// stops the gateway unless the operator accepts it; outside, it starts.
func TestCheckSecrets(t *testing.T) {
	rep := func(enforced bool, tools ...string) *corecheck.Report {
		return &corecheck.Report{Tools: tools, Sandbox: sandbox.Report{Mode: "auto", Enforced: enforced,
			Spec: sandbox.Spec{Read: []string{"/usr", "/etc"}, Write: []string{"/srv/boris"}, ReadFiles: []string{"/home/u/.gitconfig"}}}}
	}
	log := slog.New(slog.DiscardHandler)
	tests := []struct {
		name    string
		rep     *corecheck.Report
		secret  string
		allow   bool
		refused bool
	}{
		{"under /etc", rep(true, "bash"), "/etc/boris/tokens", false, true},
		{"under the template root", rep(true, "bash"), "/srv/boris/tokens", false, true},
		{"a granted file", rep(true, "bash"), "/home/u/.gitconfig", false, true},
		{"systemd credentials", rep(true, "bash"), "/run/credentials/boris.service/tokens", false, false},
		{"prefix is not containment", rep(true, "bash"), "/etcetera/tokens", false, false},
		{"accepted by the operator", rep(true, "bash"), "/etc/boris/tokens", true, false},
		{"no sandbox, bash on", rep(false, "bash"), "/run/credentials/x/tokens", false, true},
		{"no sandbox, no bash", rep(false, "view"), "/etc/boris/tokens", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Config{AllowReadableSecret: tt.allow}
			err := c.checkSecrets(tt.rep, []string{tt.secret}, log)
			if (err != nil) != tt.refused {
				t.Fatalf("got %v, want refused=%v", err, tt.refused)
			}
			if err != nil && !strings.Contains(err.Error(), tt.secret) {
				t.Errorf("got %q, want the file named", err)
			}
		})
	}
}

// TestLaunchFor: a principal's core gets its own directory as working and
// allowed directory, HOME and TMPDIR; the secrets denied; its scope
// restrictions added to the operator's.
func TestLaunchFor(t *testing.T) {
	dir := t.TempDir()
	h := &starter{opts: Options{
		CoreArgs:      []string{"--timeout", "5"},
		Environ:       []string{"HOME=/root", "TMPDIR=/tmp", "BORIS_DISABLE_TOOLS=grep", "BORIS_GATEWAY_TOKENS=x"},
		Secrets:       []string{"/etc/boris/tokens"},
		PrincipalsDir: filepath.Join(dir, "principals"),
	}}
	if err := os.Mkdir(h.opts.PrincipalsDir, 0o700); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "alice")
	l, err := h.launchFor(Principal{Subject: "alice", Workdir: work, CoreArgs: []string{"--disable-tools", "bash", "--read-only"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"--timeout", "5", "--disable-tools", "grep", "--disable-tools", "bash", "--read-only",
		"--deny-dir", "/etc/boris/tokens", "--deny-dir", h.opts.PrincipalsDir,
		"--state-dir", filepath.Join(h.opts.PrincipalsDir, principalDirName(Principal{Subject: "alice"})),
		"--allow-dir", work, "--workdir", work}
	if diff := cmp.Diff(want, l.Args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	for _, kv := range []string{"HOME=" + work, "TMPDIR=" + filepath.Join(work, ".tmp"), "BORIS_DISABLE_TOOLS=grep"} {
		if !slices.Contains(l.Env, kv) {
			t.Errorf("env: got %q, want %s in it", l.Env, kv)
		}
	}
	for _, kv := range l.Env {
		if strings.HasPrefix(kv, "BORIS_GATEWAY_") || kv == "HOME=/root" || kv == "TMPDIR=/tmp" {
			t.Errorf("env: got %s, want it gone", kv)
		}
	}
	for _, d := range []string{work, filepath.Join(work, ".tmp")} {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: got %v %v, want a 0700 directory", d, fi, err)
		}
	}
	// A principal whose directory would hold a secret gets no core.
	h.opts.Secrets = []string{filepath.Join(dir, "tokens", "file")}
	if _, err := h.launchFor(Principal{Subject: "tokens", Workdir: filepath.Join(dir, "tokens")}); err == nil {
		t.Errorf("workdir holding a secret: got no error, want one")
	}
}
